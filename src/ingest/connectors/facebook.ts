import { commentsSince, completeness, count, DayBook, dayOf } from './daybook.ts';
import {
  allComments,
  dayWindows,
  GRAPH_BASE_URL,
  graphFault,
  insightSeries,
  unixDay,
  type GraphCommentEdge,
  type GraphInsights,
} from './graph.ts';
import { ConnectorError, partial, type ApiClient } from './http.ts';
import type { PartialFailure, PlatformConnector } from './types.ts';
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
    comments?: GraphCommentEdge<{ message?: string; created_time?: string }> & {
      summary?: { total_count?: number };
    };
  }>;
  paging?: { next?: string };
}

/** Page insights take at most 90 days between since and until. https://developers.facebook.com/docs/graph-api/reference/insights */
export const FB_INSIGHTS_WINDOW_DAYS = 90;
/**
 * Daily Page metrics current on every Graph version: `page_media_view` (replaces `page_impressions`,
 * removed 2025-11-15) and the daily follows and unfollows. None is on the list removed on 2026-06-15.
 * https://developers.facebook.com/documentation/pages-api/platforminsights/page/deprecated-metrics
 */
export const FB_DAY_METRICS = 'page_media_view,page_daily_follows_unique,page_daily_unfollows_unique';

const POST_FIELDS = 'id,created_time,shares,reactions.summary(total_count).limit(0)';
/**
 * Comment messages of other people need pages_read_user_content; the count alone does not. The first
 * 25 come with each post; the rest are paged (allComments, GRAPH_COMMENT_PAGES_MAX).
 */
const POST_FIELDS_WITH_COMMENTS = `${POST_FIELDS},comments.summary(total_count).limit(25){message,created_time}`;
const POST_FIELDS_COUNT_ONLY = `${POST_FIELDS},comments.summary(total_count).limit(0)`;

/**
 * Facebook Graph API for Pages, read with the Page's token: the Page node (followers_count), daily
 * Page insights (page_media_view, page_daily_follows_unique / page_daily_unfollows_unique) and
 * published posts with reaction, comment and share counts; comment messages feed sentiment.
 * Insights and comment messages are calls the sync can do without (a Page under 100 likes has no
 * insights; comments need their own permission): a refusal is recorded as a partial failure.
 */
export const facebookConnector: PlatformConnector = {
  platform: 'facebook',
  defaultBaseUrls: { graph: GRAPH_BASE_URL },
  authHeaders: (token) => ({ authorization: `Bearer ${token}` }),
  readFault: graphFault,

  async fetchSnapshots(api: ApiClient, account, range) {
    const failures: PartialFailure[] = [];
    const page = await api.get<FbPage>('graph', `/${encodeURIComponent(account.handle)}`, {
      fields: 'id,name,about,website,picture,followers_count,fan_count',
    });
    if (!page?.id) throw new ConnectorError('facebook', `no Facebook Page for ${account.handle}`);
    const book = new DayBook(range);

    for (const w of dayWindows(range.since, range.until, FB_INSIGHTS_WINDOW_DAYS)) {
      const insights = await partial(
        failures,
        { call: 'GET /{page-id}/insights', metric: FB_DAY_METRICS },
        null,
        () =>
          api.get<GraphInsights>('graph', `/${page.id}/insights`, {
            metric: FB_DAY_METRICS,
            period: 'day',
            since: unixDay(w.since),
            until: unixDay(addDays(w.until, 1)),
          }),
      );
      for (const [day, n] of insightSeries(insights, 'page_media_view')) book.add(day, 'impressions', n);
      for (const [day, n] of insightSeries(insights, 'page_daily_follows_unique'))
        book.addNetFollowers(day, n);
      for (const [day, n] of insightSeries(insights, 'page_daily_unfollows_unique'))
        book.addNetFollowers(day, -n);
    }

    // Posts from the range's comment window on: those before the range bring only their comments.
    const window = { since: unixDay(commentsSince(range)), until: unixDay(addDays(range.until, 1)) };
    const postsPath = `/${page.id}/published_posts`;
    let posts: FbPostsPage | null = await partial(
      failures,
      { call: 'GET /{page-id}/published_posts', metric: 'comments' },
      null,
      () =>
        api.get<FbPostsPage>('graph', postsPath, {
          fields: POST_FIELDS_WITH_COMMENTS,
          ...window,
          limit: 100,
        }),
    );
    posts ??= await api.get<FbPostsPage>('graph', postsPath, {
      fields: POST_FIELDS_COUNT_ONLY,
      ...window,
      limit: 100,
    });
    const all: NonNullable<FbPostsPage['data']> = [];
    while (posts) {
      for (const post of posts.data ?? []) {
        all.push(post);
        const day = dayOf(post.created_time);
        if (day === null || day < range.since) continue;
        book.add(day, 'posts', 1);
        book.add(day, 'likes', post.reactions?.summary?.total_count);
        book.addPostComments(post.id, day, post.comments?.summary?.total_count);
        book.add(day, 'shares', post.shares?.count);
      }
      posts = posts.paging?.next ? await api.follow<FbPostsPage>('graph', posts.paging.next) : null;
    }
    const commented = await allComments(api, failures, 'GET /{object-id}/comments', all, (p) => p.comments);
    for (const { post, comments } of commented)
      for (const c of comments) book.addComment(dayOf(post.created_time), dayOf(c.created_time), c.message);

    const followers = count(page.followers_count ?? page.fan_count);
    const profile = completeness([page.name, page.about, page.website, page.picture?.data?.url]);
    // Reactions, comments and shares are lifetime totals: booked on the post's day (engagementDating).
    return {
      snapshots: book.snapshots('facebook', followers, profile, 'post'),
      followers,
      postComments: book.postComments(),
      ...(failures.length ? { failures } : {}),
    };
  },
};
