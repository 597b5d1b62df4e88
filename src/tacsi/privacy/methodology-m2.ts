// TACSI methodology tacsi-m2: zero-concentrated DP (M. Bun, T. Steinke, "Concentrated Differential
// Privacy: Simplifications, Extensions, and Lower Bounds", TCC 2016) with exact discrete Gaussian noise
// (Canonne, Kamath, Steinke, NeurIPS 2020) on the five pillar means only.
//
// Accounting, per entity (the unit of privacy) under replace-one neighbours:
// - A pillar mean over a cohort of n >= f clamped values, on the 0.01 grid, moves by at most
//   D = 10000 / f grid units when one entity is replaced (f = the published band floor; an integer
//   for every floor). Noise N_Z(0, (c D)^2) on one pillar is D^2 / (2 c^2 D^2)-zCDP (CKS 2020,
//   Theorem 4: the discrete Gaussian meets the continuous one's zCDP bound for integer
//   sensitivities); the five pillars compose to rho = 5 / (2 c^2) per cell, whatever the band.
// - indexValue is the scoring formula's fixed linear composite of the noised pillars: post-processing.
// - Weekly cells of a sector-week with published daily cells are the mean of those cells: rho 0.
// - The headline is a band-floor-weighted mean of published weekly sector cells: rho 0.
// - The sector histogram (10 fixed bins): replace-one moves two bin shares by D each, l2^2 = 2 D^2,
//   noise (c_h D)^2 per bin, rho = 1 / c_h^2.
// zCDP composes by adding rho (Bun and Steinke 2016, composition lemma); rho-zCDP implies
// (rho + 2 sqrt(rho ln(1/delta)), delta)-DP (ibid., Proposition 1.3).
import { COHORT_BAND_EDGES, MIN_COHORT, SCORE_MAX, SCORE_MIN } from './cohort.ts';
import {
  discreteGaussianHalfWidth,
  weightedSumHalfWidth,
  type NoiseTerm,
} from './discrete-gaussian-distribution.ts';
import {
  METHODOLOGIES,
  ROLLING_WINDOW_DAYS,
  TACSI_PILLARS,
  type Methodology,
  type Ratio,
  type TacsiPillar,
} from './methodology.ts';
import { addRatio, bigRatio, fromRatio, mulRatio, ratioValue, toRatio } from './rational.ts';

/** How a published m2 cell was made: noised daily or weekly, or the mean of a week's daily cells. */
export type GaussianCadence = 'daily' | 'weekly' | 'weekly-derived';

/** Every kind of release that is charged to (or recorded for) an entity in the ledger. */
export type ReleaseKind = 'daily' | 'weekly' | 'weekly-derived' | 'histogram' | 'headline';
export const RELEASE_KINDS: readonly ReleaseKind[] = [
  'daily',
  'weekly',
  'weekly-derived',
  'histogram',
  'headline',
];

/** 95% margins of error, in index points: of indexValue and of each pillar (all pillars share one noise law). */
export interface Margins {
  readonly indexValue: number;
  readonly pillars: number;
}

export interface MarginRow extends Margins {
  readonly bandFloor: number;
  readonly cadence: GaussianCadence;
  /** Daily cells averaged (weekly-derived only). */
  readonly days?: number;
}

