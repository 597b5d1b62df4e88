import { commentsSince, completeness, count, DayBook, dayOf } from './daybook.ts';
import { partial, type ApiClient, type PlatformAnswer, type PlatformFault } from './http.ts';
import type { PartialFailure, PlatformConnector } from './types.ts';
import { addDays } from '../../core/days.ts';

/**
 * TikTok API for Business answers: `{code, message, request_id, data}`, code 0 for success. Errors come
 * in the same envelope, with HTTP 200 (return codes: https://business-api.tiktok.com/portal/docs?id=1738373164380162).
 */
interface Envelope<T> {
  code: number;
  message?: string;
  request_id?: string;
  data: T;
}

interface BusinessAccount {
  username?: string;
  display_name?: string;
  profile_image?: string;
  bio_description?: string;
  followers_count?: number;
  metrics?: Array<{
    date?: string;
    followers_count?: number;
    video_views?: number;
    likes?: number;
    comments?: number;
    shares?: number;
  }>;
}

interface VideoList {
  videos?: Array<{ item_id?: string; create_time?: number | string }>;
  cursor?: number;
  has_more?: boolean;
}

interface CommentList {
  comments?: Array<{ text?: string; create_time?: number | string }>;
  cursor?: number;
  has_more?: boolean;
}

/**
 * Days of daily account metrics /business/get/ goes back: "the maximum lookback period is 60 days"
 * (start_date, https://business-api.tiktok.com/portal/docs?id=1762228399168514), counted here from the
 * last day asked for (today, on a scheduled sync) so the oldest day is never refused.
 */
export const TIKTOK_LOOKBACK_DAYS = 59;
/** Recent videos whose comments are read for sentiment, and comments a page (the endpoint's max, 30). */
export const TIKTOK_COMMENT_VIDEOS = 10;
export const TIKTOK_COMMENTS_PER_VIDEO = 30;
/**
 * Comment pages read per sync beyond each video's first: every comment of a video is read by paging
 * (`cursor` and `has_more`, https://ads.tiktok.com/marketing_api/docs?id=1733329505077250), newest video
 * first, up to 40 more pages (1,200 comments) a sync.
 */
export const TIKTOK_COMMENT_PAGES_MAX = 40;

/** Envelope codes (Business API return codes). */
const CODE = {
  ok: 0,
  noPermission: 40001,
  notFound: 40007,
  rateLimited: 40100,
  tokenInvalid: 40105,
} as const;

/** A scope the message names (TikTok names the missing permission in some refusals). */
const SCOPE_IN_MESSAGE = /\b((?:user|video|comment|biz)\.[a-z]+(?:\.[a-z]+)*)\b/;

/** Unix seconds as a number or a numeric string (TikTok sends both), as epoch seconds. */
const unixSeconds = (v: unknown): number | undefined => {
  const n = typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v;
  return typeof n === 'number' && Number.isFinite(n) ? n : undefined;
};

/**
 * Reads a Business API answer by its envelope: HTTP 200 carries errors too. Code 40105 (access token
 * invalid, expired or revoked) is a refused token; 40100 a rate limit; 40001 a permission the token
 * lacks; 40007 (object not found) an account gone when the call addresses the account itself; TikTok's
 * 5xxxx codes an outage; any other non-zero code a request TikTok refused. An answer with no envelope
 * is left to the HTTP reading (a gateway's 5xx page).
 */
export function tiktokFault(answer: PlatformAnswer): PlatformFault | null {
  const j = answer.json as { code?: unknown; message?: unknown } | undefined;
  if (typeof j !== 'object' || j === null || typeof j.code !== 'number') {
    if (answer.status >= 200 && answer.status < 300) {
      return { kind: 'invalid_response', message: 'the answer is not a Business API envelope' };
    }
    return null;
  }
  if (j.code === CODE.ok) return null;
  const message = `code ${j.code}: ${String(j.message ?? '').slice(0, 300)}`;
  if (j.code === CODE.tokenInvalid) return { kind: 'token_refused', message };
  if (j.code === CODE.rateLimited) return { kind: 'throttled', message };
  if (j.code === CODE.noPermission) {
    return { kind: 'permission_missing', message, scope: SCOPE_IN_MESSAGE.exec(message)?.[1] ?? null };
  }
  if (j.code === CODE.notFound && /\/business\/(get|video\/list)\/$/.test(answer.path)) {
    return { kind: 'account_gone', message };
  }
  if (j.code >= 50000) return { kind: 'unavailable', message };
  return { kind: 'invalid_request', message };
}

