import { addDays, dayNumber, formatDay } from '../core/days.ts';
import type { Platform } from '../core/catalog.ts';

/**
 * Deterministic synthetic accounts: every number is a pure function of (platform, handle, day), so
 * two simulators (or two runs) agree, a re-read of a day returns the same values, and an account's
 * history "grows" only because the simulator's clock reveals one more day.
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
  commentTexts: Array<{ text: string; at: string }>;
  mentions: Array<{ id: string; text: string; at: string }>;
}

const POSITIVE = ['Love this, wonderful quality!', 'Great service, thank you', 'Amazing new collection'];
const NEUTRAL = ['When does the store open?', 'Is this available in blue?', 'Saw this today'];
const NEGATIVE = ['My order is late and support is awful', 'Terrible experience, very disappointed'];

export class SyntheticAccount {
  readonly platform: Platform;
  readonly handle: string;
  readonly #seed: string;
  /** Audience on HISTORY_START. */
  readonly baseFollowers: number;
  /** Daily growth rate of the audience. */
  readonly growth: number;

  constructor(platform: Platform, handle: string) {
    this.platform = platform;
    this.handle = handle;
    this.#seed = `${platform}|${handle}`;
    this.baseFollowers = 2_000 + Math.floor(unit(`${this.#seed}|base`) * 48_000);
    this.growth = 0.0004 + unit(`${this.#seed}|growth`) * 0.0016;
  }

  /** A stable numeric id for the account on its platform. */
  get numericId(): string {
    return String(1_000_000_000 + (hash(this.#seed) % 8_999_999_999));
  }

  followersOn(day: string): number {
    const n = Math.max(0, dayNumber(day) - dayNumber(HISTORY_START));
    const wobble = Math.round((unit(`${this.#seed}|f|${day}`) - 0.5) * this.baseFollowers * 0.002);
    return Math.max(0, Math.round(this.baseFollowers * (1 + this.growth) ** n) + wobble);
  }

  metrics(day: string): DayMetrics {
    const k = `${this.#seed}|${day}`;
    const weekday = new Date(`${day}T00:00:00Z`).getUTCDay();
    const season = weekday === 0 || weekday === 6 ? 0.8 : 1.1;
    const followers = this.followersOn(day);
    const impressions = Math.round(followers * (0.05 + unit(`${k}|imp`) * 0.15) * season);
    const likes = Math.round(impressions * (0.02 + unit(`${k}|like`) * 0.05));
    const comments = Math.round(likes * (0.03 + unit(`${k}|com`) * 0.07));
    const shares = Math.round(likes * (0.01 + unit(`${k}|sh`) * 0.04));
    const saves = Math.round(likes * unit(`${k}|sv`) * 0.05);
    const postCount = Math.floor(unit(`${k}|posts`) * 3);
    const posts = Array.from({ length: postCount }, (_, i) => ({
      id: `${this.numericId}${formatDay(dayNumber(day)).replace(/-/g, '')}${i}`,
      at: `${day}T${String(9 + i * 4).padStart(2, '0')}:00:00Z`,
    }));
    const texts = [...POSITIVE, ...POSITIVE, ...NEUTRAL, ...NEGATIVE];
    const commentTexts = Array.from({ length: Math.min(comments, 3) }, (_, i) => ({
      text: texts[Math.floor(unit(`${k}|t${i}`) * texts.length)]!,
      at: `${day}T${String(10 + i * 3).padStart(2, '0')}:30:00Z`,
    }));
    const mentions = Array.from({ length: Math.floor(unit(`${k}|men`) * 3) }, (_, i) => ({
      id: `${this.numericId}${day.replace(/-/g, '')}9${i}`,
      text: `@${this.handle} ${texts[Math.floor(unit(`${k}|m${i}`) * texts.length)]!}`,
      at: `${day}T${String(11 + i * 2).padStart(2, '0')}:15:00Z`,
    }));
    return { day, followers, impressions, likes, comments, shares, saves, posts, commentTexts, mentions };
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
