// Versioned TACSI privacy methodologies. Every figure a reader might audit (epsilon per statistic,
// cell and year, noise scale, 95% half-width) is derived here from a few rational parameters, so the
// numbers in docs/privacy.md and in the published `methodologyVersion` cannot drift apart.
import { PILLARS, type Pillar } from '../../core/catalog.ts';
import { MIN_COHORT, SCORE_MAX, SCORE_MIN } from './cohort.ts';
import { discreteLaplaceHalfWidth } from './discrete-laplace-distribution.ts';

export type Cadence = 'weekly' | 'daily';

/** Statistics in one published cell: the composite index and the five IMPRS pillars. */
export const TACSI_PILLARS = PILLARS;
export type TacsiPillar = Pillar;
export const CELL_STATISTICS = ['indexValue', ...TACSI_PILLARS] as const;

/** The rolling window the annual cap applies to. */
export const ROLLING_WINDOW_DAYS = 365;

/** Period length of each cadence in days. */
export const CADENCE_PERIOD_DAYS: Readonly<Record<Cadence, number>> = { weekly: 7, daily: 1 };

/** A non-negative rational kept as two safe integers, so the methodology stays JSON-serialisable. */
export interface Ratio {
  readonly numerator: number;
  readonly denominator: number;
}

export interface Methodology {
  /** The label published as `methodologyVersion`. */
  readonly version: string;
  readonly mechanism: 'discrete-laplace';
  readonly scoreBounds: readonly [number, number];
  readonly minCohort: number;
  /** Max change of one published mean when one entity's value is replaced: range / minCohort. */
  readonly sensitivity: number;
  readonly statisticsPerCell: number;
  readonly epsilonPerStatistic: number;
  readonly epsilonPerStatisticRatio: Ratio;
  /** Basic composition over the statistics of one cell. */
  readonly epsilonPerCell: number;
  /** Published values are integers times this step (index points). */
  readonly gridStep: number;
  readonly gridStepRatio: Ratio;
  /** Laplace scale b = sensitivity / epsilonPerStatistic, in index points. */
  readonly noiseScale: number;
  /** The same scale in grid units, as the exact rational the sampler uses. */
  readonly noiseScaleGridUnits: Ratio;
  /** Smallest h with P(|noise| <= h) >= 0.95 under the discrete Laplace law, in index points. */
  readonly ci95HalfWidth: number;
  readonly cadences: readonly Cadence[];
  /** Published scopes one entity belongs to: its sector and the all-consumer headline. */
  readonly scopesPerEntity: readonly ['sector', 'headline'];
  /** Most periods of each cadence whose end falls in one rolling 365-day window. */
  readonly periodsPerWindow: Readonly<Record<Cadence, number>>;
  /** Most cells one entity can appear in within one rolling window under the schedule. */
  readonly cellsPerEntityPerWindow: number;
  /** Basic-composition total of the full schedule; the ledger refuses anything beyond it. */
  readonly annualCapPerEntity: number;
  /** Informational: the same schedule under zCDP (Bun and Steinke 2016), converted to (epsilon, delta). */
  readonly annualZcdp: { readonly rho: number; readonly delta: number; readonly epsilon: number };
}

export interface MethodologyParameters {
  version: string;
  /** Rational epsilon per statistic, [numerator, denominator]. */
  epsilonPerStatistic: readonly [number, number];
  /** Rational grid step in index points, [numerator, denominator]. */
  gridStep: readonly [number, number];
  cadences: readonly Cadence[];
  minCohort?: number;
  /** delta used only for the informational zCDP conversion. */
  zcdpDelta?: number;
}

