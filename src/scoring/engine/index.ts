/**
 * IMPRS brand scoring engine: formula v1 (score.ts) and formula v2 (v2/), pure and deterministic, no
 * database. `formula_version` picks the engine. See docs/scoring.md.
 */
export {
  FORMULA_VERSION,
  ACCOUNT_TIERS,
  type AccountTier,
  type PlatformScoreRow,
  type Recommendation,
  type PillarGrade,
  type CompositeGrade,
} from './types.ts';
export { tierFor, TIER_FLOORS } from './tiers.ts';
export { benchmarkFor, ENGAGEMENT_WEIGHTS, type Benchmark } from './benchmarks.ts';
export { PILLAR_WEIGHTS } from './pillars.ts';
export { pillarGrade, compositeGrade, PILLAR_GRADE_CUTOFFS, COMPOSITE_GRADE_CUTOFFS } from './grades.ts';
export { signedDelta } from './format.ts';
export { round1 } from './math.ts';
export {
  scoreWorkspace,
  dailyScoreSeries,
  DEFAULT_LOOKBACK_DAYS,
  MAX_LOOKBACK_DAYS,
  DEFAULT_SERIES_WINDOW_DAYS,
  type ScoreWorkspaceInput,
  type WorkspaceScore,
  type DailyScoreSeriesInput,
  type DailyScorePoint,
} from './score.ts';
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
  FORMULA_VERSION_V2,
  STALE_AFTER_DAYS,
  type WorkspaceScoreV2,
  type DailyScorePointV2,
  type ScoreWorkspaceV2Input,
  type DailyScoreSeriesV2Input,
  type Interval,
  type AuthenticityFlag,
  type AuthenticityFlagCode,
  type PlatformScoreRowV2,
} from './v2/index.ts';
