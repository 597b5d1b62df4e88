import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  discreteGaussianHalfWidth,
  discreteGaussianPmf,
  discreteGaussianTail,
  discreteGaussianVariance,
  sampleDiscreteGaussian,
  seededRandomSource,
  weightedSumCoverage,
  weightedSumHalfWidth,
  type NoiseTerm,
  type RandomSource,
} from '../../src/tacsi/privacy/index.ts';

// Every statistical test draws from a seeded generator, so each run sees the same samples and the
// fixed-significance tests either always pass or always fail: they cannot flake.

/** Discrete Gaussian pmf written independently of the module: normalised over a wide support. */
function referencePmf(sigma2: number): (x: number) => number {
  const r = Math.ceil(12 * Math.sqrt(sigma2)) + 10;
  let z = 0;
  for (let y = -r; y <= r; y++) z += Math.exp(-(y * y) / (2 * sigma2));
  return (x) => Math.exp(-(x * x) / (2 * sigma2)) / z;
}

function draws(sigma2: [bigint, bigint], n: number, seed: string): number[] {
  const rng = seededRandomSource(seed);
  const out = new Array<number>(n);
  const s = { numerator: sigma2[0], denominator: sigma2[1] };
  for (let i = 0; i < n; i++) out[i] = Number(sampleDiscreteGaussian(s, rng));
  return out;
}

/** Upper alpha = 0.001 critical value of chi-square(df), Wilson-Hilferty (accurate to < 1% for df >= 10). */
function chiSquareCritical(df: number): number {
  const z = 3.090232;
  const a = 2 / (9 * df);
  return df * (1 - a + z * Math.sqrt(a)) ** 3;
}

/**
 * Pearson chi-square of samples against pmf, bins of `width` integers symmetric around zero, outer
 * bins extended until each expects at least 20 samples, plus two open tail bins.
 */
function chiSquare(samples: readonly number[], pmf: (x: number) => number, width: number) {
  const n = samples.length;
  let maxBin = 0;
  for (;;) {
    let p = 0;
    for (let x = (maxBin + 1) * width; x < (maxBin + 2) * width; x++) p += pmf(x);
    if (p * n < 20) break;
    maxBin += 1;
  }
  const minBin = -maxBin - 1;
  const expected = new Map<number, number>();
  for (let k = minBin; k <= maxBin; k++) {
    let p = 0;
    for (let x = k * width; x < (k + 1) * width; x++) p += pmf(x);
    expected.set(k, p);
  }
  // Tail masses summed directly: the binning is not symmetric about 0 (bin k is [kw, (k+1)w - 1]).
  const far = Math.ceil(Math.sqrt(-2 * Math.log(1e-18)) * (maxBin + 2) * width) + 10;
  let lower = 0;
  let upper = 0;
  for (let x = minBin * width - 1; x >= minBin * width - far; x--) lower += pmf(x);
  for (let x = (maxBin + 1) * width; x <= (maxBin + 1) * width + far; x++) upper += pmf(x);
  expected.set(minBin - 1, lower);
  expected.set(maxBin + 1, upper);
  const observed = new Map<number, number>();
  for (const x of samples) {
    const k = Math.min(maxBin + 1, Math.max(minBin - 1, Math.floor(x / width)));
    observed.set(k, (observed.get(k) ?? 0) + 1);
  }
  let stat = 0;
  for (const [k, p] of expected) stat += ((observed.get(k) ?? 0) - p * n) ** 2 / (p * n);
  return { stat, df: expected.size - 1 };
}

