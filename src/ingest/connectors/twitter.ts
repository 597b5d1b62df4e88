import { completeness, count, DayBook, dayOf } from './daybook.ts';
import {
  ConnectorError,
  errorMessage,
  retryAfterSeconds,
  type ApiClient,
  type PlatformAnswer,
  type PlatformFault,
} from './http.ts';
import type { PlatformConnector } from './types.ts';
import { addDays } from '../../core/days.ts';
import { wallClockMs } from '../../infra/wall-clock.ts';

interface XUser {
  data?: {
    id: string;
    name?: string;
    username?: string;
    description?: string;
    url?: string;
    profile_image_url?: string;
    public_metrics?: {
      followers_count?: number;
      following_count?: number;
      tweet_count?: number;
      like_count?: number;
    };
  };
  errors?: XProblem[];
}

/** One entry of an X API v2 `errors[]`, or a whole error answer (https://docs.x.com/x-api/fundamentals/response-codes-and-errors). */
interface XProblem {
  title?: string;
  detail?: string;
  type?: string;
  reason?: string;
  resource_type?: string;
}

interface XTweets {
  data?: Array<{
    id: string;
    text?: string;
    created_at?: string;
    public_metrics?: {
      retweet_count?: number;
      reply_count?: number;
      like_count?: number;
      quote_count?: number;
      bookmark_count?: number;
      impression_count?: number;
    };
  }>;
  meta?: { result_count?: number; next_token?: string };
}

/** Timelines are asked to end this long before now at the latest: never at or after the request time. */
export const END_TIME_MARGIN_MS = 30_000;
const USER_FIELDS = 'public_metrics,description,profile_image_url,url';

/** An X timestamp with second granularity, `YYYY-MM-DDTHH:mm:ssZ`. */
const xTime = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');

/** Follows `meta.next_token` of an X API v2 timeline. */
async function* timeline(api: ApiClient, path: string, query: Record<string, string | number>) {
  let token: string | undefined;
  do {
    const page = await api.get<XTweets>('api', path, { ...query, pagination_token: token });
    yield* page.data ?? [];
    token = page.meta?.next_token;
  } while (token);
}

/**
 * X's error signals: a 429 is a rate limit whose window ends at `x-rate-limit-reset` (epoch seconds; X
 * sends no Retry-After, https://docs.x.com/x-api/fundamentals/rate-limits), or the usage cap of the
 * plan (`.../problems/usage-capped`); a 403 `client-forbidden` is an app without the access the
 * endpoint needs; a user lookup answers 200 with only `errors[]` when the account is suspended or gone.
 */
export function readXFault(answer: PlatformAnswer): PlatformFault | null {
  const { status, headers, now } = answer;
  const body = (answer.json ?? {}) as XProblem & { data?: unknown; errors?: XProblem[] };
  const message = errorMessage(answer.json);
  if (status >= 200 && status < 300) {
    const first = body.errors?.[0];
    if (body.data === undefined && first && (first.resource_type === 'user' || /\/users\//.test(answer.path)))
      return { kind: 'account_gone', message };
    return null;
  }
  if (status === 429) {
    if (/usage-capped/.test(body.type ?? '') || body.title === 'UsageCapExceeded')
      return { kind: 'quota_exhausted', message, retryAt: null };
    const reset = Number(headers.get('x-rate-limit-reset'));
    const wait = retryAfterSeconds(headers.get('retry-after'), now);
    const retryAt =
      headers.get('x-rate-limit-reset') && Number.isFinite(reset) && reset > 0
        ? new Date(reset * 1000)
        : wait === null
          ? null
          : new Date(now + wait * 1000);
    return { kind: 'throttled', message, retryAt };
  }
  if (status === 401) return { kind: 'token_refused', message };
  if (status === 403) return { kind: 'permission_missing', message, scope: null };
  if (status >= 500) return { kind: 'unavailable', message };
  return null;
}

/**
 * X API v2: the user by its stored id (public_metrics.followers_count), the user's own posts with
 * public_metrics (impressions, likes, replies, reposts + quotes, bookmarks) and mentions, whose texts
 * feed sentiment. X gives no follower history, so every day carries the current count. Every post and
 * mention returned is billed (pay-per-use; docs/ingestion.md "X").
 */
export const twitterConnector: PlatformConnector = {
  platform: 'twitter',
  defaultBaseUrls: { api: 'https://api.x.com/2' },
  authHeaders: (token) => ({ authorization: `Bearer ${token}` }),
  readFault: readXFault,

  async fetchSnapshots(api: ApiClient, account, range) {
    // By the id stored at connect (a username can change); by username only for a connection without one.
    const byId = account.accountId ?? null;
    const user = await api.get<XUser>(
      'api',
      byId
        ? `/users/${encodeURIComponent(byId)}`
        : `/users/by/username/${encodeURIComponent(account.handle)}`,
      { 'user.fields': USER_FIELDS },
    );
    if (!user.data) {
      throw new ConnectorError('twitter', user.errors?.[0]?.detail ?? `no X account @${account.handle}`, {
        kind: 'account_gone',
      });
    }
    const book = new DayBook(range);
    const start = Date.parse(`${range.since}T00:00:00Z`);
    const end = Math.min(
      Date.parse(`${addDays(range.until, 1)}T00:00:00Z`),
      wallClockMs() - END_TIME_MARGIN_MS,
    );
    if (end > start) {
      const window = {
        start_time: xTime(start),
        end_time: xTime(end),
        max_results: 100,
        'tweet.fields': 'created_at,public_metrics',
      };
      for await (const post of timeline(api, `/users/${user.data.id}/tweets`, {
        ...window,
        exclude: 'retweets,replies',
      })) {
        const day = dayOf(post.created_at);
        const m = post.public_metrics ?? {};
        book.add(day, 'posts', 1);
        book.add(day, 'impressions', m.impression_count);
        book.add(day, 'likes', m.like_count);
        book.addPostComments(post.id, day, m.reply_count);
        book.add(day, 'shares', count(m.retweet_count) + count(m.quote_count));
        book.add(day, 'saves', m.bookmark_count);
      }
      for await (const mention of timeline(api, `/users/${user.data.id}/mentions`, window)) {
        const day = dayOf(mention.created_at);
        book.add(day, 'mentions', 1);
        book.addText(day, mention.text);
      }
    }

    const followers = count(user.data.public_metrics?.followers_count);
    const profile = completeness([
      user.data.name,
      user.data.description,
      user.data.url,
      user.data.profile_image_url,
    ]);
    return {
      snapshots: book.snapshots('twitter', followers, profile),
      followers,
      followersEstimatedThrough: book.followersEstimatedThrough(),
      postComments: book.postComments(),
      ...(byId ? {} : { accountId: user.data.id }),
    };
  },
};
