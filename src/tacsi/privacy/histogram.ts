// The sector's peer distribution for the audit benchmark: shares of the weekly cohort in fixed public
// bins, each share noised with an exact discrete Gaussian. Replacing one entity moves one unit of
// count from one bin to another, so two shares move by D = 10000 / bandFloor share units each
// (l2^2 = 2 D^2); noise (c_h D)^2 per bin gives rho = 1 / c_h^2 per release.
import { cohortBand } from './cohort.ts';
import { sampleDiscreteGaussian } from './discrete-gaussian.ts';
import { bandFloorOf, histogramSigma2, type GaussianMethodology } from './methodology-m2.ts';
import { scoreToGridUnits } from './perturb.ts';
import type { RandomSource } from './random.ts';
import { fromRatio, ratioValue, roundHalfUp } from './rational.ts';

export interface PublishedHistogram {
  /** Bin edges in index points; bin i is [edges[i], edges[i+1]), the last bin closed. */
  readonly edges: readonly number[];
  /** Share of the cohort in each bin, on the 1e-4 grid, non-negative and summing to exactly 1. */
  readonly shares: readonly number[];
  readonly bandFloor: number;
  readonly cohortBand: string;
  readonly methodologyVersion: string;
  /** rho this release costs each entity of the cohort. */
  readonly rho: number;
}

/** Bin index of a grid value: edges are whole index points, the last bin includes the top. */
function binOf(units: bigint, edgeUnits: readonly bigint[]): number {
  const bins = edgeUnits.length - 1;
  for (let b = bins - 1; b > 0; b--) if (units >= edgeUnits[b]!) return b;
  return 0;
}

/**
 * Largest-remainder apportionment of `total` units in proportion to non-negative integer weights
 * (ties to the lower bin), exactly; equal split when every weight is 0.
 */
function apportion(weights: readonly bigint[], total: bigint): bigint[] {
  const sum = weights.reduce((a, w) => a + w, 0n);
  const w = sum === 0n ? weights.map(() => 1n) : weights;
  const s = sum === 0n ? BigInt(weights.length) : sum;
  const out = w.map((x) => (x * total) / s);
  let left = total - out.reduce((a, x) => a + x, 0n);
  const order = w
    .map((x, i) => ({ i, rem: (x * total) % s }))
    .sort((a, b) => (a.rem === b.rem ? a.i - b.i : a.rem > b.rem ? -1 : 1));
  for (const { i } of order) {
    if (left === 0n) break;
    out[i]! += 1n;
    left -= 1n;
  }
  return out;
}

/**
 * The exact (noise-free) bin shares in share units: count * 10000 / n, half-up. Replacing one value
 * moves one count between two bins, so at most two shares change, each by at most
 * ceil(10000 / n) <= 10000 / bandFloor units (half-up rounding is monotone and commutes with integer
 * shifts, and 10000 / bandFloor is an integer).
 */
export function histogramShareUnits(compositeValues: readonly number[], m: GaussianMethodology): bigint[] {
  const n = compositeValues.length;
  if (n === 0) throw new RangeError('a histogram needs at least one value');
  const step = m.gridStepRatio;
  const edgeUnits = m.histogram.edges.map(
    (e) => (BigInt(e) * BigInt(step.denominator)) / BigInt(step.numerator),
  );
  const counts = new Array<bigint>(edgeUnits.length - 1).fill(0n);
  for (const v of compositeValues) counts[binOf(scoreToGridUnits(v, m), edgeUnits)]! += 1n;
  const unit = BigInt(m.histogram.shareStep.denominator / m.histogram.shareStep.numerator);
  return counts.map((c) => roundHalfUp(c * unit, BigInt(n)));
}

/**
 * Publish the noisy histogram of the cohort's composite scores (one value per entity: the composite
 * of its week-mean pillars), or null below the minimum cohort. Shares are counts * 10000 / n on the
 * grid (half-up), plus N_Z(0, (c_h D)^2) per bin; clamping at 0 and renormalising to 1 are
 * post-processing.
 */
