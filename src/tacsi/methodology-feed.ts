// GET /v1/tacsi/methodology: the published privacy parameters of every methodology, derived from
// the same objects the publisher uses, so the figures a subscriber reads cannot drift from the code.
import { FORWARD_SIGNAL_METHOD, FORWARD_SIGNAL_MIN_WEEKS } from './forward-signal.ts';
import {
  COHORT_BAND_EDGES,
  CURRENT_METHODOLOGY_VERSION,
  METHODOLOGIES,
  ROLLING_WINDOW_DAYS,
} from './privacy/index.ts';

export function methodologyFeed() {
  return {
    current: CURRENT_METHODOLOGY_VERSION,
    methodologies: Object.values(METHODOLOGIES).map((m) => ({
      version: m.version,
      mechanism: 'discrete-laplace',
      scoreBounds: { min: m.scoreBounds[0], max: m.scoreBounds[1] },
      minCohort: m.minCohort,
      cohortBands: [...COHORT_BAND_EDGES]
        .filter((edge) => edge >= m.minCohort)
        .reverse()
        .map((edge) => `n >= ${edge}`),
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
    })),
    forwardSignal: {
      method: FORWARD_SIGNAL_METHOD,
      horizon: 'P1W',
      minArchiveWeeks: FORWARD_SIGNAL_MIN_WEEKS,
    },
  };
}
