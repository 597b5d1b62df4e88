/** IMPRS brand scoring engine, formula v1: pure and deterministic, no database. See docs/scoring.md. */
export {
  FORMULA_VERSION,
  PLATFORMS,
  PILLARS,
  ACCOUNT_TIERS,
  type FormulaVersion,
  type Platform,
  type Pillar,
  type PillarScores,
  type AccountTier,
  type DailySnapshot,
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
export {
  classifySentiment,
  sentimentScore,
  analyseSentiment,
  SENTIMENT_THRESHOLD,
  type SentimentLabel,
} from './sentiment.ts';
