// The benchmark percentile's 95% interval (docs/privacy.md section 6): over many publications of the
// same cohort's histogram, the interval computed from each published histogram covers the noise-free
// percentile (the estimand: the position in the cohort's exact binned distribution) about 95% of the
// time or more (it is widened outward to the 5-point grid), and it is narrower at larger bands.
import { describe, expect, it } from 'vitest';
import {
  TACSI_M2,
  histogramShareUnits,
  percentileFromHistogram,
  percentileIntervalFromHistogram,
  perturbHistogram,
  seededRandomSource,
} from '../../src/tacsi/privacy/index.ts';

/** A cohort of composite values around 55 (sd about 6), deterministic. */
function cohort(n: number): number[] {
  return Array.from({ length: n }, (_, i) => {
    const u = (i + 0.5) / n;
    // A smooth spread: inverse of a logistic CDF, scale 3.3 (sd about 6).
    return Math.round((55 + 3.3 * Math.log(u / (1 - u))) * 100) / 100;
  });
}

function coverage(n: number, score: number, runs: number) {
  const values = cohort(n);
  const exactShares = histogramShareUnits(values, TACSI_M2).map((u) => Number(u) / 10000);
  const edges = TACSI_M2.histogram.edges;
  // The estimand, unrounded: the interpolated CDF of the exact histogram at the score.
  const target = (() => {
    let cdf = 0;
    for (let b = 0; b < exactShares.length; b++) {
      const lo = edges[b]!;
      const hi = edges[b + 1]!;
      if (score >= hi) cdf += exactShares[b]!;
      else return 100 * (cdf + (exactShares[b]! * (score - lo)) / (hi - lo));
    }
    return 100 * cdf;
  })();
  const rng = seededRandomSource(`percentile-${n}-${score}`);
  let covered = 0;
  let width = 0;
  for (let i = 0; i < runs; i++) {
    const h = perturbHistogram(values, TACSI_M2, rng)!;
    const { low, high } = percentileIntervalFromHistogram(score, h, h.bandFloor, TACSI_M2, 5);
    const p = percentileFromHistogram(score, h, 5);
    expect(low).toBeLessThanOrEqual(p);
    expect(high).toBeGreaterThanOrEqual(p);
    if (low <= target && target <= high) covered++;
    width += high - low;
  }
  return { rate: covered / runs, width: width / runs };
}

describe('percentile interval', () => {
  for (const [n, score] of [
    [100, 58],
    [100, 50],
    [250, 61],
    [1000, 55],
  ] as const) {
    it(`covers the noise-free percentile at n = ${n}, score ${score}`, () => {
      const { rate, width } = coverage(n, score, 400);
      expect(rate).toBeGreaterThanOrEqual(0.93);
      // Not trivially wide.
      expect(width).toBeLessThan(n >= 250 ? 25 : 45);
    });
  }

  it('narrows as the band grows', () => {
    expect(coverage(1000, 55, 100).width).toBeLessThan(coverage(100, 55, 100).width);
  });
});
