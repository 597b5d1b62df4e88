/** IMPRS formula v3: pure and deterministic, no database. See docs/scoring.md ("Formula v3"). */
export * from './types.ts';
export {
  scoreWorkspaceV3,
  dailyScoreSeriesV3,
  sentimentHalfLife,
  scoreInputDays,
  HISTORY_DAYS,
  MOMENTUM_RECENT_DAYS,
} from './score.ts';
export { crisisSignal, CRISIS_RECENT_DAYS, CRISIS_BASELINE_DAYS } from './crisis.ts';
export { screenSnapshots } from './screen.ts';
export {
  BASELINE_SET_V3,
  baselineOf,
  baselineSetFor,
  baselineV3,
  ENGAGEMENT_DRIFT_2025,
  INDUSTRY_ENGAGEMENT,
  storedBaseline,
} from './baselines.ts';
export { scoreDrivers, explainChange } from './explain.ts';
export { recommendV3, MIN_TREND_NAMED } from './recommend.ts';
