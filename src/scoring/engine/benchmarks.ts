/**
 * Reference baselines ("what a typical account of this tier on this platform does"), fixed in code
 * so that a score never depends on a database. A rate exactly at its baseline scores 0.5 on its
 * component (see relToBaseline), i.e. "typical" sits in the middle of the scale.
 *
 * The table is platform base value x tier multiplier: smaller accounts reach and engage a larger
 * share of their audience and grow faster in relative terms, so their bar is higher.
 */
import type { AccountTier } from './types.ts';
import type { Platform } from '../../core/catalog.ts';

export interface Benchmark {
  /** Impressions (views) per follower per day. */
  viewsPerFollowerDay: number;
  /** Weighted engagements (see ENGAGEMENT_WEIGHTS) per impression. */
  engagementPerView: number;
  /** Weighted engagements per follower per day (= engagementPerView x viewsPerFollowerDay). */
  engagementPerFollowerDay: number;
  /** Monthly (30-day) follower growth, as a fraction. */
  monthlyGrowth: number;
  /** Posts per week that count as a full posting cadence. */
  postsPerWeek: number;
}

/** Weighted engagement: saves and shares signal intent more than comments, comments more than likes. */
export const ENGAGEMENT_WEIGHTS = { likes: 1, comments: 2, shares: 3, saves: 3, mentions: 2 } as const;

/** Mid-tier platform bases. */
export const PLATFORM_BASE: Readonly<
  Record<Platform, { viewsPerFollowerDay: number; engagementPerView: number; postsPerWeek: number }>
> = {
  instagram: { viewsPerFollowerDay: 0.12, engagementPerView: 0.045, postsPerWeek: 3 },
  tiktok: { viewsPerFollowerDay: 0.5, engagementPerView: 0.06, postsPerWeek: 3 },
  youtube: { viewsPerFollowerDay: 0.08, engagementPerView: 0.045, postsPerWeek: 1 },
  twitter: { viewsPerFollowerDay: 0.1, engagementPerView: 0.015, postsPerWeek: 5 },
  facebook: { viewsPerFollowerDay: 0.05, engagementPerView: 0.02, postsPerWeek: 3 },
};

/** Tier multipliers on reach and engagement rates, and the tier's typical monthly growth. */
export const TIER_FACTORS: Readonly<Record<AccountTier, { rate: number; monthlyGrowth: number }>> = {
  nano: { rate: 1.4, monthlyGrowth: 0.04 },
  micro: { rate: 1.2, monthlyGrowth: 0.025 },
  mid: { rate: 1.0, monthlyGrowth: 0.015 },
  macro: { rate: 0.85, monthlyGrowth: 0.01 },
  mega: { rate: 0.7, monthlyGrowth: 0.007 },
};

/** Net sentiment ((pos - neg) / classified) of a typical healthy account, used as the recommendation target. */
export const BASELINE_NET_SENTIMENT = 0.3;

const cache = new Map<string, Benchmark>();

export function benchmarkFor(platform: Platform, tier: AccountTier): Benchmark {
  const key = `${platform}:${tier}`;
  let b = cache.get(key);
  if (!b) {
    const base = PLATFORM_BASE[platform];
    const t = TIER_FACTORS[tier];
    const viewsPerFollowerDay = base.viewsPerFollowerDay * t.rate;
    const engagementPerView = base.engagementPerView * t.rate;
    b = Object.freeze({
      viewsPerFollowerDay,
      engagementPerView,
      engagementPerFollowerDay: viewsPerFollowerDay * engagementPerView,
      monthlyGrowth: t.monthlyGrowth,
      postsPerWeek: base.postsPerWeek,
    });
    cache.set(key, b);
  }
  return b;
}
