import { completeness, count, DayBook, dayOf } from './daybook.ts';
import { insightSeries, unixDay, type GraphInsights } from './graph-insights.ts';
import { ConnectorError, type ApiClient } from './http.ts';
import type { PlatformConnector } from './types.ts';
import { addDays } from '../../core/days.ts';

interface IgUser {
  id: string;
  username?: string;
  name?: string;
  biography?: string;
  website?: string;
  profile_picture_url?: string;
  followers_count?: number;
  media_count?: number;
}

interface IgMediaPage {
  data?: Array<{
    id: string;
    timestamp?: string;
    like_count?: number;
    comments_count?: number;
    comments?: { data?: Array<{ text?: string; timestamp?: string }> };
  }>;
  paging?: { next?: string };
}

/**
 * Instagram Graph API (professional accounts): the user node (followers_count), daily user
 * insights (impressions or views, and follower_count = new followers a day) and the media
 * list with like_count, comments_count and comment texts for sentiment.
 */
export const instagramConnector: PlatformConnector = {
  platform: 'instagram',
  defaultBaseUrls: { graph: 'https://graph.facebook.com/v21.0' },
  authHeaders: (token) => ({ authorization: `Bearer ${token}` }),

  async fetchSnapshots(api: ApiClient, account, range) {
    const user = await api.get<IgUser>('graph', `/${encodeURIComponent(account.handle)}`, {
      fields: 'id,username,name,biography,website,profile_picture_url,followers_count,media_count',
    });
    if (!user?.id) throw new ConnectorError('instagram', `no Instagram account for ${account.handle}`);
    const book = new DayBook(range);

    const insights = await api.get<GraphInsights>('graph', `/${user.id}/insights`, {
      metric: 'impressions,views,follower_count',
      period: 'day',
      since: unixDay(range.since),
      until: unixDay(addDays(range.until, 1)),
    });
    const views = insightSeries(insights, 'impressions');
    for (const [day, n] of insightSeries(insights, 'views')) if (!views.has(day)) views.set(day, n);
    for (const [day, n] of views) book.add(day, 'impressions', n);
    for (const [day, n] of insightSeries(insights, 'follower_count')) book.addNetFollowers(day, n);

    let page: IgMediaPage | null = await api.get<IgMediaPage>('graph', `/${user.id}/media`, {
      fields: 'id,timestamp,like_count,comments_count,comments.limit(50){text,timestamp}',
      since: unixDay(range.since),
      until: unixDay(addDays(range.until, 1)),
      limit: 100,
    });
    while (page) {
      for (const media of page.data ?? []) {
        const day = dayOf(media.timestamp);
        book.add(day, 'posts', 1);
        book.add(day, 'likes', media.like_count);
        book.add(day, 'comments', media.comments_count);
        for (const c of media.comments?.data ?? []) book.addText(dayOf(c.timestamp) ?? day, c.text);
      }
      page = page.paging?.next ? await api.follow<IgMediaPage>('graph', page.paging.next) : null;
    }

    const followers = count(user.followers_count);
    const profile = completeness([user.name, user.biography, user.website, user.profile_picture_url]);
    return { snapshots: book.snapshots('instagram', followers, profile), followers };
  },
};
