/**
 * Public types of formula v2 (docs/scoring.md, "Formula v2"). v1 (../score.ts) stays as it is so
 * that stored v1 scores remain reproducible; `formula_version` picks the engine (see ../versions.ts).
 */
import type { CompositeGrade, PillarGrade, PlatformScoreRow, Recommendation } from '../types.ts';
import type { Pillar, PillarScores, Platform } from '../../../core/catalog.ts';
import type { DailySnapshot } from '../../../core/metric-snapshot.ts';

export const FORMULA_VERSION_V2 = 'v2';
export type FormulaVersionV2 = typeof FORMULA_VERSION_V2;

/** A two-sided 90% interval, 0-100, one decimal; low <= value <= high. */
export interface Interval {
  low: number;
  high: number;
}

/**
 * Authenticity and data-quality flags. A flag is evidence for a human to look at, not a verdict:
 * - follower_spike: a day's follower growth exceeded the account's own daily history by the
 *   documented margin (FOLLOWER_SPIKE_MARGIN); the jump is left out of growth and baselines.
 * - engagement_pod: engagement is not proportional to reach (a fixed block of engagement on post
 *   days, whatever the views); the excess is not credited. Not tested on engagement a source dates
 *   on the post day (Instagram and Facebook posts' lifetime totals): against daily views it cannot
 *   be told from honest engagement (docs/scoring.md, "Engagement dated on the post day").
 * - view_spike: one day holds more than 30% of the window's views; it is winsorised.
 * - views_unreported: impressions are reported on too few days to score visibility; reach is
 *   re-weighted onto growth and impact uses engagement per follower.
 */
export type AuthenticityFlagCode = 'follower_spike' | 'engagement_pod' | 'view_spike' | 'views_unreported';

export interface AuthenticityFlag {
  code: AuthenticityFlagCode;
  platform: Platform;
  /** Day the evidence points at (YYYY-MM-DD), or null when it concerns the whole window. */
  day: string | null;
  /** One sentence for the user, with the figures. */
  detail: string;
}

/**
 * The v1 row's shape with v2 meanings: `followerCount` is the latest count with flagged purchases
 * and bad values left out (the "organic" audience), and `weight` is the platform's share by engaged
 * audience, not raw followers (still summing to 1).
 */
export type PlatformScoreRowV2 = PlatformScoreRow;

export interface ScoreWorkspaceV2Input {
  snapshots: readonly DailySnapshot[];
  /** Platforms the score covers; empty: every platform seen in the snapshots. */
  platforms: readonly Platform[];
  /** Last day of the window, YYYY-MM-DD. */
  asOf: string;
  /** Window length in days ending at asOf; default 90, clamped to 1..365. */
  lookbackDays?: number;
  /** Default 5. */
  maxRecommendations?: number;
  /**
   * Grade of the previous published score of this workspace (same window length), for grade
   * hysteresis: the grade only changes when the score passes a cutoff by GRADE_HYSTERESIS points.
   * Omit (or null) for a first score.
   */
  previousGrade?: CompositeGrade | null;
  /** Today, YYYY-MM-DD, for the stale-data flag; default asOf. */
  today?: string;
}

export interface WorkspaceScoreV2 {
  formulaVersion: FormulaVersionV2;
  asOf: string;
  windowStart: string;
  lookbackDays: number;
  /** Composite, 0-100, one decimal; PILLAR_WEIGHTS as in v1 (so TACSI's weights still hold). */
  score: number;
  /** 90% interval of the composite. */
  scoreInterval: Interval;
  /** Composite grade after hysteresis against previousGrade. */
  grade: CompositeGrade;
  pillars: PillarScores;
  /** 90% interval of each pillar. */
  pillarIntervals: Record<Pillar, Interval>;
  pillarGrades: Record<Pillar, PillarGrade>;
  platforms: PlatformScoreRowV2[];
  /** Only recommendations whose pillar's whole interval lies below the pillar's threshold. */
  recommendations: Recommendation[];
  coverage: number;
  platformsMissing: Platform[];
  /** True when the latest snapshot of any scored platform is more than STALE_AFTER_DAYS before `today`. */
  stale: boolean;
  /** Latest day with a snapshot over the scored platforms, or null when none. */
  latestDataDay: string | null;
  authenticityFlags: AuthenticityFlag[];
}

export interface DailyScoreSeriesV2Input {
  snapshots: readonly DailySnapshot[];
  platforms: readonly Platform[];
  from: string;
  to: string;
  /** Rolling window per day; default 28. */
  windowDays?: number;
  /** Grade of the day before `from`, for hysteresis continuity; default null. */
  previousGrade?: CompositeGrade | null;
  /**
   * Compute the 90% intervals (a delete-a-block jackknife: 9 evaluations per day, ~9x the cost).
   * Default true; with false every interval is the point value (low = high = value).
   */
  intervals?: boolean;
}

export interface DailyScorePointV2 {
  day: string;
  score: number;
  scoreInterval: Interval;
  /** Grade with hysteresis carried along the series. */
  grade: CompositeGrade;
  pillars: PillarScores;
  pillarIntervals: Record<Pillar, Interval>;
  coverage: number;
  stale: boolean;
  /** Codes of the authenticity flags raised in this day's window (deduplicated). */
  authenticityFlags: AuthenticityFlagCode[];
}