export interface GaussianMethodology {
  readonly version: string;
  readonly mechanism: 'discrete-gaussian';
  readonly accounting: 'zCDP';
  readonly neighbouring: 'replace one entity';
  readonly scoreBounds: readonly [number, number];
  /** Published values are integers times this step (index points). */
  readonly gridStep: number;
  readonly gridStepRatio: Ratio;
  /** No cohort smaller than this is published. */
  readonly minCohort: number;
  /** Noise is calibrated to the floor of the published cohort band. */
  readonly bandFloors: readonly number[];
  /** Daily cells are published only for cohorts at least this large. */
  readonly dailyMinCohort: number;
  /** indexValue = sum of these weights times the published pillars (the scoring composite, fixed here). */
  readonly pillarWeights: Readonly<Record<TacsiPillar, Ratio>>;
  /** sigma = multiplier * D per noised value, D = 10000 / bandFloor grid units. */
  readonly noiseMultipliers: { readonly daily: Ratio; readonly weekly: Ratio; readonly histogram: Ratio };
  readonly histogram: {
    /** Public bin edges in index points; bins are [e_i, e_{i+1}), the last one closed. */
    readonly edges: readonly number[];
    /** Shares are integers times this step. */
    readonly shareStep: Ratio;
    /** Published with the weekly cell of the last week ending in each calendar month. */
    readonly schedule: 'last-week-of-month';
    /** Percentiles derived from the histogram are rounded to this many points. */
    readonly percentileGranularity: number;
  };
  /** rho charged per entity for one release of each kind (0 for post-processing). */
  readonly rhoPerRelease: Readonly<Record<ReleaseKind, Ratio>>;
  /** Most releases of each charged kind one entity can be in within one rolling window. */
  readonly releasesPerWindow: { readonly daily: number; readonly weekly: number; readonly histogram: number };
  /** Exact rho of the busiest rolling window under each regular schedule. */
  readonly windowRho: {
    /** Daily cells every day (weekly derived). */
    readonly dailySchedule: Ratio;
    /** Direct weekly cells every week. */
    readonly weeklySchedule: Ratio;
    /** Worst mix of the two: one direct week ending on the window's first day, then 52 daily weeks. */
    readonly mixedWorst: Ratio;
    readonly histograms: Ratio;
    /**
     * mixedWorst + histograms: an upper bound for every schedule in which each week is either seven
     * daily cells (its weekly cell derived) or one direct weekly cell. A week with daily cells on some
     * days only is also noised directly (up to 6 daily charges plus a weekly one); the cap, not this
     * bound, limits sectors whose daily cohort crosses 250 within weeks.
     */
    readonly scheduleBound: Ratio;
  };
  readonly annualRhoCap: Ratio;
  /** The cap in the ledger's integer units (1e-9 rho). */
  readonly annualRhoCapNano: number;
  readonly rollingWindowDays: number;
  /** (epsilon, delta)-DP implied by the annual cap. */
  readonly annualEpsilonDelta: { readonly rho: number; readonly delta: number; readonly epsilon: number };
}

/** 1e-9 rho: the ledger sums charges as integers of this unit, each charge rounded up. */
export const RHO_NANO = 1_000_000_000;

export interface GaussianMethodologyParameters {
  version: string;
  noiseMultipliers: {
    daily: readonly [number, number];
    weekly: readonly [number, number];
    histogram: readonly [number, number];
  };
  annualRhoCap: readonly [number, number];
  delta: number;
  dailyMinCohort?: number;
}

/** Bun and Steinke 2016, Proposition 1.3: rho-zCDP implies (rho + 2 sqrt(rho ln(1/delta)), delta)-DP. */
export function zcdpToApproxDp(rho: number, delta: number): number {
  if (!(rho >= 0) || !Number.isFinite(rho)) throw new RangeError(`rho ${rho} must be >= 0`);
  if (!(delta > 0 && delta < 1)) throw new RangeError(`delta ${delta} must be in (0, 1)`);
  return rho + 2 * Math.sqrt(rho * Math.log(1 / delta));
}

/** Pure epsilon-DP implies (epsilon^2 / 2)-zCDP (Bun and Steinke 2016, Proposition 1.4). */
export function pureDpToZcdp(epsilon: number): number {
  return (epsilon * epsilon) / 2;
}

/** The scoring composite's weights (src/scoring/engine/pillars.ts PILLAR_WEIGHTS) as exact rationals. */
const M2_PILLAR_WEIGHTS: Readonly<Record<TacsiPillar, Ratio>> = Object.freeze({
  presence: { numerator: 1, denominator: 5 },
  reach: { numerator: 1, denominator: 5 },
  impact: { numerator: 1, denominator: 4 },
  sentiment: { numerator: 1, denominator: 5 },
  momentum: { numerator: 3, denominator: 20 },
});

const HISTOGRAM_EDGES = Object.freeze([0, 40, 45, 50, 55, 60, 65, 70, 75, 80, 100]);

/**
 * Most "last week ending in a calendar month" week ends one rolling window can hold. Checked over a
 * whole 400-year Gregorian cycle by the unit tests (maxLastWeeksOfMonthInWindow).
 */
