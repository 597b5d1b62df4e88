// tacsi-m2 publication: exact grid means of the five pillars, exact discrete Gaussian noise calibrated
// to the published band floor, and indexValue as the fixed composite of the noised pillars. Derived
// weekly cells and the headline are exact post-processing of published cells on the same grid.
import { cohortBand } from './cohort.ts';
import { sampleDiscreteGaussian } from './discrete-gaussian.ts';
import type { NoiseTerm } from './discrete-gaussian-distribution.ts';
import { TACSI_PILLARS, type TacsiPillar } from './methodology.ts';
import {
  bandFloorOf,
  cellNoise,
  cellSigma2,
  marginsForNoise,
  scaleNoise,
  type GaussianCadence,
  type GaussianMethodology,
} from './methodology-m2.ts';
import { gridUnitsToScore, meanOnGrid, scoreToGridUnits, type EntityScores } from './perturb.ts';
import type { RandomSource } from './random.ts';
import { fromRatio, ratioValue, roundHalfUp } from './rational.ts';

/** A published tacsi-m2 cell (sector or headline). */
export interface GaussianCell {
  readonly pillars: Readonly<Record<TacsiPillar, number>>;
  /** The composite of `pillars` with the methodology's weights, on the grid. */
  readonly indexValue: number;
  readonly cohortBand: string;
  /** Floor of the cohort band the noise was calibrated to (headline: sum of its cells' floors). */
  readonly bandFloor: number;
  readonly methodologyVersion: string;
  /** 'headline' for the derived headline (built from weekly sector cells). */
  readonly cadence: GaussianCadence | 'headline';
  readonly margin95: CellMargins;
  /** The pillar noise as independent discrete Gaussians with weights (same law for every pillar). */
  readonly noise: readonly NoiseTerm[];
  /** rho this release costs each entity in it (0 for post-processing). */
  readonly rho: number;
}

/** 95% margins of a published cell, in index points (every pillar has the same noise law). */
export interface CellMargins {
  readonly indexValue: number;
  readonly pillars: Readonly<Record<TacsiPillar, number>>;
}

/**
 * A published weekly sector cell as the headline needs it. `noise` is the cell's pillar noise
 * (GaussianCell.noise); omitted, the cell is taken as a direct weekly cell at its band floor. A
 * derived weekly cell must pass its noise, or its margin would be overstated.
 */
export interface HeadlineInput {
  readonly pillars: Readonly<Record<TacsiPillar, number>>;
  readonly bandFloor: number;
  readonly noise?: readonly NoiseTerm[];
}

function cellMargins(m: GaussianMethodology, noise: readonly NoiseTerm[]): CellMargins {
  const { indexValue, pillars } = marginsForNoise(m, noise);
  const out = {} as Record<TacsiPillar, number>;
  for (const p of TACSI_PILLARS) out[p] = pillars;
  return { indexValue, pillars: out };
}

function maxUnits(m: GaussianMethodology): bigint {
  return (
    (BigInt(m.scoreBounds[1] - m.scoreBounds[0]) * BigInt(m.gridStepRatio.denominator)) /
    BigInt(m.gridStepRatio.numerator)
  );
}

const clampUnits = (x: bigint, max: bigint) => (x < 0n ? 0n : x > max ? max : x);

/** indexValue in grid units: sum w_i P_i rounded half-up, exactly (P_i are grid units >= 0). */
export function compositeUnits(
  m: GaussianMethodology,
  pillars: Readonly<Record<TacsiPillar, bigint>>,
): bigint {
  let den = 1n;
  for (const p of TACSI_PILLARS) den = lcm(den, BigInt(m.pillarWeights[p].denominator));
  let num = 0n;
  for (const p of TACSI_PILLARS) {
    const w = fromRatio(m.pillarWeights[p]);
    num += ((w.numerator * den) / w.denominator) * pillars[p];
  }
  return roundHalfUp(num, den);
}

function lcm(a: bigint, b: bigint): bigint {
  let x = a;
  let y = b;
  while (y !== 0n) [x, y] = [y, x % y];
  return (a / x) * b;
}

function toScores(
  m: GaussianMethodology,
  units: Readonly<Record<TacsiPillar, bigint>>,
): Record<TacsiPillar, number> {
  const out = {} as Record<TacsiPillar, number>;
  for (const p of TACSI_PILLARS) out[p] = gridUnitsToScore(units[p], m);
  return out;
}

function pillarUnitsOf(
  m: GaussianMethodology,
  pillars: Readonly<Record<TacsiPillar, number>>,
): Record<TacsiPillar, bigint> {
  const out = {} as Record<TacsiPillar, bigint>;
  for (const p of TACSI_PILLARS) out[p] = scoreToGridUnits(pillars[p], m);
  return out;
}

/**
 * Publish one daily or directly weekly cell: exact grid mean of each pillar over the cohort, plus
 * N_Z(0, (c D)^2) with D = 10000 / band floor, clamped to [0, 100] (post-processing); indexValue is
 * the composite of the published pillars. Returns null, publishing nothing, when the cohort is below
 * the minimum, or below dailyMinCohort for a daily cell. Throws if an entity appears twice: the
 * sensitivity bound assumes one row per entity per cell. `indexValue` of the inputs is not used.
 */
