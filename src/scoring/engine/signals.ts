/**
 * Measured inputs of one platform over one window, read from the prefix sums in O(weeks).
 * Everything the pillar formulas use is here, so a recommendation can change one input and
 * re-run the same formula to find its expected impact.
 */
import { rangeSum, type PlatformSeries } from './series.ts';
import { tierFor } from './tiers.ts';
import type { AccountTier } from './types.ts';
import type { Platform } from '../../core/catalog.ts';

export interface Totals {
  /** Days with a snapshot. */
  days: number;
  posts: number;
  views: number;
  /** Weighted engagements. */
  engagement: number;
  positive: number;
  neutral: number;
  negative: number;
}

export interface PlatformSignals extends Totals {
  platform: Platform;
  tier: AccountTier;
  /** Requested window length in days (observed or not). */
  windowDays: number;
  /** Latest observed audience in the window. */
  followers: number;
  /** Earliest observed audience in the window. */
  firstFollowers: number;
  /** Days between the earliest and latest observation. */
  followerSpanDays: number;
  /** Mean audience over observed days. */
  avgFollowers: number;
  /** Profile completeness on the latest observed day, 0..1. */
  completeness: number;
  /** 7-day blocks ending at the window end (the oldest may be partial). */
  weeks: number;
  /** Blocks with at least one snapshot. */
  observedWeeks: number;
  /** Observed blocks with at least one post. */
  activeWeeks: number;
  /** Mean and population standard deviation of posts per week over observed blocks (partial blocks scaled to 7 days). */
  weeklyPostsMean: number;
  weeklyPostsSd: number;
  /** Older and newer half of the window, for momentum. */
  firstHalf: Totals;
  secondHalf: Totals;
}

function totals(s: PlatformSeries, a: number, b: number): Totals {
  return {
    days: rangeSum(s.cumObserved, a, b),
    posts: rangeSum(s.cumPosts, a, b),
    views: rangeSum(s.cumViews, a, b),
    engagement: rangeSum(s.cumEngagement, a, b),
    positive: rangeSum(s.cumPositive, a, b),
    neutral: rangeSum(s.cumNeutral, a, b),
    negative: rangeSum(s.cumNegative, a, b),
  };
}

/**
 * Signals for the window [startDay, endDay] (epoch days, inclusive), or null when the platform
 * has no snapshot in it. The window may extend beyond the series; missing days are simply unobserved.
 */
export function measure(s: PlatformSeries, startDay: number, endDay: number): PlatformSignals | null {
  const windowDays = endDay - startDay + 1;
  if (windowDays <= 0) return null;
  const a = Math.max(0, startDay - s.origin);
  const b = Math.min(s.length - 1, endDay - s.origin);
  if (a > b) return null;
  const all = totals(s, a, b);
  if (all.days === 0) return null;

  const first = s.nextObserved[a]!;
  const last = s.lastObserved[b]!;
  const followers = s.followers[last]!;

  // Posting per 7-day block, newest block first. Unobserved blocks are left out rather than
  // counted as "no post", so an ingest gap does not read as a posting gap.
  const weeks = Math.ceil(windowDays / 7);
  let observedWeeks = 0;
  let activeWeeks = 0;
  let sum = 0;
  let sumSq = 0;
  for (let w = 0; w < weeks; w++) {
    const hi = Math.min(b, endDay - 7 * w - s.origin);
    const lo = Math.max(a, endDay - 7 * w - 6 - s.origin, startDay - s.origin);
    if (lo > hi) continue;
    const days = rangeSum(s.cumObserved, lo, hi);
    if (days === 0) continue;
    const posts = rangeSum(s.cumPosts, lo, hi);
    observedWeeks++;
    if (posts > 0) activeWeeks++;
    const perWeek = (posts / days) * 7;
    sum += perWeek;
    sumSq += perWeek * perWeek;
  }
  const mean = observedWeeks > 0 ? sum / observedWeeks : 0;
  const variance = observedWeeks > 0 ? Math.max(0, sumSq / observedWeeks - mean * mean) : 0;

  const half = Math.floor(windowDays / 2);
  const split = startDay + half - s.origin; // first index of the newer half
  return {
    ...all,
    platform: s.platform,
    tier: tierFor(followers),
    windowDays,
    followers,
    firstFollowers: s.followers[first]!,
    followerSpanDays: last - first,
    avgFollowers: rangeSum(s.cumFollowers, a, b) / all.days,
    completeness: s.completeness[last]!,
    weeks,
    observedWeeks,
    activeWeeks,
    weeklyPostsMean: mean,
    weeklyPostsSd: Math.sqrt(variance),
    firstHalf: totals(s, a, Math.min(b, split - 1)),
    secondHalf: totals(s, Math.max(a, split), b),
  };
}
