import { addDays, dayNumber, formatDay } from '../src/core/days.ts';
import { baselineV2 } from '../src/scoring/engine/v2/baselines.ts';
import type { Platform } from '../src/core/catalog.ts';

/**
 * Deterministic synthetic accounts: every number is a pure function of (platform, handle, day), so
 * two simulators (or two runs) agree, a re-read of a day returns the same values, and an account's
 * history "grows" only because the simulator's clock reveals one more day.
 *
 * Each is a steady, typical account: it posts, is seen, is engaged with and grows at formula v2's
 * median rates for its platform and size (baselineV2), with day-to-day noise and the same post-day
 * lift and interaction mix as the reference population's median account
 * (src/scoring/engine/v2/reference-population.ts), so it scores near 50 (moderate) under v2.
 */

/** FNV-1a, 32 bits: a stable seed from a string. */
export function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** A uniform number in [0, 1) for a key. */
function unit(key: string): number {
  let x = hash(key) || 1;
  x ^= x << 13;
  x ^= x >>> 17;
  x ^= x << 5;
  return (x >>> 0) / 2 ** 32;
}

/** First day any synthetic account has data. */
export const HISTORY_START = '2024-01-01';

export interface DayMetrics {
  day: string;
  /** Audience at the end of the day. */
  followers: number;
  impressions: number;
  likes: number;
  comments: number;
  shares: number;
  saves: number;
  posts: Array<{ id: string; at: string }>;
  /** Comment texts with their time and commenter's id (Instagram's `from.id`). */
  commentTexts: Array<{ text: string; at: string; by: string }>;
  mentions: Array<{ id: string; text: string; at: string }>;
}

// Comment pools in the median account's mix: 45% positive, 40% neutral, 15% negative (net
// sentiment 0.3, MEDIAN_NET_SENTIMENT), each text read that way by the default classifier.
// prettier-ignore
const COMMENTS: readonly (readonly [string, number])[] = [
  ['Love this, wonderful quality!', 0.15], ['Great service, thank you', 0.15], ['Amazing new collection', 0.15],
  ['When does the store open?', 0.14], ['Is this available in blue?', 0.13], ['Saw this today', 0.13],
  ['My order is late and support is awful', 0.08], ['Terrible experience, very disappointed', 0.07],
];

/** The negative end of COMMENTS: what a crisis's conversation is made of. */
const CRISIS_COMMENTS = COMMENTS.filter(([, share]) => share < 0.1).map(([text]) => text);

/**
 * A staged crisis (POST /_sim/crisis): from `from` for `days` days the account's audience complains. Comments
 * and mentions run at CRISIS_VOLUME times their usual volume and are all negative, up to CRISIS_TEXTS texts
 * a day; likes fall by a third. Views and followers go on as before, so the crisis shows in the
 * conversation, as the scoring engine's crisis signal reads it (docs/scoring.md "Crisis").
 */
export interface StagedCrisis {
  from: string;
  days: number;
}
const CRISIS_VOLUME = 4;
const CRISIS_TEXTS = 12;

/**
 * A staged engagement pod (POST /_sim/pod): from `from` for `days` days, `members` accounts like and
 * comment on every post within minutes of it going up, the same members every time (docs/scoring.md,
 * "Formula v3: authenticity"). Views go on as before.
 */
export interface StagedPod {
  from: string;
  days: number;
  members: number;
}
const POD_TEXTS = ['Amazing new collection', 'Love this, wonderful quality!', 'Great service, thank you'];

function commentText(u: number): string {
  let acc = 0;
  for (const [text, share] of COMMENTS) if ((acc += share) > u) return text;
  return COMMENTS[0]![0];
}

/** Standard normal draw from two uniforms (Box-Muller). */
function normal(u1: number, u2: number): number {
  return Math.sqrt(-2 * Math.log(1 - u1)) * Math.cos(2 * Math.PI * u2);
}

