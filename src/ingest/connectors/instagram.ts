import { commentsSince, completeness, count, DayBook, dayOf } from './daybook.ts';
import {
  allComments,
  dayWindows,
  GRAPH_BASE_URL,
  graphFault,
  insightSeries,
  totalValue,
  unixDay,
  type GraphCommentEdge,
  type GraphInsights,
} from './graph.ts';
import { ConnectorError, partial, type ApiClient } from './http.ts';
import { commentAuthors } from './comment-authors.ts';
import type { PartialFailure, PlatformConnector } from './types.ts';
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

interface IgMedia {
  id: string;
  timestamp?: string;
  like_count?: number;
  comments_count?: number;
  comments?: GraphCommentEdge<IgComment>;
}

/**
 * An IG Comment as read: `from` is the IGSID and username of the commenter (Graph API changelog,
 * out-of-cycle changes of 2021-10-20: https://developers.facebook.com/docs/graph-api/changelog/ooc-changes/oct-20-2021;
 * https://developers.facebook.com/docs/instagram-platform/instagram-graph-api/reference/ig-comment).
 */
interface IgComment {
  text?: string;
  timestamp?: string;
  from?: { id?: unknown; username?: unknown };
}

interface IgMediaPage {
  data?: IgMedia[];
  paging?: { next?: string };
}

/**
 * Account insights with `period=day` cover at most 30 days between since and until, and
 * `follower_count` only the last 30 days: no window starts earlier than the platform's today - 29.
 * https://developers.facebook.com/docs/instagram-platform/api-reference/instagram-user/insights
 */
export const IG_INSIGHTS_WINDOW_DAYS = 30;
/**
 * `views` exists only as `metric_type=total_value`: one total per request, so one request per day.
 * A sync reads it for at most the last 30 days of its range (a first sync: 30 requests; a daily one:
 * the 3 or 4 days it re-reads), well within ApiClient.MAX_REQUESTS.
 */
export const IG_VIEWS_DAYS = 30;
/** Media insights (saved, shares, reach, views) are one request per post: the newest this many per sync. */
export const IG_MEDIA_INSIGHTS_MAX = 40;

const MEDIA_FIELDS = 'id,timestamp,like_count,comments_count';
/**
 * Comment texts need instagram_manage_comments (and pages_read_engagement). The first 50 come with
 * each post; the rest are paged (allComments, GRAPH_COMMENT_PAGES_MAX). `from` (who wrote it) and
 * `timestamp` are for engagement pods (comment-authors.ts).
 */
const MEDIA_FIELDS_WITH_COMMENTS = `${MEDIA_FIELDS},comments.limit(50){text,timestamp,from}`;

/**
 * Instagram API with Facebook Login (professional accounts): the account node (followers_count),
 * daily `reach` and `follower_count` (new followers, not net), daily `views` one day per request,
 * the media list newest first with like and comment counts and comment texts for sentiment, and
 * media insights (saved, shares, views) for the newest posts. Insights, views, comments and media
 * insights are each a call the sync can do without: a refusal is recorded as a partial failure.
 */
