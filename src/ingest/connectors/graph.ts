import { count, dayOf } from './daybook.ts';
import {
  errorMessage,
  httpFault,
  partial,
  type ApiClient,
  type PlatformAnswer,
  type PlatformFault,
} from './http.ts';
import type { PartialFailure } from './types.ts';
import { addDays, dayStart } from '../../core/days.ts';

/**
 * The Graph API version every Meta URL names: the OAuth dialog and token endpoint
 * (src/platforms/oauth-config.ts), both connectors' base URL, the simulator's Meta layout and the
 * fixtures. Meta's versions page (https://developers.facebook.com/docs/graph-api/changelog/versions/)
 * lists v26.0 as released on 2026-07-29 with no expiry date yet (v25.0 runs until 2028-07-29, two years
 * after v26.0 shipped). Bump it when the page dates v26.0's expiry: a call to an expired version is
 * served by the oldest live version, whose behaviour this code was not checked against.
 */
export const GRAPH_API_VERSION = 'v26.0';
export const GRAPH_BASE_URL = `https://graph.facebook.com/${GRAPH_API_VERSION}`;
export const FACEBOOK_DIALOG_URL = `https://www.facebook.com/${GRAPH_API_VERSION}/dialog/oauth`;
export const GRAPH_TOKEN_URL = `${GRAPH_BASE_URL}/oauth/access_token`;

/**
 * Comment pages followed per sync beyond the first page of each post (which comes with the post):
 * at most 40, each up to the first page's size, so a sync reads every comment of a post up to some
 * 2,000 (Instagram, 50 a page) or 1,000 (Pages, 25 a page) beyond its first page, and its request budget
 * (ApiClient.MAX_REQUESTS, 200) keeps room for the rest. Newest posts are read first.
 */
export const GRAPH_COMMENT_PAGES_MAX = 40;

/** A post's `comments` edge as Graph nests it: a page of comments and a cursor to the next. */
export interface GraphCommentEdge<C> {
  data?: C[];
  paging?: { next?: string };
}

/**
 * Every comment of each post: the page nested in the post, then its `paging.next` links (cursor-based
 * pagination, https://developers.facebook.com/docs/graph-api/results; the comments edge of a media
 * object or Page post pages the same way: https://developers.facebook.com/docs/instagram-platform/instagram-graph-api/reference/ig-media/comments,
 * https://developers.facebook.com/docs/graph-api/reference/object/comments), newest post first, until
 * GRAPH_COMMENT_PAGES_MAX follow-up pages have been read. A refused follow-up page is a partial failure
 * and ends the paging (the same permission covers every post); the comments read so far are kept.
 */
export async function allComments<P, C>(
  api: ApiClient,
  failures: PartialFailure[],
  call: string,
  posts: readonly P[],
  edge: (post: P) => GraphCommentEdge<C> | undefined,
): Promise<Array<{ post: P; comments: C[] }>> {
  let pages = 0;
  let refused = false;
  const out: Array<{ post: P; comments: C[] }> = [];
  for (const post of posts) {
    const first = edge(post);
    const comments = [...(first?.data ?? [])];
    let next = first?.paging?.next;
    while (next && !refused && pages < GRAPH_COMMENT_PAGES_MAX) {
      pages += 1;
      const link = next;
      const page = await partial(failures, { call, metric: 'comments' }, null, () =>
        api.follow<GraphCommentEdge<C>>('graph', link),
      );
      if (!page) refused = true;
      comments.push(...(page?.data ?? []));
      next = page?.paging?.next;
    }
    out.push({ post, comments });
  }
  return out;
}

/** Unix seconds of a day's start (Graph `since` / `until`). */
export function unixDay(day: string): number {
  return dayStart(day).getTime() / 1000;
}

/**
 * Splits an inclusive day range into windows of at most `maxDays` days, oldest first: Graph's
 * `period=day` insights take at most 30 days (Instagram) or 90 days (Pages) between since and until.
 */
export function dayWindows(
  since: string,
  until: string,
  maxDays: number,
): Array<{ since: string; until: string }> {
  const out: Array<{ since: string; until: string }> = [];
  for (let start = since; start <= until; start = addDays(start, maxDays)) {
    const end = addDays(start, maxDays - 1);
    out.push({ since: start, until: end < until ? end : until });
  }
  return out;
}

/** Graph's rate-limit codes: app (4), user (17), Page (32), custom rate limit (613), business use cases (80001-80009). */
const THROTTLE_CODES = new Set([4, 17, 32, 613]);
const isBusinessUseCaseThrottle = (code: number) => code >= 80001 && code <= 80009;

/** Permission names as Graph messages spell them: "(#10) Requires instagram_manage_comments permission". */
const SCOPE_IN_MESSAGE =
  /\b(instagram_[a-z_]+|pages_[a-z_]+|read_insights|business_management|ads_read|ads_management)\b/;

