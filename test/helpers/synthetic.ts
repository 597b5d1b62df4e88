/**
 * Deterministic synthetic snapshots (seeded PRNG) for the scoring tests.
 * Test data only: nothing in src/ uses it.
 */
import { formatDay, requireDay } from '../../src/core/days.ts';
import { type Platform, PLATFORMS } from '../../src/core/catalog.ts';
import type { DailySnapshot } from '../../src/core/metric-snapshot.ts';

export interface SyntheticOptions {
  seed: number;
  /** First day, YYYY-MM-DD. */
  from: string;
  days: number;
  platforms?: readonly Platform[];
  /** Starting audience per platform; default drawn between 500 and 2,000,000 (log-uniform). */
  followers?: number;
  /** Probability that a day's snapshot is missing (ingest gap). Default 0. */
  gapRate?: number;
}

/** mulberry32: tiny, fast, good enough for fixtures. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function syntheticSnapshots(o: SyntheticOptions): DailySnapshot[] {
  const rnd = prng(o.seed);
  const start = requireDay(o.from, 'from');
  const out: DailySnapshot[] = [];
  for (const platform of o.platforms ?? PLATFORMS) {
    let followers = o.followers ?? Math.round(500 * Math.pow(4000, rnd()));
    const dailyGrowth = (rnd() - 0.3) * 0.004;
    const postRate = rnd() * 1.2;
    const reachRate = 0.02 + rnd() * 0.5;
    const engagementRate = 0.005 + rnd() * 0.08;
    const mood = rnd() * 0.6 - 0.15;
    const completeness = Math.round(rnd() * 10) / 10;
    for (let d = 0; d < o.days; d++) {
      followers = Math.max(0, Math.round(followers * (1 + dailyGrowth + (rnd() - 0.5) * 0.002)));
      if (o.gapRate && rnd() < o.gapRate) continue;
      const posts = rnd() < postRate ? 1 + Math.floor(rnd() * 2) : 0;
      const impressions = Math.round(followers * reachRate * (0.5 + rnd()) * (posts > 0 ? 1.5 : 0.6));
      const engaged = impressions * engagementRate * (0.5 + rnd());
      const comments = Math.round(engaged * 0.05);
      const classified = comments + Math.round(rnd() * 5);
      const positive = Math.round(classified * Math.max(0, 0.35 + mood));
      const negative = Math.round(classified * Math.max(0, 0.2 - mood / 2));
      out.push({
        platform,
        day: formatDay(start + d),
        followers,
        posts,
        impressions,
        likes: Math.round(engaged * 0.8),
        comments,
        shares: Math.round(engaged * 0.05),
        saves: Math.round(engaged * 0.05),
        mentions: Math.round(rnd() * 3),
        sentimentPositive: positive,
        sentimentNegative: negative,
        sentimentNeutral: Math.max(0, classified - positive - negative),
        profileCompleteness: completeness,
      });
    }
  }
  return out;
}

export interface AccountOptions {
  seed: number;
  platform: Platform;
  /** First day, YYYY-MM-DD. */
  from: string;
  days: number;
  /** Starting audience. */
  followers: number;
  /** Multiples of the reference median account (formula v2 baselines) at this size; default 1. */
  viewsFactor?: number;
  engagementFactor?: number;
  postsFactor?: number;
  /** Monthly growth as a multiple of the median; default 1. */
  growthFactor?: number;
  /** Net sentiment ((pos - neg) / classified); default 0.3, the median. */
  netSentiment?: number;
  /** Day-to-day multiplicative noise (sd of a log-normal factor); default 0.25. */
  noise?: number;
  /** Keep fractional counts (no rounding), for exact continuity sweeps; default false (stochastic rounding). */
  exact?: boolean;
  /** Baseline function (formula v2's baselineV2), injected so this helper has no engine logic. */
  baseline: (
    platform: Platform,
    followers: number,
  ) => {
    viewsPerFollowerDay: number;
    engagementPerView: number;
    monthlyGrowth: number;
    postsPerWeek: number;
  };
}

/**
 * One platform's account at the given multiples of the median account of its size: a stationary
 * account with all factors 1 is the reference median. Engagement is split so that its
 * valence-adjusted weighted total (formula v2) equals views x engagement-per-view x factor.
 */
export function accountSnapshots(o: AccountOptions): DailySnapshot[] {
  const rnd = prng(o.seed);
  const gauss = () => Math.sqrt(-2 * Math.log(1 - rnd())) * Math.cos(2 * Math.PI * rnd());
  const start = requireDay(o.from, 'from');
  const noise = o.noise ?? 0.25;
  const net = o.netSentiment ?? 0.3;
  const out: DailySnapshot[] = [];
  // Stochastic rounding keeps small accounts' expected counts (plain rounding turns 0.4 comments into none).
  const round = o.exact ? (x: number) => x : (x: number) => Math.floor(x + rnd());
  let followers = o.followers;
  for (let d = 0; d < o.days; d++) {
    const g = o.baseline(o.platform, followers).monthlyGrowth * (o.growthFactor ?? 1);
    followers *= Math.exp(Math.log1p(g) / 30 + gauss() * 0.0005);
    const b = o.baseline(o.platform, followers);
    const posts = rnd() < (b.postsPerWeek * (o.postsFactor ?? 1)) / 7 ? 1 : 0;
    const lift = posts > 0 ? 1.3 : 0.85;
    // Mean of the lift mix is ~1 at the median posting rate.
    const views =
      followers *
      b.viewsPerFollowerDay *
      (o.viewsFactor ?? 1) *
      lift *
      Math.exp(gauss() * noise - (noise * noise) / 2);
    const E = views * b.engagementPerView * (o.engagementFactor ?? 1) * Math.exp(gauss() * noise * 0.5);
    const comments = 0.02 * E;
    const mentions = 0.005 * E;
    const classified = comments + mentions;
    const neu = 0.4;
    const pos = (1 - neu + net) / 2;
    const neg = 1 - neu - pos;
    const shares = 0.01 * E;
    const saves = 0.01 * E;
    const talk = 2 * comments + 3 * shares + 2 * mentions;
    const likes = Math.max(0, E - 3 * saves - talk * (1 - neg) + 2 * neg * classified);
    out.push({
      platform: o.platform,
      day: formatDay(start + d),
      followers: Math.round(followers),
      posts,
      impressions: round(views),
      likes: round(likes),
      comments: round(comments),
      shares: round(shares),
      saves: round(saves),
      mentions: round(mentions),
      sentimentPositive: round(classified * pos),
      sentimentNeutral: round(classified * neu),
      sentimentNegative: round(classified * neg),
      profileCompleteness: 0.8,
    });
  }
  return out;
}