describe('sampleDiscreteGaussian (CKS 2020, Algorithm 3)', () => {
  afterEach(() => vi.restoreAllMocks());

  it('is exactly reproducible under the seeded generator and returns bigints', () => {
    const a = draws([435600n, 1n], 2000, 'repro');
    expect(a).toEqual(draws([435600n, 1n], 2000, 'repro'));
    expect(a).not.toEqual(draws([435600n, 1n], 2000, 'other'));
    expect(typeof sampleDiscreteGaussian({ numerator: 9n, denominator: 4n }, seededRandomSource('t'))).toBe(
      'bigint',
    );
  });

  it('uses no floating-point maths between the random bytes and the output', () => {
    // Bytes drawn up front and replayed by a plain source, so only the sampler runs under the mocks.
    const bytes = seededRandomSource('no-float').nextBytes(4096 * 64);
    let at = 0;
    const rng: RandomSource = {
      kind: 'seeded',
      nextBytes(k) {
        if (at + k > bytes.length) throw new Error('replay exhausted');
        at += k;
        return bytes.subarray(at - k, at);
      },
    };
    // Any Math call (exp, log, sqrt, floor, random...) on the sampling path would throw here.
    for (const name of Object.getOwnPropertyNames(Math)) {
      const value = (Math as unknown as Record<string, unknown>)[name];
      if (typeof value === 'function') {
        vi.spyOn(Math as unknown as Record<string, () => number>, name).mockImplementation(() => {
          throw new Error(`Math.${name} called while sampling`);
        });
      }
    }
    for (const s of [
      { numerator: 1690000n, denominator: 1n },
      { numerator: 435600n, denominator: 1n },
      { numerator: 7n, denominator: 3n },
    ]) {
      for (let i = 0; i < 200; i++) expect(typeof sampleDiscreteGaussian(s, rng)).toBe('bigint');
    }
  });

  it('rejects a non-positive variance', () => {
    const rng = seededRandomSource('x');
    expect(() => sampleDiscreteGaussian({ numerator: 0n, denominator: 1n }, rng)).toThrow(RangeError);
    expect(() => sampleDiscreteGaussian({ numerator: 1n, denominator: 0n }, rng)).toThrow(RangeError);
    expect(() => sampleDiscreteGaussian({ numerator: -4n, denominator: 1n }, rng)).toThrow(RangeError);
  });

  describe('at the tacsi-m2 daily scale for band 250 (sigma = 660 grid units), 200k draws', () => {
    const sigma2 = 660 * 660;
    const samples = draws([BigInt(sigma2), 1n], 200_000, 'gauss-660');
    const n = samples.length;
    const pmf = referencePmf(sigma2);

    it('has mean ~ 0 and variance sigma^2', () => {
      const mean = samples.reduce((a, x) => a + x, 0) / n;
      const variance = samples.reduce((a, x) => a + x * x, 0) / n - mean * mean;
      expect(Math.abs(mean)).toBeLessThan(5 * Math.sqrt(sigma2 / n));
      // sd of the sample variance of a Gaussian is sqrt(2/n) * sigma^2, about 0.3% here.
      expect(Math.abs(variance / sigma2 - 1)).toBeLessThan(5 * Math.sqrt(2 / n));
    });

    it('is symmetric: as many positive as negative draws', () => {
      const pos = samples.filter((x) => x > 0).length;
      const neg = samples.filter((x) => x < 0).length;
      expect(Math.abs(pos - neg)).toBeLessThan(5 * Math.sqrt(pos + neg));
    });

    it('matches the exact tail probabilities P(|X| >= k), out to 4 sigma', () => {
      for (const k of [1, 330, 660, 1320, 1980, 2640]) {
        let inside = 0;
        for (let x = -(k - 1); x <= k - 1; x++) inside += pmf(x);
        const p = 1 - inside;
        const freq = samples.filter((x) => Math.abs(x) >= k).length / n;
        expect(Math.abs(freq - p)).toBeLessThan(5 * Math.sqrt((p * (1 - p)) / n) + 1e-6);
        expect(discreteGaussianTail(k, sigma2)).toBeCloseTo(p, 10);
      }
    });

    it('passes a chi-square goodness-of-fit test against the exact pmf (alpha = 0.001)', () => {
      const { stat, df } = chiSquare(samples, pmf, 60);
      expect(df).toBeGreaterThan(40);
      expect(stat).toBeLessThan(chiSquareCritical(df));
    });

    it('the same test rejects a 3% wrong sigma, so it has power', () => {
      const { stat, df } = chiSquare(samples, referencePmf(sigma2 * 1.03 ** 2), 60);
      expect(stat).toBeGreaterThan(chiSquareCritical(df));
    });
  });

  it('fits the exact pmf for small and fractional variances (1/2, 9/4, 7/3, 30)', () => {
    for (const [a, b] of [
      [1n, 2n],
      [9n, 4n],
      [7n, 3n],
      [30n, 1n],
    ] as const) {
      const sigma2 = Number(a) / Number(b);
      const samples = draws([a, b], 100_000, `gauss-${a}/${b}`);
      const { stat, df } = chiSquare(samples, referencePmf(sigma2), 1);
      expect(df).toBeGreaterThanOrEqual(4);
      expect(stat).toBeLessThan(chiSquareCritical(Math.max(df, 10)));
      const wrong = chiSquare(samples, referencePmf(sigma2 * 1.1), 1);
      expect(wrong.stat).toBeGreaterThan(chiSquareCritical(Math.max(wrong.df, 10)));
    }
  });

  it('keeps drawing proposals until one is accepted (scripted bytes)', () => {
    // A source that replays the seeded stream: the sampler must return the same value whatever the
    // pool boundaries, i.e. it consumes bytes only through the source.
    const base = seededRandomSource('script');
    const log: number[] = [];
    const recording: RandomSource = {
      kind: 'seeded',
      nextBytes(k) {
        const b = base.nextBytes(k);
        log.push(...b);
        return b;
      },
    };
    const x = sampleDiscreteGaussian({ numerator: 25n, denominator: 1n }, recording);
    let i = 0;
    const replay: RandomSource = {
      kind: 'seeded',
      nextBytes(k) {
        const out = Uint8Array.from(log.slice(i, i + k));
        if (out.length < k) throw new Error('script exhausted');
        i += k;
        return out;
      },
    };
    expect(sampleDiscreteGaussian({ numerator: 25n, denominator: 1n }, replay)).toBe(x);
    expect(i).toBe(log.length);
  });
});

