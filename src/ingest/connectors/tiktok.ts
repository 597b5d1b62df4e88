import { completeness, count, DayBook, dayOf } from './daybook.ts';
import { ConnectorError, type ApiClient } from './http.ts';
import type { PlatformConnector } from './types.ts';

/** TikTok API for Business envelopes: code 0 is success whatever the HTTP status says. */
interface TikTokEnvelope<T> {
  code: number;
  message?: string;
  request_id?: string;
  data?: T;
}

interface BusinessAccount {
  username?: string;
  display_name?: string;
  profile_image?: string;
  bio_description?: string;
  followers_count?: number;
  metrics?: Array<{
    date: string;
    followers_count?: number;
    video_views?: number;
    likes?: number;
    comments?: number;
    shares?: number;
    profile_views?: number;
  }>;
}

interface VideoList {
  videos?: Array<{ item_id: string; create_time?: number }>;
  cursor?: number;
  has_more?: boolean;
}

function unwrap<T>(envelope: TikTokEnvelope<T>, what: string): T {
  if (envelope?.code !== 0 || !envelope.data) {
    throw new ConnectorError('tiktok', `${what}: ${envelope?.message ?? 'no data'} (code ${envelope?.code})`);
  }
  return envelope.data;
}

/**
 * TikTok API for Business: /business/get/ returns the account and daily `metrics` (date,
 * followers_count, video_views, likes, comments, shares); /business/video/list/ gives the
 * videos' create_time, from which posts a day are counted.
 */
export const tiktokConnector: PlatformConnector = {
  platform: 'tiktok',
  defaultBaseUrls: { business: 'https://business-api.tiktok.com/open_api/v1.3' },
  authHeaders: (token) => ({ 'access-token': token }),

  async fetchSnapshots(api: ApiClient, account, range) {
    const profile = unwrap(
      await api.get<TikTokEnvelope<BusinessAccount>>('business', '/business/get/', {
        business_id: account.handle,
        start_date: range.since,
        end_date: range.until,
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
      }),
      'business/get',
    );
    const book = new DayBook(range);
    const dailyFollowers = new Map<string, number>();
    for (const m of profile.metrics ?? []) {
      book.add(m.date, 'impressions', m.video_views);
      book.add(m.date, 'likes', m.likes);
      book.add(m.date, 'comments', m.comments);
      book.add(m.date, 'shares', m.shares);
      if (m.followers_count !== undefined) dailyFollowers.set(m.date, count(m.followers_count));
    }

    let cursor: number | undefined;
    for (;;) {
      const page = unwrap(
        await api.get<TikTokEnvelope<VideoList>>('business', '/business/video/list/', {
          business_id: account.handle,
          fields: JSON.stringify(['item_id', 'create_time']),
          max_count: 20,
          cursor,
        }),
        'business/video/list',
      );
      let older = false;
      for (const v of page.videos ?? []) {
        const day = dayOf(v.create_time);
        book.add(day, 'posts', 1);
        if (day !== null && day < range.since) older = true;
      }
      // Newest first: once a page reaches before the range, the rest is older still.
      if (!page.has_more || older || page.cursor === undefined) break;
      cursor = page.cursor;
    }

    const followers = count(profile.followers_count);
    // TikTok reports the daily total itself; a day it does not report keeps the next known total.
    const snapshots = book.snapshots(
      'tiktok',
      followers,
      completeness([profile.display_name, profile.bio_description, profile.profile_image]),
    );
    let later = followers;
    for (let i = snapshots.length - 1; i >= 0; i--) {
      const s = snapshots[i]!;
      later = dailyFollowers.get(s.day) ?? later;
      s.followers = later;
    }
    return { snapshots, followers };
  },
};
