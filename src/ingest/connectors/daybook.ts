import { SentimentTally } from '../../scoring/engine/index.ts';
import type { DayRange, PostComments } from './types.ts';
import { addDays, isCalendarDay, parseIsoInstant, utcDay } from '../../core/days.ts';
import type { Platform } from '../../core/catalog.ts';
import type { DailySnapshot } from '../../core/metric-snapshot.ts';

type Counter = 'posts' | 'impressions' | 'likes' | 'comments' | 'shares' | 'saves' | 'mentions';

/** A non-negative finite number from an API value (YouTube sends counts as strings); 0 otherwise. */
export function count(value: unknown): number {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof n === 'number' && Number.isFinite(n) && n >= 0 ? Math.round(n) : 0;
}

/**
 * The instant of a platform API's timestamp; null when unreadable. Unix seconds (TikTok), or ISO 8601
 * with `Z` or an offset, with or without its colon (Graph writes `2025-03-01T14:02:11+0000`), read by
 * core/days.ts's strict parseIsoInstant: a timestamp that names no real instant is unreadable.
 */
export function platformInstant(value: unknown): Date | null {
  if (typeof value === 'string') return parseIsoInstant(value)?.instant ?? null;
  if (typeof value !== 'number') return null;
  const at = new Date(value * 1000);
  return Number.isNaN(at.getTime()) ? null : at;
}

/** UTC day of a platform API's timestamp (platformInstant); null when unreadable. */
export function dayOf(value: unknown): string | null {
  const at = platformInstant(value);
  return at ? utcDay(at) : null;
}

/** Share of profile fields that are filled in, 0..1. */
export function completeness(fields: unknown[]): number {
  if (fields.length === 0) return 1;
  return fields.filter((f) => typeof f === 'string' && f.trim() !== '').length / fields.length;
}

/**
 * A post's comments count towards sentiment, on the day each was written, for this many days from the
 * post's day. One rule whatever range a sync reads: a sync reads the posts of this many days before its
 * range too (`commentsSince`), so a daily re-read of the last days sees the same comments on those days
 * as the long first sync did, and never rewrites a day with fewer of them.
 */
export const COMMENT_WINDOW_DAYS = 30;

/** The first post day whose comments can fall in the range. */
export function commentsSince(range: DayRange): string {
  return addDays(range.since, -(COMMENT_WINDOW_DAYS - 1));
}

/** Per-day totals for one platform over a range; values for days outside it are ignored. */
export class DayBook {
  readonly days: string[] = [];
  readonly #rows = new Map<string, Record<Counter, number> & { sentiment: SentimentTally }>();
  readonly #net = new Map<string, number>();
  /** Days whose audience change is only half known (gains without losses). */
  readonly #unknownNet = new Set<string>();

