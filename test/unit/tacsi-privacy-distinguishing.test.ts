import { describe, expect, it } from 'vitest';
import {
  TACSI_M2,
  TACSI_PILLARS,
  defineGaussianMethodology,
  perturbCellGaussian,
  perturbHistogram,
  ratioValue,
  seededRandomSource,
  zcdpToApproxDp,
  type EntityScores,
  type GaussianMethodology,
} from '../../src/tacsi/privacy/index.ts';

// An empirical audit of the released mechanism. Two neighbouring cohorts differ in one entity, moved
// from the bottom to the top of the score range (the full sensitivity). We run the real release many
// times on each with the seeded source and apply every threshold test on the likelihood-ratio
// statistic. (epsilon, delta)-DP requires, for every test, TPR <= e^epsilon FPR + delta (and the same
// with the roles swapped); rho-zCDP gives that for epsilon = rho + 2 sqrt(rho ln(1/delta)) (Bun and
// Steinke 2016, Proposition 1.3). The estimated rates get a sampling slack of 4 standard errors. The
// same audit of a mechanism with a tenth of the noise must fail, so the audit can fail.

const RUNS = 15_000;
/** The weak mechanism is told apart at once; fewer runs suffice. */
const WEAK_RUNS = 4_000;
const Z = 4;

interface Tradeoff {
  readonly fpr: number;
  readonly tpr: number;
}

/** For every threshold t: FPR = P_A(T >= t), TPR = P_B(T >= t), over the observed statistics. */
function tradeoff(a: readonly number[], b: readonly number[]): Tradeoff[] {
  const thresholds = [...new Set([...a, ...b])].sort((x, y) => x - y);
  const sa = [...a].sort((x, y) => x - y);
  const sb = [...b].sort((x, y) => x - y);
  const out: Tradeoff[] = [];
  let i = 0;
  let j = 0;
  for (const t of thresholds) {
    while (i < sa.length && sa[i]! < t) i++;
    while (j < sb.length && sb[j]! < t) j++;
    out.push({ fpr: (sa.length - i) / sa.length, tpr: (sb.length - j) / sb.length });
  }
  return out;
}

const se = (p: number, n: number) => Math.sqrt(Math.max(p * (1 - p), 1 / n) / n);

/** Largest excess of a test's TPR over e^eps FPR + delta, each rate moved Z standard errors in the test's favour. */
function worstExcess(curve: readonly Tradeoff[], epsilon: number, delta: number, n: number): number {
  let worst = -Infinity;
  for (const { fpr, tpr } of curve) {
    // Both directions: rejecting A when T >= t, and rejecting B when T < t.
    const up = tpr - Z * se(tpr, n) - (Math.exp(epsilon) * (fpr + Z * se(fpr, n)) + delta);
    const down = 1 - fpr - Z * se(fpr, n) - (Math.exp(epsilon) * (1 - tpr + Z * se(tpr, n)) + delta);
    worst = Math.max(worst, up, down);
  }
  return worst;
}

/** Neighbouring cohorts of n: the same n - 1 entities, and one entity at 0 (A) or at 100 (B). */
function neighbours(n: number): [EntityScores[], EntityScores[]] {
  const rest = Array.from({ length: n - 1 }, (_, i) => {
    const v = 45 + (i % 10);
    return {
      entityId: `e${i}`,
      indexValue: 0,
      pillars: { presence: v, reach: v, impact: v, sentiment: v, momentum: v },
    };
  });
  const at = (v: number): EntityScores => ({
    entityId: 'target',
    indexValue: 0,
    pillars: { presence: v, reach: v, impact: v, sentiment: v, momentum: v },
  });
  return [
    [...rest, at(0)],
    [...rest, at(100)],
  ];
}

/** The LR-optimal statistic for equal shifts of equal-variance Gaussian pillars: their sum. */
function cellStatistics(
  entities: EntityScores[],
  cadence: 'daily' | 'weekly',
  m: GaussianMethodology,
  seed: string,
  runs: number,
) {
  const rng = seededRandomSource(seed);
  return Array.from({ length: runs }, () => {
    const cell = perturbCellGaussian(entities, cadence, m, rng)!;
    return Math.round(TACSI_PILLARS.reduce((s, p) => s + cell.pillars[p], 0) * 100);
  });
}

/** The target moves from the lowest bin to the highest: the statistic is the difference of those shares. */
function histogramStatistics(values: number[], m: GaussianMethodology, seed: string, runs: number) {
  const rng = seededRandomSource(seed);
  return Array.from({ length: runs }, () => {
    const h = perturbHistogram(values, m, rng)!;
    return Math.round((h.shares[9]! - h.shares[0]!) * 10_000);
  });
}

const lessNoise = defineGaussianMethodology({
  version: 'tacsi-test-less-noise',
  noiseMultipliers: { daily: [33, 20], weekly: [13, 20], histogram: [3, 10] },
  annualRhoCap: [5, 1],
  delta: 1e-10,
});

const DELTAS = [0.1, 0.01, 0.001];

describe('empirical distinguishing audit of the tacsi-m2 releases', () => {
  const cases = [
    { name: 'weekly cell, n = 50', kind: 'weekly', n: 50 },
    { name: 'daily cell, n = 250', kind: 'daily', n: 250 },
    { name: 'histogram, n = 50', kind: 'histogram', n: 50 },
  ] as const;

  for (const { name, kind, n } of cases) {
    it(`${name}: no threshold test beats the (epsilon, delta) that its rho implies; less noise would`, () => {
      const stats = (m: GaussianMethodology, tag: string, runs: number): [number[], number[]] => {
        if (kind === 'histogram') {
          const rest = Array.from({ length: n - 1 }, (_, i) => 45 + (i % 30));
          return [
            histogramStatistics([...rest, 10], m, `${tag}-A`, runs),
            histogramStatistics([...rest, 90], m, `${tag}-B`, runs),
          ];
        }
        const [a, b] = neighbours(n);
        return [cellStatistics(a, kind, m, `${tag}-A`, runs), cellStatistics(b, kind, m, `${tag}-B`, runs)];
      };
      const rho = ratioValue(TACSI_M2.rhoPerRelease[kind]);
      const real = tradeoff(...stats(TACSI_M2, `audit-${kind}`, RUNS));
      const weak = tradeoff(...stats(lessNoise, `weak-${kind}`, WEAK_RUNS));
      // The two cohorts' outputs do differ: the best test has some power (else the audit is empty).
      expect(Math.max(...real.map((r) => r.tpr - r.fpr))).toBeGreaterThan(0.03);
      for (const delta of DELTAS) {
        const epsilon = zcdpToApproxDp(rho, delta);
        expect(worstExcess(real, epsilon, delta, RUNS)).toBeLessThanOrEqual(0);
        expect(worstExcess(weak, epsilon, delta, WEAK_RUNS)).toBeGreaterThan(0.2);
      }
    }, 120_000);
  }
});
