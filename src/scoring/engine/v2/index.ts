/** IMPRS formula v2: pure and deterministic, no database. See docs/scoring.md ("Formula v2"). */
export * from './types.ts';
export {
  scoreWorkspaceV2,
  dailyScoreSeriesV2,
  changeExceedsInterval,
  gradeWithHysteresis,
  compositeGradeV2,
  pillarGradeV2,
  COMPOSITE_GRADE_CUTOFFS_V2,
  PILLAR_GRADE_CUTOFFS_V2,
  STALE_AFTER_DAYS,
  DEFAULT_LOOKBACK_DAYS,
  MAX_LOOKBACK_DAYS,
  GRADE_HYSTERESIS,
  GRADE_POPULATION_SHARES_V2,
  MEDIAN_SCORE,
  FOLLOWER_SPIKE_MARGIN,
} from './score.ts';
export { baselineV2, MEDIAN_NET_SENTIMENT } from './baselines.ts';
