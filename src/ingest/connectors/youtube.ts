import { completeness, count, DayBook, dayOf } from './daybook.ts';
import { ConnectorError, errorMessage, partial, type ApiClient, type PlatformAnswer } from './http.ts';
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

const REPORT_METRICS = ['views', 'likes', 'comments', 'shares', 'subscribersGained', 'subscribersLost'];

/**
 * YouTube Data API v3 (channels: statistics.subscriberCount, uploads playlist) and YouTube
 * Analytics API v2 (a day-dimension report of views, likes, comments, shares and subscribers
 * gained and lost, read by column name).
 */
export const youtubeConnector: PlatformConnector = {
  platform: 'youtube',
  defaultBaseUrls: {
    data: 'https://www.googleapis.com/youtube/v3',
    analytics: 'https://youtubeanalytics.googleapis.com/v2',
  },
  authHeaders: (token) => ({ authorization: `Bearer ${token}` }),

  async fetchSnapshots(api: ApiClient, account, range) {
    const list = await api.get<ChannelList>('data', '/channels', {
      part: 'snippet,statistics,contentDetails',
      forHandle: `@${account.handle}`,
    });
    const channel = list.items?.[0];
    if (!channel) throw new ConnectorError('youtube', `no YouTube channel for @${account.handle}`);
    const book = new DayBook(range);

    // The Analytics API has its own scope (yt-analytics.readonly), which Google's consent screen lets
    // the user leave unticked: without it the channel and its uploads are still stored.
    const failures: PartialFailure[] = [];
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

    const followers = count(channel.statistics?.subscriberCount);
    const s = channel.snippet;
    const profile = completeness([s?.title, s?.description, s?.customUrl, s?.thumbnails?.default?.url]);
    return { snapshots: book.snapshots('youtube', followers, profile), followers, failures };
  },

  /**
   * Google's own reasons before the HTTP reading: a spent daily quota (403 `quotaExceeded`) comes back
   * at midnight Pacific Time (https://developers.google.com/youtube/data/determine_quota_cost).
   */
  readFault(answer: PlatformAnswer) {
    const reason = (answer.json as { error?: { errors?: Array<{ reason?: unknown }> } } | undefined)?.error
      ?.errors?.[0]?.reason;
    if (answer.status === 403 && (reason === 'quotaExceeded' || reason === 'dailyLimitExceeded')) {
      return {
        kind: 'quota_exhausted' as const,
        message: errorMessage(answer.json),
        retryAt: nextPacificMidnight(answer.now),
      };
    }
    return null;
  },
};

/** The next midnight in America/Los_Angeles after `now` (epoch ms), daylight saving included. */
export function nextPacificMidnight(now: number): Date {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: 'America/Los_Angeles',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
  }).formatToParts(new Date(now));
  const part = (type: string) => Number(parts.find((p) => p.type === type)!.value);
  const hourThere = new Intl.DateTimeFormat('en-US', {
    timeZone: 'America/Los_Angeles',
    hour: 'numeric',
    hourCycle: 'h23',
  });
  // Pacific midnight is 07:00 or 08:00 UTC: the one that reads 0 h there.
  for (const offset of [7, 8]) {
    const at = Date.UTC(part('year'), part('month') - 1, part('day') + 1, offset);
    if (Number(hourThere.format(new Date(at))) === 0) return new Date(at);
  }
  return new Date(Date.UTC(part('year'), part('month') - 1, part('day') + 1, 8));
}
