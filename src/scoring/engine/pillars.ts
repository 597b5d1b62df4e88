/**
 * Pillar formulas for one platform. Each returns 0-100 (unrounded) from PlatformSignals.
 * The component breakdowns are exported for recommendations and docs; docs/scoring.md states
 * every weight and the reason for it.
 */
import { benchmarkFor } from './benchmarks.ts';
import { clamp, relToBaseline } from './math.ts';
import type { PlatformSignals, Totals } from './signals.ts';
import type { Pillar, PillarScores } from '../../core/catalog.ts';

/** Composite weights; they sum to 1. */
export const PILLAR_WEIGHTS: Readonly<PillarScores> = {
  presence: 0.2,
  reach: 0.2,
  impact: 0.25,
  sentiment: 0.2,
  momentum: 0.15,
};

/** part1 (audience half) and part2 (response half) of a platform row. */
export const PART1_PILLARS: readonly Pillar[] = ['presence', 'reach'];
export const PART2_PILLARS: readonly Pillar[] = ['impact', 'sentiment', 'momentum'];

export const PRESENCE_WEIGHTS = {
  consistency: 0.4,
  cadence: 0.3,
  regularity: 0.15,
  completeness: 0.15,
} as const;
export const REACH_WEIGHTS = { audience: 0.4, growth: 0.3, visibility: 0.3 } as const;
/** Per-view engagement is the better quality measure; per-follower keeps a fallback when views are not reported. */
export const IMPACT_WEIGHTS = { perView: 0.7, perFollower: 0.3 } as const;
export const MOMENTUM_WEIGHTS = { engagement: 0.4, views: 0.3, posts: 0.15, sentiment: 0.15 } as const;

/** Audience that fills the audience-size component (log scale): 10 million. */
export const AUDIENCE_LOG10_CAP = 7;
/** Growth is averaged over at least this many days so a few noisy days cannot dominate. */
export const MIN_GROWTH_SPAN_DAYS = 14;
/** Neutral pseudo-count in the sentiment prior: 20 classified items weigh as much as the prior. */
export const SENTIMENT_PRIOR = 20;
/** A half-over-half log change of ln 2 (doubling) in every momentum signal gives tanh(1) above 50. */
const MOMENTUM_SCALE = Math.LN2;
/** One signal can move momentum by at most a 4x change. */
const TREND_CAP = Math.log(4);
const LN3 = Math.log(3);

export interface PresenceParts {
  consistency: number;
  cadence: number;
  regularity: number;
  completeness: number;
  postsPerWeek: number;
}

export function presenceParts(s: PlatformSignals): PresenceParts {
  const target = benchmarkFor(s.platform, s.tier).postsPerWeek;
  const postsPerWeek = s.days > 0 ? (s.posts / s.days) * 7 : 0;
  const cv = s.weeklyPostsMean > 0 ? s.weeklyPostsSd / s.weeklyPostsMean : Infinity;
  return {
    consistency: s.observedWeeks > 0 ? s.activeWeeks / s.observedWeeks : 0,
    cadence: clamp(postsPerWeek / target, 0, 1),
    regularity: cv === Infinity ? 0 : 1 / (1 + cv),
    completeness: clamp(s.completeness, 0, 1),
    postsPerWeek,
  };
}

export function presenceFrom(p: PresenceParts): number {
  const w = PRESENCE_WEIGHTS;
  return clamp(
    100 *
      (w.consistency * p.consistency +
        w.cadence * p.cadence +
        w.regularity * p.regularity +
        w.completeness * p.completeness),
    0,
    100,
  );
}

export interface ReachParts {
  audience: number;
  growth: number;
  visibility: number;
  /** Monthly log growth of the audience. */
  monthlyLogGrowth: number;
  viewsPerFollowerDay: number;
}

/** Growth score: logistic in units of the tier's typical growth; 0 growth -> 0.25, typical -> 0.5, 2x typical -> 0.75. */
export function growthScore(monthlyLogGrowth: number, typicalMonthlyGrowth: number): number {
  const x = monthlyLogGrowth / Math.log1p(typicalMonthlyGrowth);
  return 1 / (1 + Math.exp(-LN3 * (x - 1)));
}