  constructor(range: DayRange) {
    for (let d = range.since; d <= range.until; d = addDays(d, 1)) {
      this.days.push(d);
      this.#rows.set(d, {
        posts: 0,
        impressions: 0,
        likes: 0,
        comments: 0,
        shares: 0,
        saves: 0,
        mentions: 0,
        sentiment: new SentimentTally(),
      });
    }
  }

  add(day: string | null, field: Counter, value: unknown): void {
    const row = day ? this.#rows.get(day) : undefined;
    if (row) row[field] += count(value);
  }

  /** Each post's lifetime comment count as read, for deletions between syncs (PostComments). */
  readonly #posts: PostComments[] = [];

  /**
   * A post's lifetime comment count, booked on its day like `add(day, 'comments', n)`, and kept per post
   * so the sync can see it fall below what an earlier sync read (comments deleted).
   */
  addPostComments(
    postId: unknown,
    day: string | null,
    value: unknown,
    authors?: Pick<PostComments, 'attributed' | 'repeat' | 'early'>,
  ): void {
    this.add(day, 'comments', value);
    // Posts before the range too (a sync reads the posts of COMMENT_WINDOW_DAYS for their comments):
    // a deletion on an older post is seen while the post is read.
    if (day && isCalendarDay(day) && typeof postId === 'string' && postId && postId.length <= 200) {
      this.#posts.push({ id: postId, day, comments: count(value), ...authors });
    }
  }

  /** The posts' comment counts read (addPostComments), in the order read. */
  postComments(): PostComments[] {
    return this.#posts;
  }

  /**
   * A comment on a post: classified on the day it was written when that is within COMMENT_WINDOW_DAYS of
   * the post's day (a comment dated before its post, a skewed clock, counts on its own day).
   */
  addComment(postDay: string | null, day: string | null, text: unknown): void {
    const on = day ?? postDay;
    if (!postDay || !on || on >= addDays(postDay, COMMENT_WINDOW_DAYS)) return;
    this.addText(on, text);
  }

  /** Classifies a comment or mention and counts it on its day. */
  addText(day: string | null, text: unknown): void {
    const row = day ? this.#rows.get(day) : undefined;
    if (!row || typeof text !== 'string' || !text.trim()) return;
    // Text in a language no model covers is counted as unscored (not silently neutral).
    row.sentiment.add(text);
  }

  /** Net audience change on a day (gained minus lost, both reported), for rebuilding daily totals. */
  addNetFollowers(day: string | null, value: number): void {
    if (day && Number.isFinite(value)) this.#net.set(day, (this.#net.get(day) ?? 0) + value);
  }

  /**
   * New followers on a day where the platform does not report the ones lost (Instagram's
   * `follower_count`). The day's net change is unknown, so the audience before it cannot be rebuilt:
   * subtracting gains alone would make every account that also lost followers look as if it grew.
   */
  addFollowerGains(day: string | null, value: number): void {
    if (day && Number.isFinite(value)) this.#unknownNet.add(day);
  }

  /**
   * Snapshots for every day. Audience on day d is the current count minus the net change reported
   * after d (APIs give today's total and daily changes, not daily totals). Back from the latest day
   * whose net change is unknown, the audience is carried at the last count that could be rebuilt:
   * the stored history then comes from the counts each daily sync reads, not from a guess.
   * `engagementDating` 'post': the engagement counts are posts' lifetime totals booked on their day.
   */
  /**
   * The audience of each day, walked back from today's count by the days' net changes. A day before
   * the first whose change is unknown (Instagram reports gains only; X no history at all) carries the
   * count of the day after it: an estimate, not a figure the platform reported.
   */
  #audience(currentFollowers: number): { followers: Map<string, number>; estimatedThrough: string | null } {
    const followers = new Map<string, number>();
    let running = currentFollowers;
    let frozen = false;
    let estimatedThrough: string | null = null;
    const anyNet = this.#net.size > 0;
    for (let i = this.days.length - 1; i >= 0; i--) {
      const day = this.days[i]!;
      followers.set(day, Math.max(0, Math.round(running)));
      if (i < this.days.length - 1 && (frozen || !anyNet) && estimatedThrough === null)
        estimatedThrough = day;
      if (this.#unknownNet.has(day)) frozen = true;
      if (!frozen) running -= this.#net.get(day) ?? 0;
    }
    return { followers, estimatedThrough };
  }

  /**
   * The latest day (before the range's last) whose audience is carried rather than reported, null when
   * every day's is reported: a sync keeps the audience it stored for those days (src/ingest/store.ts), so
   * a re-read does not rewrite a past day with today's count.
   */
  followersEstimatedThrough(): string | null {
    return this.#audience(0).estimatedThrough;
  }

  snapshots(
    platform: Platform,
    currentFollowers: number,
    profileCompleteness: number,
    engagementDating: 'day' | 'post' = 'day',
  ): DailySnapshot[] {
    const { followers } = this.#audience(currentFollowers);
    return this.days.map((day) => {
      const r = this.#rows.get(day)!;
      return {
        platform,
        day,
        followers: followers.get(day)!,
        posts: r.posts,
        impressions: r.impressions,
        likes: r.likes,
        comments: r.comments,
        shares: r.shares,
        saves: r.saves,
        mentions: r.mentions,
        ...r.sentiment.fields(),
        profileCompleteness: Math.min(1, Math.max(0, profileCompleteness)),
        engagementDating,
      };
    });
  }
}
