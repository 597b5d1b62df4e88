import { completeness, count, DayBook, dayOf } from './daybook.ts';
import {
  ConnectorError,
  partial,
  retryAfterSeconds,
  type ApiClient,
  type PlatformAnswer,
  type PlatformFault,
} from './http.ts';
import type { PartialFailure, PlatformConnector } from './types.ts';

interface ChannelList {
  items?: Array<{
    id: string;
    snippet?: {
      title?: string;
      description?: string;
      customUrl?: string;
      thumbnails?: { default?: { url?: string } };
    };
    statistics?: {
      viewCount?: string;
      subscriberCount?: string;
      hiddenSubscriberCount?: boolean;
      videoCount?: string;
    };
    contentDetails?: { relatedPlaylists?: { uploads?: string } };
  }>;
}

interface ResultTable {
  columnHeaders?: Array<{ name: string; columnType?: string; dataType?: string }>;
  rows?: unknown[][];
}

interface PlaylistItems {
  items?: Array<{ contentDetails?: { videoId?: string; videoPublishedAt?: string } }>;
  nextPageToken?: string;
}

interface CommentThreads {
  items?: Array<{
    snippet?: {
      topLevelComment?: { snippet?: { textDisplay?: string; publishedAt?: string } };
    };
  }>;
  nextPageToken?: string;
}

const REPORT_METRICS = ['views', 'likes', 'comments', 'shares', 'subscribersGained', 'subscribersLost'];
const PARTS = 'snippet,statistics,contentDetails';
/** commentThreads.list pages read per sync (100 threads and 1 quota unit each). */
export const COMMENT_PAGES = 5;

/**
 * The next midnight in America/Los_Angeles after `now`, when the YouTube Data API's daily quota resets
 * ("Daily quotas reset at midnight Pacific Time", https://developers.google.com/youtube/data/determine_quota_cost).
 * Pacific midnight is 07:00 or 08:00 UTC depending on daylight saving time, read from the time zone
 * database rather than assumed.
 */
export function nextPacificMidnight(now: number): Date {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: 'America/Los_Angeles',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
  }).formatToParts(new Date(now));
  const part = (type: string) => Number(parts.find((p) => p.type === type)!.value);
  const midnightAsUtc = Date.UTC(part('year'), part('month') - 1, part('day') + 1);
  const hour = (t: number) =>
    Number(
      new Intl.DateTimeFormat('en-US', {
        timeZone: 'America/Los_Angeles',
        hour: 'numeric',
        hourCycle: 'h23',
      }).format(new Date(t)),
    );
  // UTC−7 (PDT) or UTC−8 (PST): the one at which Los Angeles reads 00 h that day.
  const pdt = midnightAsUtc + 7 * 3_600_000;
  return new Date(hour(pdt) === 0 ? pdt : midnightAsUtc + 8 * 3_600_000);
}

interface GoogleError {
  error?: {
    code?: number;
    message?: string;
    status?: string;
    errors?: Array<{ reason?: string; message?: string; domain?: string }>;
    details?: Array<{ reason?: string }>;
  };
}

/** The scope a Google 403 names in `WWW-Authenticate: Bearer ... error="insufficient_scope", scope="..."` (RFC 6750 3). */
function challengedScope(headers: Headers): string | null {
  return /scope="([^"]+)"/.exec(headers.get('www-authenticate') ?? '')?.[1] ?? null;
}

/**
 * Google's error envelope (https://developers.google.com/youtube/v3/docs/errors): the reason of each
 * entry of `error.errors[]` (and of `error.details[]`, Google's ErrorInfo) says what the status alone
 * does not, e.g. a 403 is a spent daily quota, a missing scope or a refusal.
 */
export function readGoogleFault(answer: PlatformAnswer): PlatformFault | null {
  const { status, headers, now, path } = answer;
  if (status >= 200 && status < 300) return null;
  const body = (answer.json ?? {}) as GoogleError;
  const reasons = new Set([
    ...(body.error?.errors ?? []).map((e) => e.reason),
    ...(body.error?.details ?? []).map((e) => e.reason),
  ]);
  const message = String(body.error?.message ?? body.error?.errors?.[0]?.message ?? `HTTP ${status}`).slice(
    0,
    300,
  );
  const wait = retryAfterSeconds(headers.get('retry-after'), now);
  const retryAt = wait === null ? null : new Date(now + wait * 1000);
  if (reasons.has('quotaExceeded') || reasons.has('dailyLimitExceeded'))
    return { kind: 'quota_exhausted', message, retryAt: nextPacificMidnight(now) };
  if (reasons.has('rateLimitExceeded') || reasons.has('userRateLimitExceeded') || status === 429)
    return { kind: 'throttled', message, retryAt };
  if (status === 401) return { kind: 'token_refused', message };
  if (
    status === 403 &&
    (reasons.has('insufficientPermissions') ||
      reasons.has('ACCESS_TOKEN_SCOPE_INSUFFICIENT') ||
      reasons.has('forbidden') ||
      headers.get('www-authenticate')?.includes('insufficient_scope'))
  )
    return { kind: 'permission_missing', message, scope: challengedScope(headers) };
  if (status === 404 && (reasons.has('channelNotFound') || path.endsWith('/channels')))
    return { kind: 'account_gone', message };
  if (status >= 500) return { kind: 'unavailable', message, retryAt };
  return null;
}