export function reachParts(s: PlatformSignals): ReachParts {
  const bench = benchmarkFor(s.platform, s.tier);
  const monthlyLogGrowth =
    s.followerSpanDays >= 1
      ? (Math.log1p(s.followers) - Math.log1p(s.firstFollowers)) *
        (30 / Math.max(s.followerSpanDays, MIN_GROWTH_SPAN_DAYS))
      : 0;
  const viewsPerFollowerDay = s.days > 0 ? s.views / (Math.max(s.avgFollowers, 1) * s.days) : 0;
  return {
    audience: clamp(Math.log10(1 + s.followers) / AUDIENCE_LOG10_CAP, 0, 1),
    growth: growthScore(monthlyLogGrowth, bench.monthlyGrowth),
    visibility: relToBaseline(viewsPerFollowerDay, bench.viewsPerFollowerDay),
    monthlyLogGrowth,
    viewsPerFollowerDay,
  };
}

export function reachFrom(p: ReachParts): number {
  const w = REACH_WEIGHTS;
  return clamp(100 * (w.audience * p.audience + w.growth * p.growth + w.visibility * p.visibility), 0, 100);
}

export interface ImpactParts {
  /** Weighted engagements per view; null when the window reports no views. */
  perViewRate: number | null;
  perFollowerDayRate: number;
}

export function impactParts(s: PlatformSignals): ImpactParts {
  return {
    perViewRate: s.views > 0 ? s.engagement / s.views : null,
    perFollowerDayRate: s.days > 0 ? s.engagement / (Math.max(s.avgFollowers, 1) * s.days) : 0,
  };
}

/** Increasing in engagement (both rates grow with it and relToBaseline is increasing), so more engagement never lowers impact. */
export function impactFrom(s: PlatformSignals, p: ImpactParts): number {
  const bench = benchmarkFor(s.platform, s.tier);
  const perFollower = relToBaseline(p.perFollowerDayRate, bench.engagementPerFollowerDay);
  if (p.perViewRate === null) return clamp(100 * perFollower, 0, 100);
  const perView = relToBaseline(p.perViewRate, bench.engagementPerView);
  return clamp(100 * (IMPACT_WEIGHTS.perView * perView + IMPACT_WEIGHTS.perFollower * perFollower), 0, 100);
}

/** Net sentiment shrunk towards neutral: (pos - neg) / (classified + prior). */
export function netSentiment(t: Pick<Totals, 'positive' | 'neutral' | 'negative'>): number {
  return (t.positive - t.negative) / (t.positive + t.neutral + t.negative + SENTIMENT_PRIOR);
}

export function sentimentFrom(net: number): number {
  return clamp(50 + 50 * net, 0, 100);
}

/** Log change of a per-observed-day average from the older to the newer half, capped. 0 when both are 0. */
export function trend(older: number, newer: number): number {
  const eps = 0.05 * (older + newer) + 1e-9;
  return clamp(Math.log((newer + eps) / (older + eps)), -TREND_CAP, TREND_CAP);
}

export interface MomentumParts {
  engagement: number;
  views: number;
  posts: number;
  sentiment: number;
  /** False when one half of the window has no snapshot: momentum is then flat (50). */
  measurable: boolean;
}

export function momentumParts(s: PlatformSignals): MomentumParts {
  const A = s.firstHalf;
  const B = s.secondHalf;
  if (A.days === 0 || B.days === 0)
    return { engagement: 0, views: 0, posts: 0, sentiment: 0, measurable: false };
  return {
    engagement: trend(A.engagement / A.days, B.engagement / B.days),
    views: trend(A.views / A.days, B.views / B.days),
    posts: trend(A.posts / A.days, B.posts / B.days),
    sentiment: clamp(2 * (netSentiment(B) - netSentiment(A)), -TREND_CAP, TREND_CAP),
    measurable: true,
  };
}

export function momentumFrom(p: MomentumParts): number {
  const w = MOMENTUM_WEIGHTS;
  const m = w.engagement * p.engagement + w.views * p.views + w.posts * p.posts + w.sentiment * p.sentiment;
  return clamp(50 + 50 * Math.tanh(m / MOMENTUM_SCALE), 0, 100);
}

export function platformPillars(s: PlatformSignals): PillarScores {
  return {
    presence: presenceFrom(presenceParts(s)),
    reach: reachFrom(reachParts(s)),
    impact: impactFrom(s, impactParts(s)),
    sentiment: sentimentFrom(netSentiment(s)),
    momentum: momentumFrom(momentumParts(s)),
  };
}

/** Weighted mean of the given pillars with PILLAR_WEIGHTS renormalised over them. */
export function weightedPillars(p: PillarScores, keys: readonly Pillar[]): number {
  let sum = 0;
  let wsum = 0;
  for (const k of keys) {
    sum += PILLAR_WEIGHTS[k] * p[k];
    wsum += PILLAR_WEIGHTS[k];
  }
  return wsum > 0 ? clamp(sum / wsum, 0, 100) : 0;
}
