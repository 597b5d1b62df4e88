/**
 * IMPRS brand scoring engine, pure and deterministic, no database. New scores are formula v3 (v3/,
 * which evaluates its screened inputs with v2's pillars); v2 stays reproducible for its stored rows,
 * and stored v1 rows are read back as stored, with no engine. See docs/scoring.md.
 */
export {
  ACCOUNT_TIERS,
  type AccountTier,
  type PlatformScoreRow,
  type Recommendation,
  type PillarGrade,
  type CompositeGrade,
} from './types.ts';
export { tierFor, TIER_FLOORS } from './tiers.ts';
export { ENGAGEMENT_WEIGHTS } from './engagement-weights.ts';
export { PILLAR_WEIGHTS } from './pillars.ts';
export { signedDelta } from './format.ts';
export { round1 } from './math.ts';
export { classifySentiment, SentimentTally, type SentimentFields, type SentimentLabel } from './sentiment.ts';

export {
  scoreWorkspaceV2,
  dailyScoreSeriesV2,
  changeExceedsInterval,
  gradeWithHysteresis,
  compositeGradeV2,
  pillarGradeV2,
  COMPOSITE_GRADE_CUTOFFS_V2,
  PILLAR_GRADE_CUTOFFS_V2,
  GRADE_HYSTERESIS,
  GRADE_POPULATION_SHARES_V2,
  MEDIAN_SCORE,
  FORMULA_VERSION_V2,
  STALE_AFTER_DAYS,
  DEFAULT_LOOKBACK_DAYS,
  MAX_LOOKBACK_DAYS,
  type WorkspaceScoreV2,
  type DailyScorePointV2,
  type ScoreWorkspaceV2Input,
  type DailyScoreSeriesV2Input,
  type Interval,
  type AuthenticityFlag,
  type AuthenticityFlagCode,
  type PlatformScoreRowV2,
} from './v2/index.ts';

export {
  scoreWorkspaceV3,
  dailyScoreSeriesV3,
  scoreInputDays,
  crisisSignal,
  FORMULA_VERSION_V3,
  BASELINE_SET_V3,
  baselineOf,
  baselineSetFor,
  storedBaseline,
  type WorkspaceScoreV3,
  type DailyScorePointV3,
  type CrisisSignal,
  type BaselineInfo,
  type AuthenticityFlagV3,
  type AuthenticityFlagCodeV3,
  scoreDrivers,
  explainChange,
  type ScoreDriver,
  type MetricReading,
  type ChangeDriver,
  type ScoreChange,
  type RecommendationV3,
  type DriverMetric,
} from './v3/index.ts';
