import { completeness, count, DayBook, dayOf } from './daybook.ts';
import { insightSeries, unixDay, type GraphInsights } from './graph-insights.ts';
import { ConnectorError, type ApiClient } from './http.ts';
import type { PlatformConnector } from './types.ts';
import { addDays } from '../../core/days.ts';

interface FbPage {
  id: string;
  name?: string;
  about?: string;
  website?: string;
  picture?: { data?: { url?: string } };
  followers_count?: number;
  fan_count?: number;
}

interface FbPostsPage {
  data?: Array<{
    id: string;
    created_time?: string;
    shares?: { count?: number };
    reactions?: { summary?: { total_count?: number } };
    comments?: {
      data?: Array<{ message?: string; created_time?: string }>;
      summary?: { total_count?: number };
    };
  }>;
  paging?: { next?: string };
}

/**
 * Facebook Graph API for Pages: the page node (followers_count), daily page insights
 * (page_impressions, page_daily_follows_unique / page_daily_unfollows_unique) and published
 * posts with reaction, comment and share counts; comment messages feed sentiment.
 */
export const facebookConnector: PlatformConnector = {
  platform: 'facebook',
  defaultBaseUrls: { graph: 'https://graph.facebook.com/v21.0' },
  authHeaders: (token) => ({ authorization: `Bearer ${token}` }),

  async fetchSnapshots(api: ApiClient, account, range) {
    const page = await api.get<FbPage>('graph', `/${encodeURIComponent(account.handle)}`, {
      fields: 'id,name,about,website,picture,followers_count,fan_count',
    });
    if (!page?.id) throw new ConnectorError('facebook', `no Facebook Page for ${account.handle}`);
    const book = new DayBook(range);
    const window = { since: unixDay(range.since), until: unixDay(addDays(range.until, 1)) };

    const insights = await api.get<GraphInsights>('graph', `/${page.id}/insights`, {
      metric: 'page_impressions,page_daily_follows_unique,page_daily_unfollows_unique',
      period: 'day',
      ...window,
    });
    for (const [day, n] of insightSeries(insights, 'page_impressions')) book.add(day, 'impressions', n);
    for (const [day, n] of insightSeries(insights, 'page_daily_follows_unique')) book.addNetFollowers(day, n);
    for (const [day, n] of insightSeries(insights, 'page_daily_unfollows_unique'))
      book.addNetFollowers(day, -n);

    let posts: FbPostsPage | null = await api.get<FbPostsPage>('graph', `/${page.id}/published_posts`, {
      fields:
        'id,created_time,shares,reactions.summary(total_count).limit(0),comments.summary(total_count).limit(25){message,created_time}',
      ...window,
      limit: 100,
    });
    while (posts) {
      for (const post of posts.data ?? []) {
        const day = dayOf(post.created_time);
        book.add(day, 'posts', 1);
        book.add(day, 'likes', post.reactions?.summary?.total_count);
        book.add(day, 'comments', post.comments?.summary?.total_count);
        book.add(day, 'shares', post.shares?.count);
        for (const c of post.comments?.data ?? []) book.addText(dayOf(c.created_time) ?? day, c.message);
      }
      posts = posts.paging?.next ? await api.follow<FbPostsPage>('graph', posts.paging.next) : null;
    }

    const followers = count(page.followers_count ?? page.fan_count);
    const profile = completeness([page.name, page.about, page.website, page.picture?.data?.url]);
    // Reactions, comments and shares are lifetime totals: booked on the post's day (engagementDating).
    return { snapshots: book.snapshots('facebook', followers, profile, 'post'), followers };
  },
};
