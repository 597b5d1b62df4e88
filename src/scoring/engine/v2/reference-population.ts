/**
 * The reference population that gives formula v2's scale its meaning (docs/scoring.md, "What 50
 * means"): accounts drawn log-normally around the cited median baselines (baselines.ts) with the
 * documented spreads below. The grade cutoffs are its quantiles; the unit tests, the population
 * chart (scripts/population-chart.ts) and the sandbox's metric history (src/sandbox/metrics.ts) all
 * generate accounts here. Pure and deterministic: a seeded PRNG, no clock, no I/O.
 */
import { baselineV2 } from './baselines.ts';
import { formatDay, requireDay } from '../../../core/days.ts';
import { type Platform, PLATFORMS } from '../../../core/catalog.ts';
import type { DailySnapshot } from '../../../core/metric-snapshot.ts';

/** mulberry32: tiny, fast, seedable; the same stream on every machine. */
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

/** Standard normal draw (Box-Muller) from a uniform source. */
export function gaussian(rnd: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - rnd())) * Math.cos(2 * Math.PI * rnd());
}

/**
 * Spreads of the reference population: sd of the natural log of each account's multiple of the
 * median (views, engagement per view, posts), or of an additive draw (growth in multiples of the
 * median growth, net sentiment). Where a source gives a range we read it as the interquartile range,
 * so sd = ln(high / low) / 1.349 (ASSUMPTION: the compilations do not say what their ranges are).
 */
export const REFERENCE_SPREADS = {
  /**
   * Instagram reach-rate ranges per tier 20-40%, 15-30%, 10-20%, 5-12% (startmotionmedia, mid-2024):
   * ~0.55 in all, of which the drift below takes 0.2: sqrt(0.55^2 - 0.2^2) = 0.51.
   */
  views: 0.51,
  /**
   * Engagement per view: the same compilation's engagement-per-follower ranges (2-5%, 1-3%, 0.7-1.5%,
   * 0.3-1%) give ~0.74 for engagement per follower = views x engagement per view; with independent
   * factors sqrt(0.74^2 - 0.55^2) = 0.5.
   */
  engagement: 0.5,
  /** Rival IQ TikTok 2024: median ~2 videos a week, top quarter at least 4: ln 2 / 0.674 = 1.0. */
  posts: 1.0,
  /** ASSUMPTION: monthly growth = median x (1 + 1.0 z): a quarter of accounts grow at most a third of the median. */
  growth: 1.0,
  /** ASSUMPTION: net sentiment 0.3 +/- 0.2 (clamped to +/-0.6, the most 40% neutral items allow). */
  netSentiment: 0.2,
  /**
   * ASSUMPTION: accounts are not stationary. Their views (and so engagement) follow a mean-reverting
   * log level (Ornstein-Uhlenbeck) with this stationary sd and time constant, so that windows hold
   * real rises and slowdowns (the momentum pillar) without two years of history drifting away.
   */
  drift: { sd: 0.2, days: 60 },
} as const;

/** Follower counts of the reference population: log-uniform over the baselines' range. */
export const REFERENCE_FOLLOWER_RANGE = { min: 1_000, max: 10_000_000 } as const;

/** An account's quality: multiples of the median account of its platform and size. */
export interface AccountQuality {
  viewsFactor: number;
  engagementFactor: number;
  postsFactor: number;
  growthFactor: number;
  netSentiment: number;
}

export interface ReferenceProfile extends AccountQuality {
  platform: Platform;
  followers: number;
}

/** Standard normal draws behind an account's quality, in QUALITY_FACTORS order. */
export type QualityNormals = readonly [number, number, number, number, number];
export const QUALITY_FACTORS = ['views', 'engagement', 'posts', 'growth', 'netSentiment'] as const;

/** The quality at standard normal draws `z` (QUALITY_FACTORS order) of the reference spreads. */
export function qualityFromNormals(z: QualityNormals): AccountQuality {
  const s = REFERENCE_SPREADS;
  return {
    viewsFactor: Math.exp(s.views * z[0]),
    engagementFactor: Math.exp(s.engagement * z[1]),
    postsFactor: Math.exp(s.posts * z[2]),
    growthFactor: 1 + s.growth * z[3],
    netSentiment: Math.max(-0.6, Math.min(0.6, 0.3 + s.netSentiment * z[4])),
  };
}

/** Five standard normal draws, in QUALITY_FACTORS order. */
export function drawNormals(rnd: () => number): QualityNormals {
  return [gaussian(rnd), gaussian(rnd), gaussian(rnd), gaussian(rnd), gaussian(rnd)];
}

/** One account's quality drawn from the reference spreads (independent factors). */
export function drawQuality(rnd: () => number): AccountQuality {
  return qualityFromNormals(drawNormals(rnd));
}

export function drawFollowers(rnd: () => number): number {
  const { min, max } = REFERENCE_FOLLOWER_RANGE;
  return Math.round(min * (max / min) ** rnd());
}

