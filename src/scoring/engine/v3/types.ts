/**
 * Public types of formula v3 (docs/scoring.md, "Formula v3"). A v3 result keeps every field of the
 * v2 result with the same meaning and adds fields; v2 (../v2/) stays as it is so stored v2 scores
 * remain reproducible.
 */
import type { AuthenticityFlag, Interval, WorkspaceScoreV2, ScoreWorkspaceV2Input } from '../v2/types.ts';
import type { BenchmarkIndustry, DriverMetric, Pillar, Platform } from '../../../core/catalog.ts';
import type { Recommendation } from '../types.ts';

export const FORMULA_VERSION_V3 = 'v3';
export type FormulaVersionV3 = typeof FORMULA_VERSION_V3;

/**
 * v3's flags besides v2's. Each is evidence, and what it points at is not credited:
 * - follower_drip: cumulative follower growth over 21-30 days beyond the account's own organic rate
 *   that its views did not follow; the excess is left out of growth and size.
 * - bought_likes: likes per view and likes per comment both above the account's own history while
 *   views per follower are not; likes above the historical ratio are not credited.
 * - engagement_pod: (v2's code, on every platform in v3) engagement per view above the account's own
 *   history with comments rising as much as likes and no rise in views, or, where the comments'
 *   authors were read, with the share by repeat commenters or written within the hour of their post
 *   well above its history (views then no reason to spare it); the excess is not credited.
 * - filler_posts: posts per week above the account's own history without the views per post to carry
 *   them; only the posts its views carry count for presence.
 * - comments_deleted: a post's comment count fell below the highest count seen for it between
 *   syncs; the deleted comments count as negative ones (the removal of criticism earns nothing).
 * - sentiment_unscored (data quality): at least 20% of a platform's comments and mentions in the
 *   window (and at least 10) are in languages no sentiment model covers; sentiment is judged on the
 *   rest alone (./data-quality.ts).
 */
export type AuthenticityFlagCodeV3 =
  | AuthenticityFlag['code']
  | 'follower_drip'
  | 'bought_likes'
  | 'filler_posts'
  | 'comments_deleted'
  | 'sentiment_unscored';

export interface AuthenticityFlagV3 extends Omit<AuthenticityFlag, 'code'> {
  code: AuthenticityFlagCodeV3;
}

/** The brand's conversation in its last 7 days against its own previous 90 days, all platforms pooled. */
export interface CrisisSignal {
  active: boolean;
  /** Negative share of classified comments and mentions over the last 7 days (0-1). */
  negative_share: number;
  /** The same share over the 90 days before them (0-1). */
  baseline_negative_share: number;
  /** Classified items a day over the last 7 days over the same over the 90 days before (0 when none). */
  volume_ratio: number;
  /** First day of the running crisis (YYYY-MM-DD), or null when none is active. */
  since: string | null;
}

/** What the scale stands on: the dated, versioned set of baselines the score was computed against. */
export interface BaselineInfo {
  /** e.g. "2025.1": the yearly re-basing's year and revision. */
  version: string;
  /** Day the baselines were last re-based (YYYY-MM-DD). */
  dated: string;
  /**
   * "modelled": 50 is the median of a population generated from the published baselines, not of
   * measured accounts. "measured" is reserved for a reference drawn from real accounts.
   */
  reference: 'modelled' | 'measured';
  /** Industry whose published figures were used, or "all" (cross-industry figures). */
  industry: string;
}

/** The measured inputs of a v3 score and the other drivers of a change (their one list: src/core/catalog.ts). */
export { DRIVER_METRICS, type DriverMetric } from '../../../core/catalog.ts';

/** One measured input against the median account's value. */
export interface MetricReading {
  metric: DriverMetric;
  /** The account's value. */
  value: number;
  /** The median account's value (same platform and size): what scores 50. */
  median: number;
  /**
   * Points of the composite this reading puts the score above (+) or below (-) the median account's
   * 50. Over all drivers they sum to score - 50 within rounding (0.1 plus 0.005 a reading).
   */
  points: number;
}

/** One pillar on one platform (platform null: the workspace's coverage) and the readings that produced it. */
export interface ScoreDriver {
  pillar: Pillar;
  platform: Platform | null;
  /**
   * The platform's weight in the workspace pillar: its share by engaged audience (the platform rows'
   * `weight`); for sentiment its share of the pooled conversation (classified items against them plus
   * the prior's 40); 1 for coverage.
   */
  weight: number;
  readings: MetricReading[];
}

/** One driver of a change of the composite: a reading's value before and after and its part of the change. */
export interface ChangeDriver {
  pillar: Pillar;
  platform: Platform | null;
  metric: DriverMetric;
  /** The reading's value before and after (null where the platform or reading was absent). */
  before: number | null;
  after: number | null;
  /** The median account's value after (before when absent after); null for weights and shares. */
  median: number | null;
  /** Points of the composite change this driver accounts for. */
  points: number;
}

/** Why a score moved: drivers ranked by the size of their part; points + rounding = change. */
export interface ScoreChange {
  before: number;
  after: number;
  /** after - before, one decimal. */
  change: number;
  drivers: ChangeDriver[];
  /** change minus the drivers' points: the scores' and the points' rounding. */
  rounding: number;
}

/** A v3 recommendation: which reading, its value against the median account's, and what reaching it gives. */
export interface RecommendationV3 extends Recommendation {
  platform: Platform;
  metric: DriverMetric;
  value: number;
  median: number;
  /** Points of the composite the score would gain with this reading at the median account's value. */
  gain: number;
}

export interface ScoreWorkspaceV3Input extends ScoreWorkspaceV2Input {
  /**
   * The brand's industry (its sector's benchmark industry): engagement is judged against that
   * industry's published median where there is one (baselines.ts INDUSTRY_ENGAGEMENT); absent or null,
   * against all industries'.
   */
  industry?: BenchmarkIndustry | null;
}

export interface WorkspaceScoreV3 extends Omit<
  WorkspaceScoreV2,
  'formulaVersion' | 'authenticityFlags' | 'recommendations'
> {
  formulaVersion: FormulaVersionV3;
  /** From the account's own readings (./recommend.ts); during a crisis sentiment's comes first. */
  recommendations: RecommendationV3[];
  /** Every pillar on every platform with the readings that produced it (./explain.ts); empty when nothing is measured. */
  drivers: ScoreDriver[];
  /** v2's flags and v3's (a v2 flag code keeps its meaning). */
  authenticityFlags: AuthenticityFlagV3[];
  crisis: CrisisSignal;
  baseline: BaselineInfo;
  /** Same as baseline.version, for callers that store one string per score. */
  baselineVersion: string;
  /** Platforms whose inputs the manipulation screen changed (what was not credited is in the flags). */
  screened: Platform[];
}

export interface DailyScoreSeriesV3Input {
  snapshots: ScoreWorkspaceV3Input['snapshots'];
  platforms: ScoreWorkspaceV3Input['platforms'];
  from: string;
  to: string;
  windowDays?: number;
  previousGrade?: WorkspaceScoreV2['grade'] | null;
  intervals?: boolean;
  industry?: ScoreWorkspaceV3Input['industry'];
}

export interface DailyScorePointV3 {
  day: string;
  score: number;
  scoreInterval: Interval;
  grade: WorkspaceScoreV2['grade'];
  pillars: WorkspaceScoreV2['pillars'];
  pillarIntervals: WorkspaceScoreV2['pillarIntervals'];
  coverage: number;
  stale: boolean;
  authenticityFlags: AuthenticityFlagCodeV3[];
  crisis: CrisisSignal;
}