/** Day-to-day noise of views (sd of a log-normal factor), as the reference population's. */
const VIEW_NOISE = 0.25;
/** Views on a post day and on other days, relative to the mean (the reference population's lift mix). */
const POST_DAY_LIFT = 1.3;
const QUIET_DAY_LIFT = 0.85;

/** Lifetime totals of one post day's posts (SyntheticAccount.postTotals). */
export interface PostTotals {
  likes: number;
  comments: number;
  shares: number;
  saves: number;
  commentTexts: Array<{ text: string; at: string; by: string }>;
}

export class SyntheticAccount {
  readonly platform: Platform;
  readonly handle: string;
  readonly #seed: string;
  /** Audience on HISTORY_START. */
  readonly baseFollowers: number;
  /** Daily growth rate of the audience: the v2 median monthly growth at its starting size. */
  readonly growth: number;

  readonly #crises: readonly StagedCrisis[];
  readonly #pods: readonly StagedPod[];

  constructor(
    platform: Platform,
    handle: string,
    crises: readonly StagedCrisis[] = [],
    pods: readonly StagedPod[] = [],
  ) {
    this.platform = platform;
    this.handle = handle;
    this.#crises = crises;
    this.#pods = pods;
    this.#seed = `${platform}|${handle}`;
    this.baseFollowers = 2_000 + Math.floor(unit(`${this.#seed}|base`) * 48_000);
    this.growth = Math.log1p(baselineV2(platform, this.baseFollowers).monthlyGrowth) / 30;
  }

