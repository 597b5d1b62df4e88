/**
 * Deterministic synthetic snapshots (seeded PRNG) for the scoring tests.
 * Test data only: nothing in src/ uses it.
 */
import { formatDay, requireDay } from '../../src/core/days.ts';
import { type Platform, PLATFORMS } from '../../src/core/catalog.ts';
import type { DailySnapshot } from '../../src/core/metric-snapshot.ts';
// The same seeded PRNG as the reference population, so fixtures and population draw one stream.
import { prng } from '../../src/scoring/engine/v2/reference-population.ts';

export { prng };

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

/**
 * One account at multiples of the median account of its size: the reference population's
 * generator, which lives in src so the sandbox and the population chart use the same one.
 */
export { accountSnapshots, type AccountOptions } from '../../src/scoring/engine/v2/reference-population.ts';

const ENGAGEMENT_COUNTS = ['likes', 'comments', 'shares', 'saves', 'mentions'] as const;

export interface PostDatedOptions {
  /** Impressions per post too (X's public_metrics): a post day carries its interval's views, other days none. */
  views?: boolean;
  /**
   * How a post earns its engagement: undefined, the days up to the next post are its own (the
   * simulator's Graph answers); a number of days tau, each day's engagement is shared by the posts
   * of the 60 days before it, weighted by posts x exp(-age / tau) (a post earns most of its
   * engagement in its first days, alongside the posts after it).
   */
  accrualDays?: number;
  /** Say so in the snapshots (engagementDating 'post'), as the Instagram and Facebook connectors do. */
  mark?: boolean;
}

/**
 * The same account as a source that reads each post's lifetime totals sees it (the Instagram and
 * Facebook connectors): its engagement booked on the posts' days, other days none; views and
 * classified comments stay on their own days. Engagement before the first post belongs to an
 * earlier post and is lost. Rounded to whole counts only with `accrualDays`.
 */
export function postDated(snapshots: readonly DailySnapshot[], o: PostDatedOptions = {}): DailySnapshot[] {
  const fields = o.views ? (['impressions', ...ENGAGEMENT_COUNTS] as const) : ENGAGEMENT_COUNTS;
  const out = snapshots.map((s) => ({ ...s, ...(o.mark ? { engagementDating: 'post' as const } : {}) }));
  const booked = out.map(() => new Map<string, number>());
  // One platform at a time, in day order.
  const byPlatform = new Map<string, number[]>();
  out.forEach((s, i) => byPlatform.set(s.platform, [...(byPlatform.get(s.platform) ?? []), i]));
  for (const days of byPlatform.values()) {
    days.sort((x, y) => out[x]!.day.localeCompare(out[y]!.day));
    for (let k = 0; k < days.length; k++) {
      // The posts this day's engagement goes to, with their weights.
      const to: [number, number][] = [];
      for (let j = k; j >= 0 && k - j <= 60; j--) {
        const posts = Number(out[days[j]!]!.posts);
        if (!(posts > 0)) continue;
        if (o.accrualDays === undefined) {
          to.push([days[j]!, 1]);
          break;
        }
        to.push([days[j]!, posts * Math.exp(-(k - j) / o.accrualDays)]);
      }
      const total = to.reduce((t, [, w]) => t + w, 0);
      for (const [p, w] of to)
        for (const f of fields)
          booked[p]!.set(f, (booked[p]!.get(f) ?? 0) + (Number(snapshots[days[k]!]![f]) * w) / total);
    }
  }
  for (const [i, s] of out.entries())
    for (const f of fields) {
      const v = booked[i]!.get(f) ?? 0;
      s[f] = o.accrualDays === undefined ? v : Math.round(v);
    }
  return out;
}

/** The snapshots of days fromDay..toDay (YYYY-MM-DD compare) mapped through f (k: days from fromDay); the rest as they are. */
export function alter(
  snaps: readonly DailySnapshot[],
  fromDay: string,
  toDay: string,
  f: (s: DailySnapshot, k: number) => DailySnapshot,
): DailySnapshot[] {
  return snaps.map((s) => {
    if (s.day < fromDay || s.day > toDay) return s;
    const k = Math.round((Date.parse(s.day) - Date.parse(fromDay)) / 86_400_000);
    return f({ ...s }, k);
  });
}

/**
 * Comments whose author and time were read (the Instagram connector's comment-authors.ts), as an honest
 * audience gives them: every comment of a post day attributed, about `repeat` of them by accounts that
 * comment on many of its posts and `early` of them within an hour of their post (binomial draws, seeded).
 */
export function withAuthors(
  snaps: readonly DailySnapshot[],
  seed: number,
  o: { repeat?: number; early?: number } = {},
): DailySnapshot[] {
  const rand = prng(seed * 7919 + 17);
  const draw = (count: number, p: number) => {
    let k = 0;
    for (let i = 0; i < count; i++) if (rand() < p) k++;
    return k;
  };
  return snaps.map((s) => {
    const attributed = s.posts > 0 ? Math.max(0, Math.round(s.comments)) : 0;
    return {
      ...s,
      commentsAttributed: attributed,
      commentsRepeat: draw(attributed, o.repeat ?? 0.1),
      commentsEarly: draw(attributed, o.early ?? 0.3),
    };
  });
}
