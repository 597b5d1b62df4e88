// GET /v1/tacsi/methodology: the published privacy parameters of every methodology, derived from
// the same objects the publisher uses, so the figures a subscriber reads cannot drift from the code.
import { METHODOLOGY_FORMULA } from './cohorts.ts';
import { FORWARD_SIGNAL_METHOD, FORWARD_SIGNAL_MIN_WEEKS } from './forward-signal.ts';
import {
  COHORT_BAND_EDGES,
  METHODOLOGIES,
  ROLLING_WINDOW_DAYS,
  TACSI_M2,
  TACSI_PILLARS,
  marginTable,
  pureDpToZcdp,
  ratioValue,
  type GaussianMethodology,
  type TacsiPillar,
} from './privacy/index.ts';
import type { MethodologyFeedBody, NoticeBody } from './schemas.ts';

const round = (x: number, digits = 6) => Number(x.toFixed(digits));

/** The score formula a methodology reads; every published methodology has one. */
function formulaOf(version: string): string {
  const formula = (METHODOLOGY_FORMULA as Record<string, string>)[version];
  if (!formula) throw new RangeError(`methodology ${version} names no score formula`);
  return formula;
}

function bands(minCohort: number): string[] {
  return [...COHORT_BAND_EDGES]
    .filter((edge) => edge >= minCohort)
    .reverse()
    .map((edge) => `n >= ${edge}`);
}

function gaussian(m: GaussianMethodology) {
  const rho = (kind: keyof GaussianMethodology['rhoPerRelease']) => round(ratioValue(m.rhoPerRelease[kind]));
  const w = m.windowRho;
  return {
    version: m.version,
    formulaVersion: formulaOf(m.version),
    mechanism: m.mechanism,
    accounting: m.accounting,
    unitOfPrivacy: 'one brand workspace (all of its scores)',
    neighbouring: m.neighbouring,
    scoreBounds: { min: m.scoreBounds[0], max: m.scoreBounds[1] },
    minCohort: m.minCohort,
    dailyMinCohort: m.dailyMinCohort,
    cohortBands: bands(m.minCohort),
    calibration: 'noise calibrated to the floor of the published cohort band',
    gridStep: m.gridStep,
    noisedStatistics: [...TACSI_PILLARS],
    indexValue: 'fixed linear composite of the noised pillars (post-processing)',
    pillarWeights: Object.fromEntries(
      TACSI_PILLARS.map((p) => [p, ratioValue(m.pillarWeights[p])]),
    ) as Record<TacsiPillar, number>,
    noiseMultipliers: {
      daily: ratioValue(m.noiseMultipliers.daily),
      weekly: ratioValue(m.noiseMultipliers.weekly),
      histogram: ratioValue(m.noiseMultipliers.histogram),
    },
    rhoPerRelease: {
      daily: rho('daily'),
      weekly: rho('weekly'),
      weeklyDerived: rho('weekly-derived'),
      histogram: rho('histogram'),
      headline: rho('headline'),
      benchmark: 0,
    },
    releasesPerWindow: { ...m.releasesPerWindow },
    budgetSplit: {
      sectorCells: round(ratioValue(w.mixedWorst)),
      histograms: round(ratioValue(w.histograms)),
      headline: 0,
      benchmark: 0,
      scheduleTotal: round(ratioValue(w.scheduleBound)),
    },
    rollingWindowDays: m.rollingWindowDays,
    annualRhoCap: ratioValue(m.annualRhoCap),
    guarantee: {
      statement:
        'rho <= annualRhoCap per entity over every release of every methodology whose period ends in any ' +
        'rolling window of rollingWindowDays days lying on or after the cut-over, replace-one neighbours',
      invariants: [...GUARANTEE_INVARIANTS],
      window:
        'event-level in time: each rolling window of period ends is bounded; the loss over several windows adds up',
      lifetimeRhoPerYear: round(ratioValue(w.scheduleBound)),
    },
    annualEpsilonDelta: {
      epsilon: round(m.annualEpsilonDelta.epsilon, 2),
      delta: m.annualEpsilonDelta.delta,
      conversion: 'epsilon = rho + 2 sqrt(rho ln(1/delta)) (Bun and Steinke 2016, Proposition 1.3)',
    },
    histogram: {
      edges: [...m.histogram.edges],
      schedule: 'with the weekly cell of the last ISO week ending in each calendar month',
      percentileGranularity: m.histogram.percentileGranularity,
    },
    margins95: marginTable(m).map((r) => ({
      bandFloor: r.bandFloor,
      cadence: r.cadence,
      ...(r.days ? { days: r.days } : {}),
      indexValue: r.indexValue,
      pillars: r.pillars,
    })),
  };
}