const HISTOGRAMS_PER_WINDOW = 13;

function positive(name: string, [n, d]: readonly [number, number]): Ratio {
  if (!Number.isSafeInteger(n) || !Number.isSafeInteger(d) || n <= 0 || d <= 0) {
    throw new RangeError(`${name} must be a positive rational of safe integers`);
  }
  return toRatio(bigRatio(BigInt(n), BigInt(d)));
}

const scale = (r: Ratio, k: number): Ratio => mulRatio(r, { numerator: k, denominator: 1 });

/** Derive every audited figure of a zCDP methodology from its rational parameters. */
export function defineGaussianMethodology(params: GaussianMethodologyParameters): GaussianMethodology {
  const daily = positive('daily multiplier', params.noiseMultipliers.daily);
  const weekly = positive('weekly multiplier', params.noiseMultipliers.weekly);
  const histogram = positive('histogram multiplier', params.noiseMultipliers.histogram);
  const cap = positive('annualRhoCap', params.annualRhoCap);
  const dailyMinCohort = params.dailyMinCohort ?? 250;
  if (!COHORT_BAND_EDGES.includes(dailyMinCohort as (typeof COHORT_BAND_EDGES)[number])) {
    throw new RangeError('dailyMinCohort must be a band floor');
  }
  // rho per cell = 5 / (2 c^2); per histogram = 1 / c_h^2.
  const cellRho = (c: Ratio) => {
    const x = fromRatio(c);
    return toRatio(bigRatio(5n * x.denominator * x.denominator, 2n * x.numerator * x.numerator));
  };
  const h = fromRatio(histogram);
  const rhoPerRelease: Record<ReleaseKind, Ratio> = {
    daily: cellRho(daily),
    weekly: cellRho(weekly),
    'weekly-derived': { numerator: 0, denominator: 1 },
    histogram: toRatio(bigRatio(h.denominator * h.denominator, h.numerator * h.numerator)),
    headline: { numerator: 0, denominator: 1 },
  };
  const releasesPerWindow = {
    daily: ROLLING_WINDOW_DAYS,
    weekly: Math.ceil(ROLLING_WINDOW_DAYS / 7),
    histogram: HISTOGRAMS_PER_WINDOW,
  };
  const dailySchedule = scale(rhoPerRelease.daily, releasesPerWindow.daily);
  const weeklySchedule = scale(rhoPerRelease.weekly, releasesPerWindow.weekly);
  // A 365-day window is 52 weeks and a day. A week is charged either 7 daily cells (on their days) or
  // one direct weekly cell (on its last day), so the first day of the window can carry a whole weekly
  // charge while the 52 weeks after it carry daily cells; no other arrangement holds more.
  const week = {
    daily: scale(rhoPerRelease.daily, 7),
    weekly: rhoPerRelease.weekly,
  };
  const heavierWeek = ratioValue(week.daily) >= ratioValue(week.weekly) ? week.daily : week.weekly;
  const heavierDay =
    ratioValue(rhoPerRelease.daily) >= ratioValue(rhoPerRelease.weekly)
      ? rhoPerRelease.daily
      : rhoPerRelease.weekly;
  const mixedWorst = addRatio(heavierDay, scale(heavierWeek, 52));
  const histograms = scale(rhoPerRelease.histogram, releasesPerWindow.histogram);
  const scheduleBound = addRatio(mixedWorst, histograms);
  const capValue = ratioValue(cap);

  return Object.freeze({
    version: params.version,
    mechanism: 'discrete-gaussian',
    accounting: 'zCDP',
    neighbouring: 'replace one entity',
    scoreBounds: [SCORE_MIN, SCORE_MAX] as const,
    gridStep: 0.01,
    gridStepRatio: { numerator: 1, denominator: 100 },
    minCohort: MIN_COHORT,
    bandFloors: Object.freeze([...COHORT_BAND_EDGES].sort((a, b) => a - b)),
    dailyMinCohort,
    pillarWeights: M2_PILLAR_WEIGHTS,
    noiseMultipliers: Object.freeze({ daily, weekly, histogram }),
    histogram: Object.freeze({
      edges: HISTOGRAM_EDGES,
      shareStep: { numerator: 1, denominator: 10_000 },
      schedule: 'last-week-of-month',
      percentileGranularity: 5,
    }),
    rhoPerRelease: Object.freeze(rhoPerRelease),
    releasesPerWindow: Object.freeze(releasesPerWindow),
    windowRho: Object.freeze({ dailySchedule, weeklySchedule, mixedWorst, histograms, scheduleBound }),
    annualRhoCap: cap,
    // Rounded down, so the integer cap never admits more than the rational one.
    annualRhoCapNano: Number((BigInt(cap.numerator) * BigInt(RHO_NANO)) / BigInt(cap.denominator)),
    rollingWindowDays: ROLLING_WINDOW_DAYS,
    annualEpsilonDelta: Object.freeze({
      rho: capValue,
      delta: params.delta,
      epsilon: zcdpToApproxDp(capValue, params.delta),
    }),
  } satisfies GaussianMethodology);
}

