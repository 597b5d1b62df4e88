import { afterEach, describe, expect, it } from 'vitest';
import {
  ApiClient,
  CONNECTORS,
  ConnectorError,
  GRAPH_API_VERSION,
} from '../../src/ingest/connectors/index.ts';
import { fixtureServer, loadFixture, type Route } from './connectors-fixtures/server.ts';
import type { Platform } from '../../src/core/catalog.ts';

const range = { since: '2025-03-01', until: '2025-03-03' };
let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

async function run(
  platform: Platform,
  routes: Route[],
  handle: string,
  bases: (origin: string) => Record<string, string>,
  accountId?: string,
) {
  const server = await fixtureServer(routes);
  close = server.close;
  const connector = CONNECTORS[platform];
  const api = new ApiClient({
    platform,
    baseUrls: bases(server.origin),
    headers: connector.authHeaders('tok_123'),
    timeoutMs: 5000,
    maxBytes: 1_000_000,
    fetch,
    ...(connector.readFault ? { readFault: connector.readFault } : {}),
  });
  const result = await connector.fetchSnapshots(api, { handle, accountId }, range);
  return { ...result, seen: server.seen };
}

/** Columns of the snapshots, one array per metric, in day order. */
function columns(snapshots: Array<Record<string, unknown>>, keys: string[]) {
  return Object.fromEntries(keys.map((k) => [k, snapshots.map((s) => s[k])]));
}

const ALL = [
  'day',
  'followers',
  'posts',
  'impressions',
  'likes',
  'comments',
  'shares',
  'saves',
  'mentions',
  'sentimentPositive',
  'sentimentNegative',
  'profileCompleteness',
];