/**
 * When Graph will take calls again, from its usage headers (`X-Business-Use-Case-Usage`: per business
 * id, entries with `estimated_time_to_regain_access` in minutes; `X-App-Usage` the same key when it
 * carries one); null when neither says.
 * https://developers.facebook.com/docs/graph-api/overview/rate-limiting/
 */
export function graphRetryAt(headers: Headers, now: number): Date | null {
  let minutes = 0;
  const read = (name: string) => {
    const raw = headers.get(name);
    if (!raw) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      return;
    }
    const visit = (v: unknown): void => {
      if (Array.isArray(v)) v.forEach(visit);
      else if (v && typeof v === 'object') {
        const m = Number((v as Record<string, unknown>).estimated_time_to_regain_access);
        if (Number.isFinite(m) && m > minutes) minutes = m;
        for (const inner of Object.values(v)) if (inner && typeof inner === 'object') visit(inner);
      }
    };
    visit(parsed);
  };
  read('x-business-use-case-usage');
  read('x-app-usage');
  return minutes > 0 ? new Date(now + minutes * 60_000) : null;
}

/**
 * Reads a Graph answer's error object as what it means for the service, by Meta's error codes
 * (https://developers.facebook.com/docs/graph-api/guides/error-handling, rate limits at
 * https://developers.facebook.com/docs/graph-api/overview/rate-limiting/). Graph sends throttling as
 * an ordinary 400/403 with a code, not as 429 with Retry-After. An answer without a Graph error
 * object is read as plain HTTP.
 */
export function graphFault(answer: PlatformAnswer): PlatformFault | null {
  const error = (answer.json as { error?: unknown } | undefined)?.error;
  if (!error || typeof error !== 'object') return httpFault(answer);
  const e = error as Record<string, unknown>;
  const code = Number(e.code);
  const subcode = Number(e.error_subcode);
  const message = errorMessage(answer.json);
  if (THROTTLE_CODES.has(code) || isBusinessUseCaseThrottle(code)) {
    return { kind: 'throttled', message, retryAt: graphRetryAt(answer.headers, answer.now) };
  }
  // 190: the token expired, was revoked (458 app removed, 460 password changed, 463 expired, 467 invalid);
  // 102: the session behind it is gone.
  if (code === 190 || code === 102) return { kind: 'token_refused', message };
  if (code === 10 || (code >= 200 && code <= 299)) {
    return { kind: 'permission_missing', message, scope: SCOPE_IN_MESSAGE.exec(message)?.[1] ?? null };
  }
  // 100/33: the object does not exist or this token may no longer load it; 803: unknown alias.
  if ((code === 100 && subcode === 33) || code === 803) return { kind: 'account_gone', message };
  // 1 (API unknown) and 2 (API service): Meta's side, "wait and retry".
  if (code === 1 || code === 2) return { kind: 'unavailable', message };
  if (e.is_transient === true) {
    return { kind: 'throttled', message, retryAt: graphRetryAt(answer.headers, answer.now) };
  }
  // 100 without subcode 33 (an invalid metric or parameter), 3001 (invalid query) and the rest.
  return answer.status >= 500 ? { kind: 'unavailable', message } : { kind: 'invalid_request', message };
}

/** One `period=day` or `metric_type=total_value` insights answer (Instagram accounts and media, Pages). */
export interface GraphInsights {
  data?: Array<{
    name: string;
    period?: string;
    values?: Array<{ value: unknown; end_time?: string }>;
    total_value?: { value?: unknown };
  }>;
}

/**
 * Daily values of one `period=day` insights metric by day. A value carries the *end* of its day
 * (`end_time`, e.g. 2025-03-02T08:00:00+0000 for March 1st, Pacific time), so the day it measures is
 * the one before end_time. A day the answer leaves out is not in the map (Graph returns an empty set,
 * not 0, for data it does not have).
 */
export function insightSeries(insights: GraphInsights | null, metric: string): Map<string, number> {
  const out = new Map<string, number>();
  const series = insights?.data?.find((m) => m.name === metric && (m.period ?? 'day') === 'day');
  for (const v of series?.values ?? []) {
    const end = dayOf(v.end_time);
    if (!end) continue;
    const day = addDays(end, -1);
    out.set(day, (out.get(day) ?? 0) + count(v.value));
  }
  return out;
}

/** The `total_value` of one metric (Instagram `views`, media insights), null when the answer has none. */
export function totalValue(insights: GraphInsights | null, metric: string): number | null {
  const m = insights?.data?.find((x) => x.name === metric);
  if (!m) return null;
  if (m.total_value && 'value' in m.total_value) return count(m.total_value.value);
  const v = m.values?.[0];
  return v ? count(v.value) : null;
}