/**
 * tacsi-m2: c = 33/2 for daily cells (rho 10/1089 each), 13/2 for direct weekly cells (rho 10/169),
 * 3 for the monthly histogram (rho 1/9); annual cap rho 5, i.e. epsilon 26.46 at delta 1e-10.
 */
export const TACSI_M2: GaussianMethodology = defineGaussianMethodology({
  version: 'tacsi-m2',
  noiseMultipliers: { daily: [33, 2], weekly: [13, 2], histogram: [3, 1] },
  annualRhoCap: [5, 1],
  delta: 1e-10,
});

/** Band floor (50, 100, 250, 500, 1000) of a cohort of n, or null below the minimum. */
export function bandFloorOf(n: number): number | null {
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`cohort size ${n} must be a non-negative integer`);
  for (const edge of COHORT_BAND_EDGES) if (n >= edge) return edge;
  return null;
}

function checkBandFloor(m: GaussianMethodology, bandFloor: number): void {
  if (!m.bandFloors.includes(bandFloor)) throw new RangeError(`${bandFloor} is not a band floor`);
}

/** Pillar-mean sensitivity D = 10000 / bandFloor in grid units (range / (floor * step)). */
export function sensitivityGridUnits(m: GaussianMethodology, bandFloor: number): Ratio {
  checkBandFloor(m, bandFloor);
  const range = BigInt(m.scoreBounds[1] - m.scoreBounds[0]);
  return toRatio(
    bigRatio(
      range * BigInt(m.gridStepRatio.denominator),
      BigInt(bandFloor) * BigInt(m.gridStepRatio.numerator),
    ),
  );
}

/** sigma^2 = (c D)^2 in grid units^2 of the noise on one pillar of a directly noised cell. */
export function cellSigma2(m: GaussianMethodology, cadence: 'daily' | 'weekly', bandFloor: number): Ratio {
  if (cadence === 'daily' && bandFloor < m.dailyMinCohort) {
    throw new RangeError(`daily cells need a cohort of at least ${m.dailyMinCohort}`);
  }
  const sigma = mulRatio(m.noiseMultipliers[cadence], sensitivityGridUnits(m, bandFloor));
  return mulRatio(sigma, sigma);
}

/** sigma^2 of each bin share of a histogram, in share units (1e-4)^2. */
export function histogramSigma2(m: GaussianMethodology, bandFloor: number): Ratio {
  checkBandFloor(m, bandFloor);
  const d = toRatio(
    bigRatio(BigInt(m.histogram.shareStep.denominator), BigInt(bandFloor * m.histogram.shareStep.numerator)),
  );
  const sigma = mulRatio(m.noiseMultipliers.histogram, d);
  return mulRatio(sigma, sigma);
}

/** The pillar noise of a directly noised cell: one discrete Gaussian. */
export function cellNoise(
  m: GaussianMethodology,
  cadence: 'daily' | 'weekly',
  bandFloor: number,
): NoiseTerm[] {
  return [{ weight: { numerator: 1, denominator: 1 }, sigma2: cellSigma2(m, cadence, bandFloor) }];
}

