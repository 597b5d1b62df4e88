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
    // The Graph API addresses an Instagram account by its id only (there is no lookup by username).
    const id = account.accountId || (await businessAccountId(api, account.handle));
    const user = await api.get<IgUser>('graph', `/${encodeURIComponent(id)}`, {
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
    // like_count and comments_count are lifetime totals: booked on the post's day (engagementDating).
    return {
      snapshots: book.snapshots('instagram', followers, profile, 'post'),
      followers,
      accountId: user.id,
    };
  },
};

/**
 * A connection without a stored account id (made before ids were stored, or by handle for the CLI):
 * the Instagram business account linked to one of the token holder's Pages (Graph /me/accounts, as
 * the connect flow reads it) whose username is the handle. The sync stores the id it finds.
 */
async function businessAccountId(api: ApiClient, handle: string): Promise<string> {
  const pages = await api.get<{
    data?: Array<{ instagram_business_account?: { id?: unknown; username?: unknown } }>;
  }>('graph', '/me/accounts', { fields: 'instagram_business_account{id,username}', limit: 100 });
  const wanted = handle.toLowerCase();
  const match = (Array.isArray(pages?.data) ? pages.data : [])
    .map((p) => p.instagram_business_account)
    .find((ig) => ig?.id && String(ig.username ?? '').toLowerCase() === wanted);
  if (!match) {
    throw new ConnectorError(
      'instagram',
      `no Instagram business account @${handle} is linked to a Page of this token's user`,
    );
  }
  return String(match.id);
}