export function perturbCellGaussian(
  entities: readonly EntityScores[],
  cadence: 'daily' | 'weekly',
  m: GaussianMethodology,
  rng: RandomSource,
): GaussianCell | null {
  if (cadence !== 'daily' && cadence !== 'weekly')
    throw new RangeError(`cadence ${String(cadence)} is not noised`);
  const floor = bandFloorOf(entities.length);
  if (floor === null || entities.length < m.minCohort) return null;
  if (cadence === 'daily' && entities.length < m.dailyMinCohort) return null;
  const seen = new Set<string>();
  for (const e of entities) {
    if (seen.has(e.entityId)) throw new RangeError(`entity ${e.entityId} contributes twice to one cell`);
    seen.add(e.entityId);
  }
  const sigma2 = fromRatio(cellSigma2(m, cadence, floor));
  const max = maxUnits(m);
  const units = {} as Record<TacsiPillar, bigint>;
  for (const p of TACSI_PILLARS) {
    const mean = meanOnGrid(
      entities.map((e) => e.pillars[p]),
      m,
    );
    units[p] = clampUnits(mean + sampleDiscreteGaussian(sigma2, rng), max);
  }
  const noise = cellNoise(m, cadence, floor);
  return {
    pillars: toScores(m, units),
    indexValue: gridUnitsToScore(compositeUnits(m, units), m),
    cohortBand: cohortBand(entities.length)!,
    bandFloor: floor,
    methodologyVersion: m.version,
    cadence,
    margin95: cellMargins(m, noise),
    noise,
    rho: ratioValue(m.rhoPerRelease[cadence]),
  };
}

/**
 * The weekly cell of a sector-week with published daily cells: each pillar is the exact mean of the
 * week's published daily pillars on the grid (half-up), indexValue their composite. Pure
 * post-processing of published values, so it costs no privacy. Its noise is the mean of the daily
 * noises, so the margin shrinks by about sqrt(k) for k cells. The cohort band reported is the
 * smallest among the days.
 */
export function deriveWeeklyFromDaily(
  dailyCells: readonly GaussianCell[],
  m: GaussianMethodology,
): GaussianCell {
  const k = dailyCells.length;
  if (k < 1 || k > 7) throw new RangeError(`a week has 1 to 7 daily cells, got ${k}`);
  for (const c of dailyCells) {
    if (c.cadence !== 'daily') throw new RangeError('only daily cells can be averaged into a weekly cell');
    if (c.methodologyVersion !== m.version) throw new RangeError('daily cells of another methodology');
  }
  const units = {} as Record<TacsiPillar, bigint>;
  for (const p of TACSI_PILLARS) {
    let sum = 0n;
    for (const c of dailyCells) sum += scoreToGridUnits(c.pillars[p], m);
    units[p] = roundHalfUp(sum, BigInt(k));
  }
  const weight = { numerator: 1, denominator: k };
  // Each day's noise at its own band floor: a cohort can cross a band edge mid-week.
  const noise = dailyCells.flatMap((c) => scaleNoise(cellNoise(m, 'daily', c.bandFloor), weight));
  const smallest = dailyCells.reduce((a, c) => (c.bandFloor < a.bandFloor ? c : a));
  return {
    pillars: toScores(m, units),
    indexValue: gridUnitsToScore(compositeUnits(m, units), m),
    cohortBand: smallest.cohortBand,
    bandFloor: smallest.bandFloor,
    methodologyVersion: m.version,
    cadence: 'weekly-derived',
    margin95: cellMargins(m, noise),
    noise,
    rho: 0,
  };
}

/**
 * The headline from published weekly sector cells only, each weighted by its band floor (public):
 * pillar = sum f_s P_s / sum f_s on the grid (half-up), indexValue their composite. Post-processing,
 * rho 0. The caller passes only the sectors it may combine (published, non-exclusive); null when none.
 */
export function deriveHeadline(
  sectorCells: readonly HeadlineInput[],
  m: GaussianMethodology,
): GaussianCell | null {
  if (sectorCells.length === 0) return null;
  let total = 0;
  for (const c of sectorCells) {
    if (!m.bandFloors.includes(c.bandFloor)) throw new RangeError(`${c.bandFloor} is not a band floor`);
    total += c.bandFloor;
  }
  const units = {} as Record<TacsiPillar, bigint>;
  for (const p of TACSI_PILLARS) {
    let sum = 0n;
    for (const c of sectorCells) sum += BigInt(c.bandFloor) * scoreToGridUnits(c.pillars[p], m);
    units[p] = roundHalfUp(sum, BigInt(total));
  }
  const noise = sectorCells.flatMap((c) =>
    scaleNoise(c.noise ?? cellNoise(m, 'weekly', c.bandFloor), {
      numerator: c.bandFloor,
      denominator: total,
    }),
  );
  return {
    pillars: toScores(m, units),
    indexValue: gridUnitsToScore(compositeUnits(m, units), m),
    cohortBand: cohortBand(total)!,
    bandFloor: total,
    methodologyVersion: m.version,
    cadence: 'headline',
    margin95: cellMargins(m, noise),
    noise,
    rho: 0,
  };
}

/** The composite of given pillar scores on the grid (for tests and the benchmark's own score). */
export function compositeOf(m: GaussianMethodology, pillars: Readonly<Record<TacsiPillar, number>>): number {
  return gridUnitsToScore(compositeUnits(m, pillarUnitsOf(m, pillars)), m);
}