describe('platform connectors against recorded API responses', () => {
  it('instagram: documented insights requests (reach and follower_count by day, views as total_value a day at a time), media newest first until the range start, media insights', async () => {
    const r = await run('instagram', loadFixture('instagram'), 'acme', (o) => ({
      graph: `${o}/${GRAPH_API_VERSION}`,
    }));
    expect(r.followers).toBe(10500);
    expect(columns(r.snapshots as never, ALL)).toEqual({
      day: ['2025-03-01', '2025-03-02', '2025-03-03'],
      // follower_count is new followers only (unfollows are not reported): the audience before the
      // last day cannot be rebuilt from it and is carried, not guessed.
      followers: [10500, 10500, 10500],
      posts: [1, 0, 2],
      // The day's views (metric_type=total_value), not reach.
      impressions: [1200, 1500, 900],
      likes: [100, 0, 60],
      comments: [2, 0, 1],
      // Media insights: lifetime saves and shares, booked on the post's day.
      shares: [5, 0, 3],
      saves: [12, 0, 11],
      mentions: [0, 0, 0],
      sentimentPositive: [1, 0, 0],
      sentimentNegative: [0, 1, 0],
      profileCompleteness: [1, 1, 1],
    });
    expect(r.snapshots.every((s) => s.platform === 'instagram')).toBe(true);
    expect(r.snapshots.map((s) => s.engagementDating)).toEqual(['post', 'post', 'post']);
    expect(r.failures).toBeUndefined();
    // Each day's classified comments carry the model and its mean confidence, for re-scoring.
    const classified = (s: (typeof r.snapshots)[number]) =>
      s.sentimentPositive + s.sentimentNeutral + s.sentimentNegative + (s.sentimentMixed ?? 0);
    const commented = r.snapshots.filter((s) => classified(s) > 0);
    expect(commented.length).toBeGreaterThan(0);
    for (const s of commented) {
      expect(s.sentimentModel).toMatch(/^brand-lr@lr-[0-9a-f]+$/);
      expect(s.sentimentConfidence).toBeGreaterThan(0);
    }
    // Every request was one the documentation gives (the fixture server answers nothing else), with the
    // bearer token; the media list stopped at the first post before the range's comment window
    // (COMMENT_WINDOW_DAYS before the range: a post of 2025-01-20 on the third page).
    expect(r.seen.every((s) => s.headers.authorization === 'Bearer tok_123')).toBe(true);
    expect(r.seen.filter((s) => s.path.endsWith('/media'))).toHaveLength(3);
    expect(r.seen.filter((s) => s.path.endsWith('/insights') && s.query.metric === 'views')).toHaveLength(3);
    // No stored id: the business account is found among the token holder's Pages by username (the
    // Graph API has no lookup by username), and reported for the connection to keep.
    expect(r.seen[0]!.path).toBe(`/${GRAPH_API_VERSION}/me/accounts`);
    expect(r.seen.some((s) => s.path === `/${GRAPH_API_VERSION}/acme`)).toBe(false);
    expect(r.accountId).toBe('17841400000000001');
  });

  it('instagram: a stored account id is read directly; an unknown handle is a clear error', async () => {
    const byId = await run(
      'instagram',
      loadFixture('instagram'),
      'acme',
      (o) => ({ graph: `${o}/${GRAPH_API_VERSION}` }),
      '17841400000000001',
    );
    expect(byId.seen.map((s) => s.path)).not.toContain(`/${GRAPH_API_VERSION}/me/accounts`);
    expect(byId.seen[0]!.path).toBe(`/${GRAPH_API_VERSION}/17841400000000001`);
    expect(byId.snapshots.map((s) => s.impressions)).toEqual([1200, 1500, 900]);
    await close?.();
    const missing = await run('instagram', loadFixture('instagram'), 'nobody', (o) => ({
      graph: `${o}/${GRAPH_API_VERSION}`,
    })).catch((e) => e);
    expect(missing).toBeInstanceOf(ConnectorError);
    expect(missing.message).toContain('no Instagram business account @nobody');
  });

  it('facebook: page_media_view and follows minus unfollows by day, posts with reactions, comments and shares', async () => {
    const r = await run('facebook', loadFixture('facebook'), 'acmepage', (o) => ({
      graph: `${o}/${GRAPH_API_VERSION}`,
    }));
    expect(r.followers).toBe(30000);
    expect(columns(r.snapshots as never, ALL)).toEqual({
      day: ['2025-03-01', '2025-03-02', '2025-03-03'],
      // Follows and unfollows are both reported: the audience is rebuilt from the net change.
      followers: [29960, 29980, 30000],
      posts: [1, 1, 0],
      impressions: [4000, 5200, 3100],
      likes: [10, 60, 0],
      comments: [0, 3, 0],
      shares: [0, 4, 0],
      saves: [0, 0, 0],
      mentions: [0, 0, 0],
      sentimentPositive: [0, 1, 0],
      sentimentNegative: [0, 0, 1],
      profileCompleteness: [0.75, 0.75, 0.75],
    });
    expect(r.snapshots.map((s) => s.engagementDating)).toEqual(['post', 'post', 'post']);
    expect(r.failures).toBeUndefined();
    expect(r.seen.map((s) => s.path)).toEqual([
      `/${GRAPH_API_VERSION}/acmepage`,
      `/${GRAPH_API_VERSION}/104000000000001/insights`,
      `/${GRAPH_API_VERSION}/104000000000001/published_posts`,
      `/${GRAPH_API_VERSION}/104000000000001/published_posts`,
    ]);
  });

  it('tiktok: business/get daily metrics, video list paged by cursor until before the range, comments of the recent videos, Access-Token header', async () => {
    const r = await run('tiktok', loadFixture('tiktok'), 'acme', (o) => ({ business: `${o}/open_api/v1.3` }));
    expect(r.followers).toBe(8000);
    expect(columns(r.snapshots as never, ALL)).toEqual({
      day: ['2025-03-01', '2025-03-02', '2025-03-03'],
      followers: [7900, 7950, 8000],
      posts: [1, 1, 0],
      impressions: [3000, 4100, 2500],
      likes: [200, 260, 150],
      comments: [12, 20, 8],
      shares: [5, 9, 2],
      saves: [0, 0, 0],
      mentions: [0, 0, 0],
      // The comment texts of the two videos in the range, on the days they were written.
      sentimentPositive: [1, 1, 0],
      sentimentNegative: [0, 1, 0],
      profileCompleteness: [2 / 3, 2 / 3, 2 / 3],
    });
    const get = r.seen.find((s) => s.path.endsWith('/business/get/'))!;
    expect(get.query).toMatchObject({
      business_id: 'acme',
      start_date: '2025-03-01',
      end_date: '2025-03-03',
    });
    expect(get.headers['access-token']).toBe('tok_123');
    expect(get.headers.authorization).toBeUndefined();
    // Daily metrics: engagement counted on its day.
    expect(r.snapshots.map((s) => s.engagementDating)).toEqual(['day', 'day', 'day']);
    // The list is read back to the range's comment window (COMMENT_WINDOW_DAYS before it): a third page.
    expect(r.seen.filter((s) => s.path.endsWith('/video/list/'))).toHaveLength(3);
    // Comments of the videos published in the range and in the 30 days before it (their comments written in
    // the range count), newest first; not of the video older than that.
    expect(r.seen.filter((s) => s.path.endsWith('/comment/list/')).map((s) => s.query.video_id)).toEqual([
      '7340000000000000002',
      '7340000000000000001',
      '7340000000000000003',
    ]);
    expect(r.failures).toBeUndefined();
  });

  it('youtube: channel by its stored id (string statistics), analytics day report by column name, uploads, comment threads for sentiment', async () => {
    const r = await run(
      'youtube',
      loadFixture('youtube'),
      'googledevelopers',
      (o) => ({ data: `${o}/youtube/v3`, analytics: `${o}/v2` }),
      'UC_x5XG1OV2P6uZZ5FSM9Ttw',
    );
    expect(r.followers).toBe(25000);
    expect(columns(r.snapshots as never, ALL)).toEqual({
      day: ['2025-03-01', '2025-03-02', '2025-03-03'],
      // Net subscribers: +35, +50, +10.
      followers: [24940, 24990, 25000],
      posts: [1, 0, 1],
      impressions: [5000, 6200, 4800],
      likes: [200, 260, 180],
      comments: [30, 41, 22],
      shares: [10, 12, 6],
      saves: [0, 0, 0],
      mentions: [0, 0, 0],
      // The comment threads' texts: one glowing on the 1st, one bitter on the 3rd; the older one is outside.
      sentimentPositive: [1, 0, 0],
      sentimentNegative: [0, 0, 1],
      profileCompleteness: [1, 1, 1],
    });
    // Exactly the documented requests, in order: the channel by id (never by handle when the id is
    // known), the report, two pages of uploads, two pages of comment threads (the second reaches
    // before the range).
    expect(r.seen.map((s) => s.path)).toEqual([
      '/youtube/v3/channels',
      '/v2/reports',
      '/youtube/v3/playlistItems',
      '/youtube/v3/playlistItems',
      '/youtube/v3/commentThreads',
      '/youtube/v3/commentThreads',
    ]);
    expect(r.seen.every((s) => s.headers.authorization === 'Bearer tok_123')).toBe(true);
    expect(r.failures).toEqual([]);
    expect(r.accountId).toBeUndefined();
  });

  it('twitter (X API v2): the user by stored id, public_metrics of posts paged by next_token, mentions classified for sentiment', async () => {
    const r = await run(
      'twitter',
      loadFixture('twitter'),
      'XDevelopers',
      (o) => ({ api: `${o}/2` }),
      '2244994945',
    );
    expect(r.followers).toBe(4200);
    expect(columns(r.snapshots as never, ALL)).toEqual({
      day: ['2025-03-01', '2025-03-02', '2025-03-03'],
      followers: [4200, 4200, 4200],
      posts: [0, 1, 1],
      impressions: [0, 900, 700],
      likes: [0, 20, 15],
      comments: [0, 4, 2],
      shares: [0, 4, 1],
      saves: [0, 2, 1],
      mentions: [1, 0, 1],
      sentimentPositive: [1, 0, 0],
      sentimentNegative: [0, 0, 1],
      profileCompleteness: [1, 1, 1],
    });
    expect(r.seen.map((s) => s.path)).toEqual([
      '/2/users/2244994945',
      '/2/users/2244994945/tweets',
      '/2/users/2244994945/tweets',
      '/2/users/2244994945/mentions',
    ]);
    expect(r.accountId).toBeUndefined();
  });

  it('reports platform errors, unknown accounts and empty channels as ConnectorError', async () => {
    await expect(
      run('twitter', loadFixture('twitter'), 'nobody', (o) => ({ api: `${o}/2` })),
    ).rejects.toThrow(/Could not find user with username/);
    await close?.();
    await expect(
      run('youtube', loadFixture('youtube'), 'ghost', (o) => ({
        data: `${o}/youtube/v3`,
        analytics: `${o}/v2`,
      })),
    ).rejects.toThrow(/no YouTube channel for @ghost/);
    await close?.();
    const oauth: Route[] = [
      {
        method: 'GET',
        path: `/${GRAPH_API_VERSION}/me/accounts`,
        query: { fields: 'instagram_business_account{id,username}', limit: '100' },
        status: 400,
        // The error response as https://developers.facebook.com/docs/graph-api/guides/error-handling gives it.
        body: {
          error: {
            message: 'Message describing the error',
            type: 'OAuthException',
            code: 190,
            error_subcode: 460,
            error_user_title: 'A title',
            error_user_msg: 'A message',
            fbtrace_id: 'EJplcsCHuLu',
          },
        },
        source: 'https://developers.facebook.com/docs/graph-api/guides/error-handling',
      },
    ];
    const error = await run('instagram', oauth, 'acme', (o) => ({
      graph: `${o}/${GRAPH_API_VERSION}`,
    })).catch((e) => e);
    expect(error).toBeInstanceOf(ConnectorError);
    expect(error.status).toBe(400);
    expect(error.message).toContain('Message describing the error');
    await close?.();
    // TikTok refuses a token with HTTP 200 and code 40105 in its envelope: a refused token, not an outage.
    const tiktokDenied: Route[] = [
      {
        method: 'GET',
        path: '/open_api/v1.3/business/get/',
        query: { business_id: 'acme', start_date: '*', end_date: '*', fields: '*' },
        source: 'https://business-api.tiktok.com/portal/docs?id=1738373164380162',
        body: {
          code: 40105,
          message: 'Access token is incorrect or has been revoked.',
          request_id: '20231128065023E81AF5A697F6751ACD17',
          data: {},
        },
      },
    ];
    const denied = await run('tiktok', tiktokDenied, 'acme', (o) => ({
      business: `${o}/open_api/v1.3`,
    })).catch((e) => e);
    expect(denied).toBeInstanceOf(ConnectorError);
    expect(denied).toMatchObject({
      kind: 'token_refused',
      status: 200,
      call: '/open_api/v1.3/business/get/',
    });
    expect(denied.message).toContain('Access token is incorrect or has been revoked');
  });

  it('never follows a pagination link outside the configured API base', async () => {
    const routes = loadFixture('instagram').map((r) =>
      r.path.endsWith('/media') && !r.query?.after
        ? {
            ...r,
            body: { ...(r.body as object), paging: { next: 'http://169.254.169.254/latest/meta-data?x=1' } },
          }
        : r,
    );
    await expect(
      run('instagram', routes, 'acme', (o) => ({ graph: `${o}/${GRAPH_API_VERSION}` })),
    ).rejects.toThrow(/refusing a next-page link/);
  });
});