  /** A stable numeric id for the account on its platform. */
  get numericId(): string {
    return String(1_000_000_000 + (hash(this.#seed) % 8_999_999_999));
  }

  followersOn(day: string): number {
    const n = Math.max(0, dayNumber(day) - dayNumber(HISTORY_START));
    // A wobble of a tenth of a day's growth: followers never jump against the trend.
    const wobble = (unit(`${this.#seed}|f|${day}`) - 0.5) * 0.0001;
    return Math.max(0, Math.round(this.baseFollowers * Math.exp(this.growth * n + wobble)));
  }

  metrics(day: string): DayMetrics {
    const k = `${this.#seed}|${day}`;
    const followers = this.followersOn(day);
    const b = baselineV2(this.platform, followers);
    // Expected posts a day; above one a day the whole part is certain and the rest a draw.
    const rate = b.postsPerWeek / 7;
    const postCount = Math.floor(rate) + (unit(`${k}|posts`) < rate - Math.floor(rate) ? 1 : 0);
    const lift = postCount > 0 ? POST_DAY_LIFT : QUIET_DAY_LIFT;
    const noise = (name: string, sd: number) =>
      Math.exp(sd * normal(unit(`${k}|${name}1`), unit(`${k}|${name}2`)) - (sd * sd) / 2);
    const impressions = Math.round(followers * b.viewsPerFollowerDay * lift * noise('imp', VIEW_NOISE));
    // Weighted engagement at the median engagement per view, split like the reference population's
    // (2% comments, 1% shares, 1% saves, 0.5% mentions of the weighted total; likes the rest).
    const E = impressions * b.engagementPerView * noise('eng', VIEW_NOISE / 2);
    const crisis = this.#crises.some((c) => day >= c.from && dayNumber(day) < dayNumber(c.from) + c.days);
    const talk = crisis ? CRISIS_VOLUME : 1;
    const comments = Math.round(0.02 * E * talk);
    const shares = Math.round(0.01 * E);
    const saves = Math.round(0.01 * E);
    const mentionCount = Math.round(0.005 * E * talk);
    const likes = Math.max(
      0,
      Math.round(
        (E - 3 * saves - 3 * shares - (2 * (comments + mentionCount)) / talk) * (crisis ? 2 / 3 : 1),
      ),
    );
    const texts = crisis ? CRISIS_TEXTS : 3;
    const say = (u: number) =>
      crisis ? CRISIS_COMMENTS[Math.floor(u * CRISIS_COMMENTS.length)]! : commentText(u);
    const posts = Array.from({ length: postCount }, (_, i) => ({
      id: `${this.numericId}${formatDay(dayNumber(day)).replace(/-/g, '')}${i}`,
      at: `${day}T${String(9 + i * 4).padStart(2, '0')}:00:00Z`,
    }));
    // The audience's comments come from many different accounts.
    const commentTexts = Array.from({ length: Math.min(comments, texts) }, (_, i) => ({
      text: say(unit(`${k}|t${i}`)),
      at: crisis
        ? `${day}T${String(10 + Math.floor(i / 2)).padStart(2, '0')}:${i % 2 ? '45' : '30'}:00Z`
        : `${day}T${String(10 + i * 3).padStart(2, '0')}:30:00Z`,
      by: String(17_000_000_000 + (hash(`${k}|by${i}`) % 1_000_000_000)),
    }));
    // A pod's members: a like and a comment each on every post, within minutes of it.
    const members = this.#pods
      .filter((p) => day >= p.from && dayNumber(day) < dayNumber(p.from) + p.days)
      .reduce((t, p) => t + p.members, 0);
    for (const p of posts)
      for (let j = 0; j < members; j++)
        commentTexts.push({
          text: POD_TEXTS[j % POD_TEXTS.length]!,
          at: new Date(Date.parse(p.at) + (2 + (j % 40)) * 60_000).toISOString().replace('.000Z', 'Z'),
          by: String(18_000_000_000 + (hash(`${this.#seed}|pod|${j}`) % 1_000_000_000)),
        });
    const podEngagement = members * posts.length;
    const mentions = Array.from({ length: Math.min(mentionCount, texts) }, (_, i) => ({
      id: `${this.numericId}${day.replace(/-/g, '')}9${i}`,
      text: `@${this.handle} ${say(unit(`${k}|m${i}`))}`,
      at: crisis
        ? `${day}T${String(11 + Math.floor(i / 2)).padStart(2, '0')}:${i % 2 ? '50' : '15'}:00Z`
        : `${day}T${String(11 + i * 2).padStart(2, '0')}:15:00Z`,
    }));
    return {
      day,
      followers,
      impressions,
      likes: likes + podEngagement,
      comments: comments + podEngagement,
      shares,
      saves,
      posts,
      commentTexts,
      mentions,
    };
  }

  /**
   * The lifetime totals the platform reports on `today` for the posts of `day` (the Graph API's
   * like_count, comments_count and shares of a media object or Page post): a day's engagement
   * belongs to the posts of the latest post day on or before it, so they share the engagement of
   * their day and of the days up to the next post day, as far as `today` (a recent post has not
   * earned all of it yet). Null when `day` has no post. The account's own days stay the truth: the
   * totals of every post day sum exactly to the engagement of the days they cover.
   */
  postTotals(day: string, today: string): PostTotals | null {
    const m = this.metrics(day);
    if (m.posts.length === 0 || day > today) return null;
    const t: PostTotals = { likes: 0, comments: 0, shares: 0, saves: 0, commentTexts: [] };
    for (let d = day, n = m; ;) {
      t.likes += n.likes;
      t.comments += n.comments;
      t.shares += n.shares;
      t.saves += n.saves;
      t.commentTexts.push(...n.commentTexts);
      d = addDays(d, 1);
      if (d > today) break;
      n = this.metrics(d);
      if (n.posts.length > 0) break;
    }
    return t;
  }

  /** Metrics for each day of [since, until], clipped to the account's history and the simulator's today. */
  range(since: string, until: string, today: string): DayMetrics[] {
    const first = since < HISTORY_START ? HISTORY_START : since;
    const last = until > today ? today : until;
    const out: DayMetrics[] = [];
    for (let d = first; d <= last; d = addDays(d, 1)) out.push(this.metrics(d));
    return out;
  }
}
