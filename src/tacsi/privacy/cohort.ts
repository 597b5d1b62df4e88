// Score bounds and cohort thresholds that the privacy guarantee rests on.

/** Every TACSI statistic is a mean of per-entity scores clamped to [SCORE_MIN, SCORE_MAX]. */
export const SCORE_MIN = 0;
export const SCORE_MAX = 100;

/** No cohort smaller than this is ever published; the DP sensitivity is calibrated to it. */
export const MIN_COHORT = 50;

/** Lower edges of the published cohort-size bands, largest first. */
export const COHORT_BAND_EDGES = [1000, 500, 250, 100, 50] as const;

/**
 * Clamp a score into [0, 100]. Clamping bounds each entity's influence on a mean, which is what makes
 * the sensitivity finite. A non-finite score is an upstream bug, not a value to clamp.
 */
export function clampScore(x: number): number {
  if (!Number.isFinite(x)) throw new RangeError(`score ${x} is not a finite number`);
  return Math.min(SCORE_MAX, Math.max(SCORE_MIN, x));
}

/**
 * The published cohort band, e.g. `n >= 100`, or null when the cohort is below the minimum and the
 * cell must not be published at all. Only the band is ever shown, never n itself.
 */
export function cohortBand(n: number): string | null {
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`cohort size ${n} must be a non-negative integer`);
  for (const edge of COHORT_BAND_EDGES) {
    if (n >= edge) return `n >= ${edge}`;
  }
  return null;
}