export function perturbHistogram(
  compositeValues: readonly number[],
  m: GaussianMethodology,
  rng: RandomSource,
): PublishedHistogram | null {
  const n = compositeValues.length;
  const floor = bandFloorOf(n);
  if (floor === null || n < m.minCohort) return null;
  const unit = BigInt(m.histogram.shareStep.denominator / m.histogram.shareStep.numerator);
  const exact = histogramShareUnits(compositeValues, m);
  const sigma2 = fromRatio(histogramSigma2(m, floor));
  const noisy = exact.map((share) => {
    const x = share + sampleDiscreteGaussian(sigma2, rng);
    return x < 0n ? 0n : x;
  });
  const shares = apportion(noisy, unit).map((x) => Number(x) / Number(unit));
  return {
    edges: m.histogram.edges,
    shares,
    bandFloor: floor,
    cohortBand: cohortBand(n)!,
    methodologyVersion: m.version,
    rho: ratioValue(m.rhoPerRelease.histogram),
  };
}

/** Where `score` falls in a histogram: the interpolated CDF, its bin and the fraction of that bin below it. */
function cdfAt(
  score: number,
  histogram: Pick<PublishedHistogram, 'edges' | 'shares'>,
): { cdf: number; bin: number; frac: number } {
  if (!Number.isFinite(score)) throw new RangeError(`score ${score} is not a finite number`);
  const { edges, shares } = histogram;
  if (edges.length !== shares.length + 1) throw new RangeError('a histogram needs one more edge than shares');
  const x = Math.min(edges[edges.length - 1]!, Math.max(edges[0]!, score));
  let cdf = 0;
  for (let b = 0; b < shares.length; b++) {
    const lo = edges[b]!;
    const hi = edges[b + 1]!;
    if (x >= hi && b < shares.length - 1) cdf += shares[b]!;
    else {
      const frac = Math.min(1, (x - lo) / (hi - lo));
      return { cdf: cdf + shares[b]! * frac, bin: b, frac };
    }
  }
  return { cdf, bin: shares.length - 1, frac: 1 };
}

function checkGranularity(granularity: number): void {
  if (!(granularity > 0) || 100 % granularity !== 0) {
    throw new RangeError(`granularity ${granularity} must divide 100`);
  }
}

/**
 * Percentile of `score` among the sector's cohort from a published histogram (post-processing): the
 * share below the score's bin plus the linearly interpolated part of its bin, in percent, rounded to
 * the nearest multiple of `granularity` (the methodology's percentileGranularity, 5 for tacsi-m2).
 */
export function percentileFromHistogram(
  score: number,
  histogram: Pick<PublishedHistogram, 'edges' | 'shares'>,
  granularity: number,
): number {
  checkGranularity(granularity);
  const percent = Math.min(100, Math.max(0, 100 * cdfAt(score, histogram).cdf));
  return Math.round(percent / granularity) * granularity;
}

/** The two-sided 95% normal quantile. */
const Z95 = 1.959963984540054;

/**
 * A 95% interval for the percentile read from a histogram of band floor `bandFloor`, from the law of
 * the histogram's noise: each bin's share carries an independent discrete Gaussian of variance
 * (c_h D)^2 (D = 1 / bandFloor of the cohort), and the published shares are renormalised to 1. The
 * percentile c = A / (A + B), with A the (interpolated) mass below the score and B the rest, has, to
 * first order, the noise variance sigma^2 [(1 - c)^2 (k + f^2) + c^2 ((1 - f)^2 + m)] for k bins below,
 * the fraction f of the score's bin and m bins above. The interval is c +/- 1.96 sd in percent, widened
 * outward to the granularity and kept in [0, 100]. It covers the publication noise (normal
 * approximation, first order); the bias of clamping negative shares at 0 is not in it.
 */
export function percentileIntervalFromHistogram(
  score: number,
  histogram: Pick<PublishedHistogram, 'edges' | 'shares'>,
  bandFloor: number,
  m: GaussianMethodology,
  granularity: number,
): { low: number; high: number } {
  checkGranularity(granularity);
  const { cdf, bin, frac } = cdfAt(score, histogram);
  const c = Math.min(1, Math.max(0, cdf));
  const sigma2 = ratioValue(histogramSigma2(m, bandFloor)) * ratioValue(m.histogram.shareStep) ** 2;
  const above = histogram.shares.length - bin - 1;
  const variance = sigma2 * ((1 - c) ** 2 * (bin + frac ** 2) + c ** 2 * ((1 - frac) ** 2 + above));
  const half = 100 * Z95 * Math.sqrt(variance);
  const low = Math.max(0, Math.floor((100 * c - half) / granularity) * granularity);
  const high = Math.min(100, Math.ceil((100 * c + half) / granularity) * granularity);
  return { low, high };
}
