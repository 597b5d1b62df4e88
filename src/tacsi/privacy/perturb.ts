// Publication-time perturbation: clamp, average exactly on the grid, add exact discrete Laplace noise.
//
// Working in integer grid units end to end keeps the sensitivity argument exact: each entity's value
// becomes an integer in [0, range/step], the sum is an exact integer, and rounding the mean half-up
// is monotone and commutes with integer shifts, so replacing one of n >= minCohort entities moves the
// rounded mean by at most range / (minCohort * step) grid units, the figure the noise is calibrated to.
import { clampScore, cohortBand } from './cohort.ts';
import { sampleDiscreteLaplace } from './discrete-laplace.ts';
import { TACSI_PILLARS, type Methodology, type TacsiPillar } from './methodology.ts';
import type { RandomSource } from './random.ts';

/** One entity's clamped-on-entry scores for one period: exactly one row per entity per cell. */
export interface EntityScores {
  readonly entityId: string;
  readonly indexValue: number;
  readonly pillars: Readonly<Record<TacsiPillar, number>>;
}

/** The privacy-relevant part of a published TACSI cell. */
export interface PerturbedCell {
  readonly indexValue: number;
  readonly pillars: Readonly<Record<TacsiPillar, number>>;
  readonly cohortBand: string;
  readonly methodologyVersion: string;
}

/** What grid arithmetic needs from a methodology (tacsi-m1 and tacsi-m2 share the 0.01 grid). */
export type GridSpec = Pick<Methodology, 'scoreBounds' | 'gridStepRatio' | 'minCohort'>;

function maxGridUnits(m: GridSpec): bigint {
  const [lo, hi] = m.scoreBounds;
  return (BigInt(hi - lo) * BigInt(m.gridStepRatio.denominator)) / BigInt(m.gridStepRatio.numerator);
}

/**
 * The grid units of a clamped score as a JS integer. Grid units are at most range / step (10000 on
 * the 0.01 grid), so sums over any realistic cohort stay exact safe integers; bigint is needed only
 * once noise enters.
 */
function gridUnitsOf(x: number, m: GridSpec): number {
  const { numerator, denominator } = m.gridStepRatio;
  const units = Math.round(((clampScore(x) - m.scoreBounds[0]) * denominator) / numerator);
  // Guard the bounds again: whatever the float rounding did, each entity stays inside the range.
  const max = ((m.scoreBounds[1] - m.scoreBounds[0]) * denominator) / numerator;
  return units < 0 ? 0 : units > max ? max : units;
}

/** A score clamped to the bounds and rounded to the nearest grid point, in grid units from the lower bound. */
export function scoreToGridUnits(x: number, m: GridSpec): bigint {
  return BigInt(gridUnitsOf(x, m));
}

/** Grid units back to index points; the division of two exact integers is correctly rounded. */
export function gridUnitsToScore(units: bigint, m: GridSpec): number {
  const { numerator, denominator } = m.gridStepRatio;
  return m.scoreBounds[0] + Number(units * BigInt(numerator)) / denominator;
}

/**
 * The exact mean of the clamped values on the grid (half-up rounding of sum / n), in grid units.
 * Refuses cohorts below the methodology's minimum: the sensitivity bound does not hold for them.
 */
export function meanOnGrid(values: readonly number[], m: GridSpec): bigint {
  const n = BigInt(values.length);
  if (values.length < m.minCohort) {
    throw new RangeError(`cohort of ${values.length} is below the minimum of ${m.minCohort}`);
  }
  let sum = 0;
  for (const v of values) sum += gridUnitsOf(v, m);
  if (!Number.isSafeInteger(sum)) throw new RangeError('cohort too large for an exact grid sum');
  return (2n * BigInt(sum) + n) / (2n * n);
}

/**
 * Add one discrete Laplace draw (scale = methodology noise scale in grid units) to a grid value and
 * clamp the result to the score range. The clamp is post-processing of a DP output, so it costs no
 * privacy; it does pull values near 0 or 100 inward, a bias the methodology accepts.
 */
export function perturbGridValue(gridValue: bigint, m: Methodology, rng: RandomSource): bigint {
  const { numerator, denominator } = m.noiseScaleGridUnits;
  const noisy = gridValue + sampleDiscreteLaplace(BigInt(numerator), BigInt(denominator), rng);
  const max = maxGridUnits(m);
  return noisy < 0n ? 0n : noisy > max ? max : noisy;
}

/**
 * Perturb an already computed mean: clamp, round to the grid, add noise, return the published number.
 * The guarantee assumes `trueMean` moves by at most `m.sensitivity` when one entity is replaced; a
 * mean summed in floating point can exceed that by a rounding error, so publication should go
 * through `noisyMean` or `perturbCell`, which average exactly.
 */
export function perturbStatistic(trueMean: number, m: Methodology, rng: RandomSource): number {
  return gridUnitsToScore(perturbGridValue(scoreToGridUnits(trueMean, m), m, rng), m);
}

/** The published value of one statistic: exact grid mean of the clamped values plus noise. */
export function noisyMean(values: readonly number[], m: Methodology, rng: RandomSource): number {
  return gridUnitsToScore(perturbGridValue(meanOnGrid(values, m), m, rng), m);
}

/**
 * Perturb all statistics of one cell (index value and the five pillars), each with its own fresh
 * noise at epsilonPerStatistic, costing epsilonPerCell in total. Returns null, publishing nothing,
 * when the cohort is below the minimum. Throws if an entity appears twice: the sensitivity bound
 * assumes each entity contributes exactly one row per period.
 */
export function perturbCell(
  entities: readonly EntityScores[],
  m: Methodology,
  rng: RandomSource,
): PerturbedCell | null {
  const band = cohortBand(entities.length);
  if (band === null || entities.length < m.minCohort) return null;
  const seen = new Set<string>();
  for (const e of entities) {
    if (seen.has(e.entityId)) throw new RangeError(`entity ${e.entityId} contributes twice to one cell`);
    seen.add(e.entityId);
  }
  const statistic = (pick: (e: EntityScores) => number) => noisyMean(entities.map(pick), m, rng);
  const indexValue = statistic((e) => e.indexValue);
  const pillars = {} as Record<TacsiPillar, number>;
  for (const pillar of TACSI_PILLARS) pillars[pillar] = statistic((e) => e.pillars[pillar]);
  return { indexValue, pillars, cohortBand: band, methodologyVersion: m.version };
}

/** Publication must use the cryptographic source; seeded sources are for tests and simulations. */
export function assertPublicationRandomSource(rng: RandomSource): void {
  if (rng.kind !== 'crypto') throw new Error('TACSI publication requires the cryptographic random source');
}