export interface AccountOptions extends Partial<AccountQuality> {
  seed: number;
  platform: Platform;
  /** First day, YYYY-MM-DD. */
  from: string;
  days: number;
  /** Starting audience. */
  followers: number;
  /** Day-to-day multiplicative noise (sd of a log-normal factor); default 0.25. */
  noise?: number;
  /** Keep fractional counts (no rounding), for exact continuity sweeps; default false (stochastic rounding). */
  exact?: boolean;
  /** Yearly season on views (and so engagement): 1 + amplitude x sin(2 pi day / 365 + phase). Default none. */
  season?: { amplitude: number; phase: number };
  /** Mean-reverting log level of views (REFERENCE_SPREADS.drift); default none (stationary). */
  drift?: { sd: number; days: number };
  /** profileCompleteness of every day (formula v1 reads it); default 0.8. */
  completeness?: number;
  /** Baseline the factors multiply; default formula v2's baselineV2 (tests inject others for sweeps). */
  baseline?: (
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
  const baseline = o.baseline ?? baselineV2;
  const start = requireDay(o.from, 'from');
  const noise = o.noise ?? 0.25;
  // With 40% neutral items, net sentiment can only be +/-0.6 (no negative count).
  const net = Math.max(-0.6, Math.min(0.6, o.netSentiment ?? 0.3));
  const out: DailySnapshot[] = [];
  // Stochastic rounding keeps small accounts' expected counts (plain rounding turns 0.4 comments into none).
  const round = o.exact ? (x: number) => x : (x: number) => Math.floor(x + rnd());
  let followers = o.followers;
  const keep = o.drift ? Math.exp(-1 / o.drift.days) : 0;
  const shock = o.drift ? o.drift.sd * Math.sqrt(1 - keep * keep) : 0;
  // Started from its stationary distribution, so the first day is no different from any other.
  let level = o.drift ? o.drift.sd * gaussian(rnd) : 0;
  const levelMean = o.drift ? (o.drift.sd * o.drift.sd) / 2 : 0;
  for (let d = 0; d < o.days; d++) {
    if (o.drift && d > 0) level = keep * level + shock * gaussian(rnd);
    const g = baseline(o.platform, followers).monthlyGrowth * (o.growthFactor ?? 1);
    followers *= Math.exp(Math.log1p(g) / 30 + gaussian(rnd) * 0.0005);
    const b = baseline(o.platform, followers);
    // Expected posts a day; above one a day the whole part is certain and the rest a draw, so the
    // expectation holds at every rate (one uniform draw either way).
    const rate = (b.postsPerWeek * (o.postsFactor ?? 1)) / 7;
    const whole = Math.floor(rate);
    const posts = whole + (rnd() < rate - whole ? 1 : 0);
    const lift = posts > 0 ? 1.3 : 0.85;
    const season = o.season
      ? 1 + o.season.amplitude * Math.sin((2 * Math.PI * (start + d)) / 365 + o.season.phase)
      : 1;
    // Mean of the lift mix is ~1 at the median posting rate.
    const views =
      followers *
      b.viewsPerFollowerDay *
      (o.viewsFactor ?? 1) *
      season *
      Math.exp(level - levelMean) *
      lift *
      Math.exp(gaussian(rnd) * noise - (noise * noise) / 2);
    const E = views * b.engagementPerView * (o.engagementFactor ?? 1) * Math.exp(gaussian(rnd) * noise * 0.5);
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
      profileCompleteness: o.completeness ?? 0.8,
    });
  }
  return out;
}

export interface ReferenceAccount {
  profile: ReferenceProfile;
  snapshots: DailySnapshot[];
}

/**
 * `n` accounts of the reference population: platforms in turn, followers log-uniform over
 * REFERENCE_FOLLOWER_RANGE, quality from drawQuality; `days` of history from `from`.
 */
export function referencePopulation(o: {
  seed: number;
  n: number;
  from: string;
  days: number;
  /** Baseline the accounts are drawn around; default formula v2's (formula v3 passes its re-based ones). */
  baseline?: AccountOptions['baseline'];
}): ReferenceAccount[] {
  const rnd = prng(o.seed);
  const out: ReferenceAccount[] = [];
  for (let i = 0; i < o.n; i++) {
    const platform = PLATFORMS[i % PLATFORMS.length]!;
    const followers = drawFollowers(rnd);
    const quality = drawQuality(rnd);
    const accountSeed = Math.floor(rnd() * 4294967296);
    out.push({
      profile: { platform, followers, ...quality },
      snapshots: accountSnapshots({
        seed: accountSeed,
        platform,
        from: o.from,
        days: o.days,
        followers,
        drift: REFERENCE_SPREADS.drift,
        ...(o.baseline ? { baseline: o.baseline } : {}),
        ...quality,
      }),
    });
  }
  return out;
}
