import { completeness, count, DayBook, dayOf } from './daybook.ts';
import { ConnectorError, type ApiClient } from './http.ts';
import type { PlatformConnector } from './types.ts';
import { addDays } from '../../core/days.ts';

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
  errors?: Array<{ title?: string; detail?: string }>;
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
 * X API v2: the user by username (public_metrics.followers_count), the user's own posts with
 * public_metrics (impressions, likes, replies, reposts + quotes, bookmarks) and mentions,
 * whose texts feed sentiment. X gives no follower history, so every day carries the current count.
 */
export const twitterConnector: PlatformConnector = {
  platform: 'twitter',
  defaultBaseUrls: { api: 'https://api.x.com/2' },
  authHeaders: (token) => ({ authorization: `Bearer ${token}` }),

  async fetchSnapshots(api: ApiClient, account, range) {
    const user = await api.get<XUser>('api', `/users/by/username/${encodeURIComponent(account.handle)}`, {
      'user.fields': 'public_metrics,description,profile_image_url,url',
    });
    if (!user.data) {
      throw new ConnectorError('twitter', user.errors?.[0]?.detail ?? `no X account @${account.handle}`);
    }
    const book = new DayBook(range);
    const window = {
      start_time: `${range.since}T00:00:00Z`,
      end_time: `${addDays(range.until, 1)}T00:00:00Z`,
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
      book.add(day, 'comments', m.reply_count);
      book.add(day, 'shares', count(m.retweet_count) + count(m.quote_count));
      book.add(day, 'saves', m.bookmark_count);
    }
    for await (const mention of timeline(api, `/users/${user.data.id}/mentions`, window)) {
      const day = dayOf(mention.created_at);
      book.add(day, 'mentions', 1);
      book.addText(day, mention.text);
    }

    const followers = count(user.data.public_metrics?.followers_count);
    const profile = completeness([
      user.data.name,
      user.data.description,
      user.data.url,
      user.data.profile_image_url,
    ]);
    return { snapshots: book.snapshots('twitter', followers, profile), followers };
  },
};