export const instagramConnector: PlatformConnector = {
  platform: 'instagram',
  defaultBaseUrls: { graph: GRAPH_BASE_URL },
  authHeaders: (token) => ({ authorization: `Bearer ${token}` }),
  readFault: graphFault,

  async fetchSnapshots(api: ApiClient, account, range) {
    const failures: PartialFailure[] = [];
    // The Graph API addresses an Instagram account by its id only (there is no lookup by username).
    const id = account.accountId || (await businessAccountId(api, account.handle));
    const user = await api.get<IgUser>('graph', `/${encodeURIComponent(id)}`, {
      fields: 'id,username,name,biography,website,profile_picture_url,followers_count,media_count',
    });
    if (!user?.id) throw new ConnectorError('instagram', `no Instagram account for ${account.handle}`);
    const book = new DayBook(range);
    const insightsPath = `/${user.id}/insights`;

    // Days Graph can give: from the platform's today - 29 (its Date header; when it sent none, the last
    // day asked for, which a scheduled sync sets to the service's today).
    const today = api.platformToday ?? range.until;
    const floor = addDays(today, -(IG_INSIGHTS_WINDOW_DAYS - 1));
    const from = range.since > floor ? range.since : floor;
    // Nothing is asked for days the platform has not reached yet.
    const last = range.until < today ? range.until : today;
    const windows = from <= last ? dayWindows(from, last, IG_INSIGHTS_WINDOW_DAYS) : [];

    const reach = new Map<string, number>();
    for (const w of windows) {
      const insights = await partial(
        failures,
        { call: 'GET /{ig-user-id}/insights', metric: 'reach,follower_count' },
        null,
        () =>
          api.get<GraphInsights>('graph', insightsPath, {
            metric: 'reach,follower_count',
            period: 'day',
            since: unixDay(w.since),
            until: unixDay(addDays(w.until, 1)),
          }),
      );
      for (const [day, n] of insightSeries(insights, 'reach')) reach.set(day, n);
      for (const [day, n] of insightSeries(insights, 'follower_count')) book.addFollowerGains(day, n);
    }

    // Views, one day per request, newest first; the first refusal stops the rest (same cause).
    const views = new Map<string, number>();
    const viewsFrom = addDays(last, -(IG_VIEWS_DAYS - 1));
    for (let day = last; day >= from && day >= viewsFrom; day = addDays(day, -1)) {
      let refused = false;
      const insights = await partial(
        failures,
        { call: 'GET /{ig-user-id}/insights', metric: 'views' },
        null,
        async () => {
          try {
            return await api.get<GraphInsights>('graph', insightsPath, {
              metric: 'views',
              metric_type: 'total_value',
              period: 'day',
              since: unixDay(day),
              until: unixDay(addDays(day, 1)),
            });
          } catch (error) {
            refused = true;
            throw error;
          }
        },
      );
      if (refused) break;
      const n = totalValue(insights, 'views');
      if (n !== null) views.set(day, n);
    }
    // Impressions: the day's views; a day whose views could not be read, its reach (accounts reached,
    // never more than the views). Days Graph has no insights for are left at 0, not estimated.
    for (const [day, n] of views) book.add(day, 'impressions', n);
    for (const [day, n] of reach) if (!views.has(day)) book.add(day, 'impressions', n);

    // Media, newest first (the edge takes no time range): paging stops at the first post before the
    // range's comment window; posts before the range bring only their comments written in it.
    const mediaPath = `/${user.id}/media`;
    let page: IgMediaPage | null = await partial(
      failures,
      { call: 'GET /{ig-user-id}/media', metric: 'comments' },
      null,
      () => api.get<IgMediaPage>('graph', mediaPath, { fields: MEDIA_FIELDS_WITH_COMMENTS, limit: 100 }),
    );
    page ??= await api.get<IgMediaPage>('graph', mediaPath, { fields: MEDIA_FIELDS, limit: 100 });
    const media: Array<IgMedia & { day: string }> = [];
    const earlier: Array<IgMedia & { day: string }> = [];
    const oldest = commentsSince(range);
    while (page) {
      let reachedStart = false;
      for (const m of page.data ?? []) {
        const day = dayOf(m.timestamp);
        if (!day) continue;
        if (day < oldest) reachedStart = true;
        else if (day < range.since) earlier.push({ ...m, day });
        else if (day <= range.until) media.push({ ...m, day });
      }
      page =
        !reachedStart && page.paging?.next ? await api.follow<IgMediaPage>('graph', page.paging.next) : null;
    }
    const commented = await allComments(
      api,
      failures,
      'GET /{ig-media-id}/comments',
      [...media, ...earlier],
      (m) => m.comments,
    );
    for (const { post: m, comments } of commented)
      for (const c of comments) book.addComment(m.day, dayOf(c.timestamp), c.text);
    // Who commented when on the range's posts, over every post read; the account's own answers are not
    // its audience's.
    const authors = commentAuthors(
      commented.map(({ post, comments }) => ({
        id: post.id,
        day: post.day,
        timestamp: post.timestamp,
        comments: comments.map((c) => ({ author: commenter(c, user), timestamp: c.timestamp })),
      })),
      range.since,
    );
    // Posts before the range: only their comment counts, to see comments deleted from them (their
    // authors were counted while they were in a range: commentAuthors gives none for them).
    for (const m of earlier) book.addPostComments(m.id, m.day, m.comments_count);
    for (const m of media) {
      book.add(m.day, 'posts', 1);
      book.add(m.day, 'likes', m.like_count);
      book.addPostComments(m.id, m.day, m.comments_count, authors.get(m.id));
    }

    // Media insights for the newest posts: lifetime saves and shares on the post's day, like likes;
    // the post's views count for its day only where the account's daily views are out of Graph's reach.
    for (const m of media.slice(0, IG_MEDIA_INSIGHTS_MAX)) {
      let refused = false;
      const insights = await partial(
        failures,
        { call: 'GET /{ig-media-id}/insights', metric: 'saved,shares,reach,views' },
        null,
        async () => {
          try {
            return await api.get<GraphInsights>('graph', `/${encodeURIComponent(m.id)}/insights`, {
              metric: 'reach,saved,shares,views',
            });
          } catch (error) {
            refused = true;
            throw error;
          }
        },
      );
      if (refused) break;
      book.add(m.day, 'saves', totalValue(insights, 'saved'));
      book.add(m.day, 'shares', totalValue(insights, 'shares'));
      if (m.day < floor)
        book.add(m.day, 'impressions', totalValue(insights, 'views') ?? totalValue(insights, 'reach'));
    }

    const followers = count(user.followers_count);
    const profile = completeness([user.name, user.biography, user.website, user.profile_picture_url]);
    // like_count, comments_count and media insights are lifetime totals: booked on the post's day.
    return {
      snapshots: book.snapshots('instagram', followers, profile, 'post'),
      followers,
      accountId: user.id,
      followersEstimatedThrough: book.followersEstimatedThrough(),
      postComments: book.postComments(),
      ...(failures.length ? { failures } : {}),
    };
  },
};

/** The commenter's IGSID; null when Graph gave none or the comment is the account's own. */
function commenter(c: IgComment, self: IgUser): string | null {
  const id = typeof c.from?.id === 'string' || typeof c.from?.id === 'number' ? String(c.from.id) : null;
  if (!id || id === self.id || (self.username && c.from?.username === self.username)) return null;
  return id;
}

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