/** Exact facts released outside the accounting (docs/privacy.md section 1, "Invariants"). */
export const GUARANTEE_INVARIANTS = [
  'sector membership of each entity (the public taxonomy)',
  'per period and sector, the exact count of entities with a score, through whether a cell exists (n >= 50, daily n >= 250) and its cohort band',
] as const;

/** How corrections are published: in the calendar's lag policy and the methodology feed. */
export const CORRECTIONS_POLICY =
  'a correction is never an update: it is a new vintage of the cell with its reason and its own publishedAt, ' +
  'noised afresh and charged to the privacy ledger (a derived cell is derived again), published at any time and ' +
  'listed in GET /v1/tacsi/corrections; every feed serves the latest vintage, and history with an earlier asOf ' +
  'the one served then; tacsi-m1 cells are never corrected';

/** Published series no feed serves any more, by methodology. */
export const WITHDRAWN: Readonly<Record<string, ReadonlyArray<{ sector: string; reason: string }>>> = {
  'tacsi-m1': [
    {
      sector: 'headline',
      reason:
        'the tacsi-m1 headline was noised from the raw scores of every consumer sector, including sectors below 50 brands and exclusively licensed ones, so readable sectors could be subtracted from it',
    },
  ],
};

/** `m2From`: the cut-over; `today` decides which methodology new periods are published under. */
export function methodologyFeed(
  m2From: string,
  today: string,
  upcoming: readonly NoticeBody[] = [],
): MethodologyFeedBody {
  return {
    current: today >= m2From ? TACSI_M2.version : 'tacsi-m1',
    cutOver: { version: TACSI_M2.version, periodsEndingOnOrAfter: m2From },
    methodologies: [
      ...Object.values(METHODOLOGIES).map((m) => ({
        version: m.version,
        formulaVersion: formulaOf(m.version),
        mechanism: 'discrete-laplace' as const,
        accounting: 'pure epsilon-DP, basic composition',
        scoreBounds: { min: m.scoreBounds[0], max: m.scoreBounds[1] },
        minCohort: m.minCohort,
        cohortBands: bands(m.minCohort),
        sensitivity: m.sensitivity,
        statisticsPerCell: m.statisticsPerCell,
        epsilonPerStatistic: m.epsilonPerStatistic,
        epsilonPerCell: m.epsilonPerCell,
        gridStep: m.gridStep,
        noiseScale: m.noiseScale,
        ci95HalfWidth: m.ci95HalfWidth,
        cadences: [...m.cadences],
        rollingWindowDays: ROLLING_WINDOW_DAYS,
        cellsPerEntityPerWindow: m.cellsPerEntityPerWindow,
        annualCapPerEntity: m.annualCapPerEntity,
        annualRhoEquivalent: round(
          m.cellsPerEntityPerWindow * m.statisticsPerCell * pureDpToZcdp(m.epsilonPerStatistic),
        ),
        rhoPerCell: round(m.statisticsPerCell * pureDpToZcdp(m.epsilonPerStatistic)),
        closedFrom: today >= m2From ? m2From : null,
        withdrawn: [...(WITHDRAWN[m.version] ?? [])],
      })),
      gaussian(TACSI_M2),
    ],
    notices: [...upcoming],
    corrections: { feed: '/v1/tacsi/corrections', policy: CORRECTIONS_POLICY },
    forwardSignal: {
      method: FORWARD_SIGNAL_METHOD,
      horizon: 'P1W',
      minArchiveWeeks: FORWARD_SIGNAL_MIN_WEEKS,
    },
  };
}
