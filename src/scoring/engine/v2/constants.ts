/**
 * The constants of formula v2's per-platform evaluation. docs/scoring.md ("Formula v2") states each
 * with its reason.
 */
import { MEDIAN_NET_SENTIMENT } from './baselines.ts';
import { ENGAGEMENT_WEIGHTS } from '../engagement-weights.ts';

/** Recency half-life of rates and sentiment, in days: a crisis shows within a week. */
export const HALF_LIFE_DAYS = 7;
/** A day's views or engagement is capped at this multiple of the window's median day (winsorising). */
export const WINSOR_MULTIPLE = 4;
/** One day above this share of the window's views raises view_spike. */
export const VIEW_SPIKE_SHARE = 0.3;
/** Views must be reported on at least this share of observed days for visibility to be scored. */
export const MIN_REPORTED_SHARE = 0.5;
/** Follower spike margin over the account's own daily log growth: median + max(floor, k x MAD). */
export const FOLLOWER_SPIKE_MARGIN = { floor: 0.02, madMultiple: 8 } as const;
/** Each negatively classified comment or mention cancels its own engagement weight and as much again. */
export const NEGATIVE_PENALTY = 2 * ENGAGEMENT_WEIGHTS.comments;
/** A post-day engagement block above this share of a median day's engagement raises engagement_pod. */
export const POD_MARGIN = 0.3;
/**
 * Engagement dated on the post day (a source that reads each post's lifetime totals and books them
 * on its publication day, as the Instagram and Facebook connectors must), when the snapshots do not
 * say so (engagementDating): the days without a post that report views carry at most this share of
 * the engagement their views would earn at the post days' rate. Such sources give exactly none; a
 * daily-dated account gives about all of it (a pod would need a block 50 times its honest post-day
 * engagement to look post-dated).
 */
export const POST_DATED_SHARE = 0.02;
/** ...and the engagement expected on those days is at least this much, so chance cannot empty them. */
export const POST_DATED_MIN_EXPECTED = 10;
/** Negative share of the median account's classified items (40% neutral, net MEDIAN_NET_SENTIMENT). */
export const MEDIAN_NEGATIVE_SHARE = (1 - 0.4 - MEDIAN_NET_SENTIMENT) / 2;
/** Sentiment prior: pseudo-count at the median account's net sentiment. */
export const SENTIMENT_PRIOR_V2 = 40;
/** Net sentiment this far from the median moves sentiment by tanh(1) x 50. */
export const SENTIMENT_SCALE = 0.5;
/** A post-day view lift of this share counts posts in full (presence counts posts that were seen). */
export const TYPICAL_POST_LIFT = 0.25;
export const REACH_WEIGHTS_V2 = { visibility: 0.6, growth: 0.4 } as const;
export const MOMENTUM_WEIGHTS_V2 = { engagement: 0.4, views: 0.3, sentiment: 0.3 } as const;
/** Momentum points are at most this many (Theil-Sen over <= this many block means). */
export const MOMENTUM_POINTS = 30;
/** A doubling per 28 days in every momentum signal gives tanh(0.5) x 50 = +23: daily noise stays small. */
export const MOMENTUM_SCALE = 2 * Math.LN2;
export const TREND_CAP = Math.log(4);
/** Combined engagement and views trend (log change per 28 days) that counts as flat. */
export const TREND_DEAD_ZONE = 0.15;
export const RECENT_DAYS = 7;
/** Last-week net sentiment within this of the median does not move momentum. */
export const SENTIMENT_DEAD_ZONE = 0.15;
export const MIN_GROWTH_SPAN_DAYS = 14;
