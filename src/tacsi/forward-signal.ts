// The weekly feed's forward signal: a one-week projection of the sector's published index.
//
// It is computed from published weekly values only, so it is post-processing of DP outputs and costs
// no privacy. Method: simple exponential smoothing (SES) with the smoothing weight chosen on a fixed
// grid by least squares of the one-step-ahead errors; the projection for the next week is the final
// smoothed level. The 95% interval is level +/- 1.96 sd, where the variance is the larger of
//   - the residual variance of the one-step errors (what the series actually did), and
//   - the floor the publication noise alone imposes: the next published value carries noise of
//     variance s2 and the smoothed level carries alpha / (2 - alpha) * s2 of it, so 2 s2 / (2 - alpha),
// with s2 the exact variance of the latest cell's index noise (tacsi-m1: discrete Laplace; tacsi-m2:
// the weighted discrete Gaussians of its pillars, margins.ts). Normal approximation.
import { SCORE_MAX, SCORE_MIN } from './privacy/index.ts';

/** Published weeks a sector needs before a projection is given (two years of archive). */
export const FORWARD_SIGNAL_MIN_WEEKS = 104;
export const FORWARD_SIGNAL_METHOD = 'simple-exponential-smoothing';
const Z_95 = 1.959964;
const ALPHA_GRID = Array.from({ length: 19 }, (_, i) => (i + 1) / 20);

export type ForwardSignal =
  | { status: 'pending_archive_depth'; note: string }
  | {
      status: 'available';
      note: string;
      method: string;
      /** ISO 8601 duration of the projection horizon. */
      horizon: 'P1W';
      projectedPeriodEnd: string;
      projectedIndexValue: number;
      interval: { low: number; high: number };
    };

const PENDING_NOTE = `A forward projection is given once the sector has at least ${FORWARD_SIGNAL_MIN_WEEKS} published weeks of archive.`;
const AVAILABLE_NOTE =
  "Projection of next week's published indexValue by simple exponential smoothing of the published weekly series, with a 95% interval; derived from published values only.";

const round2 = (x: number) => Math.round(x * 100) / 100;
const clamp = (x: number) => Math.min(SCORE_MAX, Math.max(SCORE_MIN, x));

/** SES fit: the smoothing weight with the least squared one-step error, its final level and residual variance. */
export function fitSimpleExponentialSmoothing(values: readonly number[]): {
  alpha: number;
  level: number;
  residualVariance: number;
} {
  if (values.length < 3) throw new RangeError('SES needs at least three values');
  let best = { alpha: ALPHA_GRID[0]!, level: values[0]!, sse: Number.POSITIVE_INFINITY };
  for (const alpha of ALPHA_GRID) {
    let level = values[0]!;
    let sse = 0;
    for (let t = 1; t < values.length; t++) {
      const error = values[t]! - level;
      sse += error * error;
      level += alpha * error;
    }
    if (sse < best.sse) best = { alpha, level, sse };
  }
  // values.length - 1 one-step errors, one fitted parameter.
  return { alpha: best.alpha, level: best.level, residualVariance: best.sse / (values.length - 2) };
}

/** The forward signal for a weekly series given oldest first; `nextPeriodEnd` is the week it projects. */
export function forwardSignal(
  valuesOldestFirst: readonly number[],
  nextPeriodEnd: string,
  /** Variance (index points squared) of the publication noise of one weekly indexValue. */
  noiseVariance: number,
): ForwardSignal {
  if (valuesOldestFirst.length < FORWARD_SIGNAL_MIN_WEEKS)
    return { status: 'pending_archive_depth', note: PENDING_NOTE };
  const { alpha, level, residualVariance } = fitSimpleExponentialSmoothing(valuesOldestFirst);
  const variance = Math.max(residualVariance, (2 * noiseVariance) / (2 - alpha));
  const halfWidth = Z_95 * Math.sqrt(variance);
  return {
    status: 'available',
    note: AVAILABLE_NOTE,
    method: FORWARD_SIGNAL_METHOD,
    horizon: 'P1W',
    projectedPeriodEnd: nextPeriodEnd,
    projectedIndexValue: round2(clamp(level)),
    interval: { low: round2(clamp(level - halfWidth)), high: round2(clamp(level + halfWidth)) },
  };
}