/**
 * YouTube Data API v3 (the channel by its stored id: statistics.subscriberCount and the uploads playlist;
 * the channel's comment threads for sentiment) and YouTube Analytics API v2 (a day-dimension report of
 * views, likes, comments, shares and subscribers gained and lost, read by column name).
 */
export const youtubeConnector: PlatformConnector = {
  platform: 'youtube',
  defaultBaseUrls: {
    data: 'https://www.googleapis.com/youtube/v3',
    analytics: 'https://youtubeanalytics.googleapis.com/v2',
  },
  authHeaders: (token) => ({ authorization: `Bearer ${token}` }),
  readFault: readGoogleFault,

  async fetchSnapshots(api: ApiClient, account, range) {
    const failures: PartialFailure[] = [];
    // By the channel id stored at connect (a handle can change); by handle only for a connection without one.
    const byId = account.accountId ?? null;
    const list = await api.get<ChannelList>(
      'data',
      '/channels',
      byId ? { part: PARTS, id: byId } : { part: PARTS, forHandle: `@${account.handle}` },
    );
    const channel = list.items?.[0];
    if (!channel) {
      throw new ConnectorError(
        'youtube',
        byId ? `the YouTube channel ${byId} no longer exists` : `no YouTube channel for @${account.handle}`,
        { kind: 'account_gone', call: 'GET /channels' },
      );
    }
    const book = new DayBook(range);

    // The Analytics API has its own scope (yt-analytics.readonly), which Google's consent screen lets
    // the user leave unticked: without it the channel and its uploads are still stored.
    const report = await partial<ResultTable>(
      failures,
      { call: 'GET /v2/reports', metric: 'views,engagement,audience_history' },
      {},
      () =>
        api.get<ResultTable>('analytics', '/reports', {
          ids: `channel==${channel.id}`,
          startDate: range.since,
          endDate: range.until,
          metrics: REPORT_METRICS.join(','),
          dimensions: 'day',
          sort: 'day',
        }),
    );
    const column = new Map((report.columnHeaders ?? []).map((h, i) => [h.name, i]));
    const dayColumn = column.get('day');
    if (dayColumn === undefined && !failures.length)
      throw new ConnectorError('youtube', 'the analytics report has no day column');
    const cell = (row: unknown[], name: string) => (column.has(name) ? row[column.get(name)!] : 0);
    for (const row of report.rows ?? []) {
      const day = String(row[dayColumn!]);
      book.add(day, 'impressions', cell(row, 'views'));
      book.add(day, 'likes', cell(row, 'likes'));
      book.add(day, 'comments', cell(row, 'comments'));
      book.add(day, 'shares', cell(row, 'shares'));
      book.addNetFollowers(day, count(cell(row, 'subscribersGained')) - count(cell(row, 'subscribersLost')));
    }

    const uploads = channel.contentDetails?.relatedPlaylists?.uploads;
    let pageToken: string | undefined;
    while (uploads) {
      const page = await api.get<PlaylistItems>('data', '/playlistItems', {
        part: 'contentDetails',
        playlistId: uploads,
        maxResults: 50,
        pageToken,
      });
      let older = false;
      for (const item of page.items ?? []) {
        const day = dayOf(item.contentDetails?.videoPublishedAt);
        book.add(day, 'posts', 1);
        if (day !== null && day < range.since) older = true;
      }
      if (older || !page.nextPageToken) break;
      pageToken = page.nextPageToken;
    }

    // Comments on the channel and its videos, newest first, until a page reaches before the range:
    // their texts feed sentiment (the counts come from the report). Sentiment can do without them.
    const texts = await partial(
      failures,
      { call: 'GET /commentThreads', metric: 'comments' },
      [],
      async () => {
        const found: Array<{ day: string | null; text: unknown }> = [];
        let token: string | undefined;
        for (let pages = 0; pages < COMMENT_PAGES; pages++) {
          const page = await api.get<CommentThreads>('data', '/commentThreads', {
            part: 'snippet',
            allThreadsRelatedToChannelId: channel.id,
            maxResults: 100,
            order: 'time',
            textFormat: 'plainText',
            pageToken: token,
          });
          let older = false;
          for (const thread of page.items ?? []) {
            const comment = thread.snippet?.topLevelComment?.snippet;
            const day = dayOf(comment?.publishedAt);
            if (day !== null && day < range.since) older = true;
            found.push({ day, text: comment?.textDisplay });
          }
          if (older || !page.nextPageToken) break;
          token = page.nextPageToken;
        }
        return found;
      },
    );
    for (const { day, text } of texts) book.addText(day, text);

    const followers = count(channel.statistics?.subscriberCount);
    const s = channel.snippet;
    const profile = completeness([s?.title, s?.description, s?.customUrl, s?.thumbnails?.default?.url]);
    return {
      snapshots: book.snapshots('youtube', followers, profile),
      followers,
      ...(byId ? {} : { accountId: channel.id }),
      failures,
    };
  },
};