function gcd(a: bigint, b: bigint): bigint {
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

function ratio(numerator: bigint, denominator: bigint): Ratio {
  const g = gcd(numerator, denominator);
  const n = numerator / g;
  const d = denominator / g;
  if (n > BigInt(Number.MAX_SAFE_INTEGER) || d > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new RangeError('methodology rational exceeds safe integers');
  }
  return { numerator: Number(n), denominator: Number(d) };
}

function positiveRatio(name: string, [n, d]: readonly [number, number]): [bigint, bigint] {
  if (!Number.isSafeInteger(n) || !Number.isSafeInteger(d) || n <= 0 || d <= 0) {
    throw new RangeError(`${name} must be a positive rational of safe integers`);
  }
  return [BigInt(n), BigInt(d)];
}

/** Largest number of period ends of a cadence that one rolling window can contain. */
function maxPeriodsInWindow(cadence: Cadence): number {
  // A window of 365 days holds 52 weeks and one day, so it can contain 53 week ends.
  return Math.ceil(ROLLING_WINDOW_DAYS / CADENCE_PERIOD_DAYS[cadence]);
}

/** Derive every audited figure of a methodology from its rational parameters. */
export function defineMethodology(params: MethodologyParameters): Methodology {
  const minCohort = params.minCohort ?? MIN_COHORT;
  if (!Number.isSafeInteger(minCohort) || minCohort < 1) throw new RangeError('minCohort must be >= 1');
  const [epsN, epsD] = positiveRatio('epsilonPerStatistic', params.epsilonPerStatistic);
  const [gridN, gridD] = positiveRatio('gridStep', params.gridStep);
  const range = BigInt(SCORE_MAX - SCORE_MIN);
  if ((range * gridD) % gridN !== 0n) throw new RangeError('the grid step must divide the score range');
  if (params.cadences.length === 0) throw new RangeError('a methodology needs at least one cadence');

  const statisticsPerCell = CELL_STATISTICS.length;
  // Replacing one of n >= minCohort clamped values moves their mean by at most range / n <= range / minCohort.
  const sensitivity = ratio(range, BigInt(minCohort));
  // b = sensitivity / epsilon, expressed in grid units: range * epsD * gridD / (minCohort * epsN * gridN).
  const noiseScaleGridUnits = ratio(range * epsD * gridD, BigInt(minCohort) * epsN * gridN);
  const noiseScale = ratio(range * epsD, BigInt(minCohort) * epsN);
  const gridScale = noiseScaleGridUnits.numerator / noiseScaleGridUnits.denominator;
  const halfWidthUnits = discreteLaplaceHalfWidth(gridScale, 0.95);

  const periodsPerWindow = { weekly: 0, daily: 0 };
  for (const cadence of params.cadences) periodsPerWindow[cadence] = maxPeriodsInWindow(cadence);
  const scopesPerEntity = ['sector', 'headline'] as const;
  const cellsPerEntityPerWindow =
    scopesPerEntity.length * params.cadences.reduce((sum, c) => sum + periodsPerWindow[c], 0);
  const statisticsPerWindow = cellsPerEntityPerWindow * statisticsPerCell;
  const epsilonPerStatistic = Number(epsN) / Number(epsD);
  const annualCap = ratio(BigInt(statisticsPerWindow) * epsN, epsD);

  // Pure epsilon-DP implies (epsilon^2 / 2)-zCDP; zCDP composes by adding rho, and rho-zCDP implies
  // (rho + 2 sqrt(rho ln(1/delta)), delta)-DP.
  const delta = params.zcdpDelta ?? 1e-6;
  const rho = (statisticsPerWindow * epsilonPerStatistic ** 2) / 2;

  return Object.freeze({
    version: params.version,
    mechanism: 'discrete-laplace',
    scoreBounds: [SCORE_MIN, SCORE_MAX] as const,
    minCohort,
    sensitivity: sensitivity.numerator / sensitivity.denominator,
    statisticsPerCell,
    epsilonPerStatistic,
    epsilonPerStatisticRatio: ratio(epsN, epsD),
    epsilonPerCell: (statisticsPerCell * Number(epsN)) / Number(epsD),
    gridStep: Number(gridN) / Number(gridD),
    gridStepRatio: ratio(gridN, gridD),
    noiseScale: noiseScale.numerator / noiseScale.denominator,
    noiseScaleGridUnits,
    ci95HalfWidth: (halfWidthUnits * Number(gridN)) / Number(gridD),
    cadences: Object.freeze([...params.cadences]),
    scopesPerEntity,
    periodsPerWindow: Object.freeze(periodsPerWindow),
    cellsPerEntityPerWindow,
    annualCapPerEntity: annualCap.numerator / annualCap.denominator,
    annualZcdp: Object.freeze({ rho, delta, epsilon: rho + 2 * Math.sqrt(rho * Math.log(1 / delta)) }),
  });
}

/**
 * tacsi-m1: epsilon 1 per statistic (6 per cell), grid 0.01 index points, weekly and daily cells for
 * the sector and the headline. Noise scale 2 index points, 95% of draws within +/-5.99.
 */
export const METHODOLOGIES: Readonly<Record<string, Methodology>> = Object.freeze({
  'tacsi-m1': defineMethodology({
    version: 'tacsi-m1',
    epsilonPerStatistic: [1, 1],
    gridStep: [1, 100],
    cadences: ['weekly', 'daily'],
  }),
});

export const CURRENT_METHODOLOGY_VERSION = 'tacsi-m1';

/** Look a methodology up by its published label. */
export function getMethodology(version: string): Methodology {
  const methodology = Object.hasOwn(METHODOLOGIES, version) ? METHODOLOGIES[version] : undefined;
  if (!methodology) throw new RangeError(`unknown TACSI methodology ${version}`);
  return methodology;
}