/** Scale every term of a noise description by a rational weight. */
export function scaleNoise(noise: readonly NoiseTerm[], weight: Ratio): NoiseTerm[] {
  return noise.map((t) => ({ weight: mulRatio(t.weight, weight), sigma2: t.sigma2 }));
}

/** The noise of indexValue: the pillar noises, independent per pillar, weighted by the composite. */
export function indexNoise(m: GaussianMethodology, pillarNoise: readonly NoiseTerm[]): NoiseTerm[] {
  return TACSI_PILLARS.flatMap((p) => scaleNoise(pillarNoise, m.pillarWeights[p]));
}

const marginCache = new Map<string, Margins>();

/** 95% margins (index points) of a cell whose pillar noise is `pillarNoise` (memoised: few distinct laws). */
export function marginsForNoise(m: GaussianMethodology, pillarNoise: readonly NoiseTerm[]): Margins {
  const key = `${m.version}|${JSON.stringify(pillarNoise)}`;
  const cached = marginCache.get(key);
  if (cached) return cached;
  const step = ratioValue(m.gridStepRatio);
  const single =
    pillarNoise.length === 1 && pillarNoise[0]!.weight.numerator === pillarNoise[0]!.weight.denominator;
  const pillarUnits = single
    ? discreteGaussianHalfWidth(ratioValue(pillarNoise[0]!.sigma2), 0.95)
    : weightedSumHalfWidth(pillarNoise, 0.95);
  const indexUnits = weightedSumHalfWidth(indexNoise(m, pillarNoise), 0.95);
  const result = Object.freeze({
    indexValue: round2(indexUnits * step),
    pillars: round2(pillarUnits * step),
  });
  if (marginCache.size > 1024) marginCache.clear();
  marginCache.set(key, result);
  return result;
}

const round2 = (x: number) => Math.round(x * 100) / 100;

/**
 * 95% margins of a cell at a band and cadence; `days` is the number of daily cells a weekly-derived
 * cell averages (default 7, all at the same band).
 */
export function margins(
  m: GaussianMethodology,
  bandFloor: number,
  cadence: GaussianCadence,
  days = 7,
): Margins {
  if (cadence !== 'weekly-derived') return marginsForNoise(m, cellNoise(m, cadence, bandFloor));
  if (!Number.isInteger(days) || days < 1 || days > 7) throw new RangeError(`days ${days} must be 1..7`);
  const day = cellNoise(m, 'daily', bandFloor);
  const noise = Array.from({ length: days }, () =>
    scaleNoise(day, { numerator: 1, denominator: days }),
  ).flat();
  return marginsForNoise(m, noise);
}

/** Margins for every band and cadence the methodology publishes (derived weekly: from 7 daily cells). */
export function marginTable(m: GaussianMethodology): MarginRow[] {
  const rows: MarginRow[] = [];
  for (const bandFloor of m.bandFloors) {
    if (bandFloor >= m.dailyMinCohort)
      rows.push({ bandFloor, cadence: 'daily', ...margins(m, bandFloor, 'daily') });
    rows.push({ bandFloor, cadence: 'weekly', ...margins(m, bandFloor, 'weekly') });
    if (bandFloor >= m.dailyMinCohort) {
      rows.push({
        bandFloor,
        cadence: 'weekly-derived',
        days: 7,
        ...margins(m, bandFloor, 'weekly-derived', 7),
      });
    }
  }
  return rows;
}

/** Any published methodology: tacsi-m1 (pure DP, discrete Laplace) or tacsi-m2 (zCDP, discrete Gaussian). */
export type AnyMethodology = Methodology | GaussianMethodology;

/** Every methodology by label, the archive's and the current. */
export const ALL_METHODOLOGIES: Readonly<Record<string, AnyMethodology>> = Object.freeze({
  ...METHODOLOGIES,
  [TACSI_M2.version]: TACSI_M2,
});

/** Look any methodology up by its published label; narrow on `mechanism`. */
export function getAnyMethodology(version: string): AnyMethodology {
  const m = Object.hasOwn(ALL_METHODOLOGIES, version) ? ALL_METHODOLOGIES[version] : undefined;
  if (!m) throw new RangeError(`unknown TACSI methodology ${version}`);
  return m;
}