/**
 * TikTok API for Business, TikTok account holders (the token's `open_id` is the `business_id`):
 * /business/get/ gives the account and its daily metrics (followers_count, video_views, likes,
 * comments, shares) for at most the last TIKTOK_LOOKBACK_DAYS days; /business/video/list/ the videos'
 * create_time (posts a day); /business/comment/list/ the comments of the most recent videos (sentiment).
 * Days before the lookback are beyond TikTok's retention: no snapshot is returned for them (not
 * reported, rather than reported as zero). The latest days, whose metrics arrive 24 to 48 hours late,
 * carry the audience and the posts until a later sync re-reads them (src/ingest/sync.ts).
 */
export const tiktokConnector: PlatformConnector = {
  platform: 'tiktok',
  defaultBaseUrls: { business: 'https://business-api.tiktok.com/open_api/v1.3' },
  authHeaders: (token) => ({ 'access-token': token }),
  readFault: tiktokFault,

  async fetchSnapshots(api: ApiClient, account, range) {
    const businessId = account.accountId || account.handle;
    const earliest = addDays(range.until, -TIKTOK_LOOKBACK_DAYS);
    const window = { since: range.since > earliest ? range.since : earliest, until: range.until };

    const { data: profile } = await api.get<Envelope<BusinessAccount>>('business', '/business/get/', {
      business_id: businessId,
      start_date: window.since,
      end_date: window.until,
      fields: JSON.stringify([
        'username',
        'display_name',
        'profile_image',
        'bio_description',
        'followers_count',
        'video_views',
        'likes',
        'comments',
        'shares',
      ]),
    });
    const book = new DayBook(window);
    const reported = new Map<string, number>();
    for (const m of profile?.metrics ?? []) {
      if (!m.date || !book.days.includes(m.date)) continue;
      book.add(m.date, 'impressions', m.video_views);
      book.add(m.date, 'likes', m.likes);
      book.add(m.date, 'comments', m.comments);
      book.add(m.date, 'shares', m.shares);
      if (m.followers_count !== undefined) reported.set(m.date, count(m.followers_count));
    }

    // Newest first: once a page reaches before the window's comment window, the rest is older still.
    // Videos before the window bring only their comments written in it.
    const commentsFrom = commentsSince(window);
    const recent: Array<{ id: string; day: string }> = [];
    let cursor: number | undefined;
    for (;;) {
      const { data: page } = await api.get<Envelope<VideoList>>('business', '/business/video/list/', {
        business_id: businessId,
        fields: JSON.stringify(['item_id', 'create_time']),
        max_count: 20,
        cursor,
      });
      let older = false;
      for (const v of page?.videos ?? []) {
        const day = dayOf(unixSeconds(v.create_time));
        book.add(day, 'posts', 1);
        if (day !== null && day < commentsFrom) older = true;
        else if (day !== null && day <= window.until && v.item_id) recent.push({ id: v.item_id, day });
      }
      if (!page?.has_more || older || page.cursor === undefined) break;
      cursor = page.cursor;
    }

    const failures: PartialFailure[] = [];
    let morePages = 0;
    videos: for (const video of recent.slice(0, TIKTOK_COMMENT_VIDEOS)) {
      let cursor: number | undefined;
      for (;;) {
        const page = await partial(
          failures,
          { call: 'GET /business/comment/list/', metric: 'comments' },
          null,
          () =>
            api.get<Envelope<CommentList>>('business', '/business/comment/list/', {
              business_id: businessId,
              video_id: video.id,
              max_count: TIKTOK_COMMENTS_PER_VIDEO,
              cursor,
            }),
        );
        if (!page) {
          // Without the permission no other video's comments can be read either.
          if (failures.at(-1)?.kind === 'permission_missing') break videos;
          break;
        }
        for (const c of page.data?.comments ?? [])
          book.addComment(video.day, dayOf(unixSeconds(c.create_time)), c.text);
        const next = page.data?.cursor;
        if (!page.data?.has_more || next === undefined || next === cursor) break;
        if (morePages >= TIKTOK_COMMENT_PAGES_MAX) break videos;
        morePages += 1;
        cursor = next;
      }
    }

    const followers = count(profile?.followers_count);
    // TikTok reports each day's total itself; a day without one keeps the next known total.
    const snapshots = book.snapshots(
      'tiktok',
      followers,
      completeness([profile?.display_name, profile?.bio_description, profile?.profile_image]),
    );
    let later = followers;
    for (let i = snapshots.length - 1; i >= 0; i--) {
      const s = snapshots[i]!;
      later = reported.get(s.day) ?? later;
      s.followers = later;
    }
    return { snapshots, followers, ...(failures.length ? { failures } : {}) };
  },
};