describe('discrete Gaussian law', () => {
  it('pmf sums to 1 and matches the reference; variance <= sigma^2 and ~ sigma^2; half-width is minimal', () => {
    for (const sigma2 of [0.25, 2, 9, 4225, 435600]) {
      const pmf = referencePmf(sigma2);
      const r = Math.ceil(12 * Math.sqrt(sigma2)) + 10;
      let mass = 0;
      for (let x = -r; x <= r; x++) {
        mass += discreteGaussianPmf(x, sigma2);
        if (Math.abs(x) < 3 * Math.sqrt(sigma2) + 2) {
          expect(discreteGaussianPmf(x, sigma2) / pmf(x)).toBeCloseTo(1, 10);
        }
      }
      expect(mass).toBeCloseTo(1, 10);
      const v = discreteGaussianVariance(sigma2);
      expect(v).toBeLessThanOrEqual(sigma2 * (1 + 1e-12));
      // CKS 2020 Proposition 19: sigma^2 (1 - 4 pi^2 sigma^2 / (e^(4 pi^2 sigma^2) - 1)) < Var for sigma^2 >= 1/3... ~ sigma^2.
      if (sigma2 >= 1) expect(v / sigma2).toBeCloseTo(1, 8);
      const h = discreteGaussianHalfWidth(sigma2, 0.95);
      const inside = (k: number) => {
        let p = 0;
        for (let x = -k; x <= k; x++) p += pmf(x);
        return p;
      };
      expect(inside(h)).toBeGreaterThanOrEqual(0.95);
      if (h > 0) expect(inside(h - 1)).toBeLessThan(0.95);
    }
    expect(discreteGaussianPmf(0.5, 4)).toBe(0);
    expect(() => discreteGaussianPmf(0, 0)).toThrow(RangeError);
    expect(() => discreteGaussianHalfWidth(4, 1)).toThrow(RangeError);
  });

  it('the weighted-sum coverage agrees with an explicit convolution of the discrete Gaussians', () => {
    // S = sum w_j X_j with the composite's weights (1/5, 1/5, 1/4, 1/5, 3/20), small sigmas so the
    // convolution is cheap to do exactly; and a mean of unequal daily noises.
    const cases: { terms: NoiseTerm[] }[] = [
      {
        terms: [
          [1, 5, 36],
          [1, 5, 36],
          [1, 4, 36],
          [1, 5, 36],
          [3, 20, 36],
        ].map(([n, d, s]) => ({
          weight: { numerator: n!, denominator: d! },
          sigma2: { numerator: s!, denominator: 1 },
        })),
      },
      {
        terms: [
          [1, 3, 100],
          [1, 3, 100],
          [1, 3, 25],
        ].map(([n, d, s]) => ({
          weight: { numerator: n!, denominator: d! },
          sigma2: { numerator: s!, denominator: 1 },
        })),
      },
    ];
    for (const { terms } of cases) {
      // Exact pmf of L*S on the integers by direct convolution.
      const L = terms.reduce((l, t) => (l * t.weight.denominator) / gcd(l, t.weight.denominator), 1);
      let dist = new Map<number, number>([[0, 1]]);
      for (const t of terms) {
        const a = (t.weight.numerator * L) / t.weight.denominator;
        const s2 = t.sigma2.numerator / t.sigma2.denominator;
        const r = Math.ceil(10 * Math.sqrt(s2));
        const next = new Map<number, number>();
        for (const [v, p] of dist) {
          for (let x = -r; x <= r; x++) {
            const k = v + a * x;
            next.set(k, (next.get(k) ?? 0) + p * discreteGaussianPmf(x, s2));
          }
        }
        dist = next;
      }
      const exactCoverage = (h: number) => {
        let p = 0;
        for (const [v, q] of dist) if (Math.abs(v) <= h * L) p += q;
        return p;
      };
      for (let h = 0; h <= 20; h++) {
        expect(Math.abs(weightedSumCoverage(terms, h) - exactCoverage(h))).toBeLessThan(2e-3);
      }
      const hw = weightedSumHalfWidth(terms, 0.95);
      // The exact half-width, allowing the midpoint rule's small error to move a borderline case by one.
      expect(exactCoverage(hw + 1)).toBeGreaterThanOrEqual(0.95);
      expect(exactCoverage(hw - 1)).toBeLessThan(0.95);
    }
  });

  it('the weighted-sum half-width of a single unit term equals the exact discrete half-width', () => {
    for (const s2 of [4225, 435600, 1690000]) {
      const one: NoiseTerm[] = [
        { weight: { numerator: 1, denominator: 1 }, sigma2: { numerator: s2, denominator: 1 } },
      ];
      expect(weightedSumHalfWidth(one, 0.95)).toBe(discreteGaussianHalfWidth(s2, 0.95));
    }
  });
});

function gcd(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}
