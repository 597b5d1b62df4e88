import { afterEach, describe, expect, it } from 'vitest';
import {
  ApiClient,
  CONNECTORS,
  ConnectorError,
  GRAPH_API_VERSION,
} from '../../src/ingest/connectors/index.ts';
import { IG_VIEWS_DAYS } from '../../src/ingest/connectors/instagram.ts';
import { GRAPH_COMMENT_PAGES_MAX } from '../../src/ingest/connectors/graph.ts';
import { fixtureServer, loadFixture, type Route } from './connectors-fixtures/server.ts';
import { addDays } from '../../src/core/days.ts';

/**
 * The Meta connectors against Graph's documented answers, through the ApiClient as a sync builds it
 * (with the connector's readFault). Error codes: https://developers.facebook.com/docs/graph-api/guides/error-handling;
 * throttling and usage headers: https://developers.facebook.com/docs/graph-api/overview/rate-limiting/.
 */
const V = `/${GRAPH_API_VERSION}`;
const ERRORS = 'https://developers.facebook.com/docs/graph-api/guides/error-handling';
const range = { since: '2025-03-01', until: '2025-03-03' };

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

async function sync(
  platform: 'instagram' | 'facebook',
  routes: Route[],
  options: { handle?: string; accountId?: string; range?: { since: string; until: string } } = {},
) {
  const server = await fixtureServer(routes);
  close = server.close;
  const connector = CONNECTORS[platform];
  const api = new ApiClient({
    platform,
    baseUrls: { graph: `${server.origin}${V}` },
    headers: connector.authHeaders('tok_123'),
    timeoutMs: 5000,
    maxBytes: 1_000_000,
    fetch,
    readFault: (a) => connector.readFault!(a),
  });
  const result = await connector
    .fetchSnapshots(
      api,
      { handle: options.handle ?? 'acme', accountId: options.accountId ?? '17841400000000001' },
      options.range ?? range,
    )
    .catch((e: unknown) => e);
  return { result, seen: server.seen, api };
}

/** The Instagram account node answering with one Graph error (status, body, headers). */
function nodeAnswers(status: number, error: Record<string, unknown>, headers: Record<string, string> = {}) {
  const node = loadFixture('instagram').find((r) => r.path === `${V}/17841400000000001`)!;
  return [{ ...node, status, headers: { ...node.headers, ...headers }, body: { error }, source: ERRORS }];
}

describe('Graph error taxonomy (readFault)', () => {
  const cases: Array<[string, number, Record<string, unknown>, string, string | null]> = [
    // [what, status, error, kind, scope]
    ['code 4: application request limit', 400, { code: 4, is_transient: true }, 'throttled', null],
    ['code 17: user request limit', 400, { code: 17 }, 'throttled', null],
    ['code 32: Page request limit', 400, { code: 32 }, 'throttled', null],
    ['code 613: custom rate limit', 400, { code: 613 }, 'throttled', null],
    ['code 80001: Pages business use case', 400, { code: 80001 }, 'throttled', null],
    ['code 80002: Instagram business use case', 400, { code: 80002 }, 'throttled', null],
    ['code 80009: business use case', 400, { code: 80009 }, 'throttled', null],
    ['an unlisted transient error', 400, { code: 999, is_transient: true }, 'throttled', null],
    ['code 190: token expired', 400, { code: 190, error_subcode: 463 }, 'token_refused', null],
    ['code 190/458: app not installed', 400, { code: 190, error_subcode: 458 }, 'token_refused', null],
    ['code 190/460: password changed', 400, { code: 190, error_subcode: 460 }, 'token_refused', null],
    ['code 190/467: invalid token', 400, { code: 190, error_subcode: 467 }, 'token_refused', null],
    [
      'code 10 naming the permission',
      403,
      { code: 10, message: '(#10) Requires instagram_manage_comments permission to manage the object' },
      'permission_missing',
      'instagram_manage_comments',
    ],
    [
      'code 10 without naming one',
      403,
      { code: 10, message: '(#10) Application does not have permission for this action' },
      'permission_missing',
      null,
    ],
    [
      'code 200: permission',
      403,
      { code: 200, message: '(#200) Requires pages_read_user_content permission' },
      'permission_missing',
      'pages_read_user_content',
    ],
    [
      'code 299: permission',
      403,
      { code: 299, message: '(#299) permission denied' },
      'permission_missing',
      null,
    ],
    ['code 100/33: object gone', 400, { code: 100, error_subcode: 33 }, 'account_gone', null],
    ['code 1: API unknown', 500, { code: 1, is_transient: true }, 'unavailable', null],
    ['code 2: API service', 503, { code: 2, is_transient: true }, 'unavailable', null],
    [
      'code 100: a removed metric',
      400,
      {
        code: 100,
        message: '(#100) metric[0] must be one of the following values: reach, follower_count, views',
      },
      'invalid_request',
      null,
    ],
  ];
  it.each(cases)('%s', async (_what, status, error, kind, scope) => {
    const { result } = await sync(
      'instagram',
      nodeAnswers(status, { message: 'Graph says no', type: 'OAuthException', fbtrace_id: 'A1', ...error }),
    );
    expect(result).toBeInstanceOf(ConnectorError);
    expect(result).toMatchObject({ kind, status, scope });
  });

  it('throttling waits for the usage header estimated_time_to_regain_access (minutes), not Retry-After', async () => {
    const usage = JSON.stringify({
      '17841400000000001': [
        {
          type: 'instagram',
          call_count: 100,
          total_cputime: 12,
          total_time: 14,
          estimated_time_to_regain_access: 7,
        },
      ],
    });
    const before = Date.now();
    const { result } = await sync(
      'instagram',
      nodeAnswers(
        400,
        {
          message: 'There have been too many calls to this Instagram account. Wait a bit and try again.',
          type: 'OAuthException',
          is_transient: true,
          code: 80002,
        },
        { 'x-business-use-case-usage': usage, 'retry-after': '1' },
      ),
    );
    expect(result).toMatchObject({ kind: 'throttled' });
    const wait = (result as ConnectorError).retryAt!.getTime() - before;
    expect(wait).toBeGreaterThanOrEqual(7 * 60_000 - 1000);
    expect(wait).toBeLessThanOrEqual(7 * 60_000 + 5000);
    // Without a usage header that says, no guess: the scheduler's own backoff applies.
    await close?.();
    const bare = await sync(
      'instagram',
      nodeAnswers(400, { message: '(#4) Application request limit reached', code: 4 }),
    );
    expect(bare.result).toMatchObject({ kind: 'throttled', retryAt: null });
    await close?.();
    const app = await sync(
      'instagram',
      nodeAnswers(
        400,
        { message: '(#4) limit', code: 4 },
        {
          'x-app-usage': JSON.stringify({
            call_count: 100,
            total_time: 20,
            total_cputime: 20,
            estimated_time_to_regain_access: 2,
          }),
        },
      ),
    );
    expect((app.result as ConnectorError).retryAt!.getTime() - before).toBeGreaterThanOrEqual(
      2 * 60_000 - 1000,
    );
  });
});

describe('Instagram connector', () => {
  describe('every comment of a post, not the first page', () => {
    const COMMENTS_DOC =
      'https://developers.facebook.com/docs/instagram-platform/instagram-graph-api/reference/ig-media/comments (cursor-based pagination: https://developers.facebook.com/docs/graph-api/results)';
    const comment = (i: number) => ({
      text: 'Still waiting for my refund, three weeks now',
      timestamp: '2025-03-03T10:00:00+0000',
      id: `17${i}`,
    });
    const commentsNext = (after: string) =>
      `{BASE}${V}/18000000000000002/comments?access_token=ACCESS_TOKEN&fields=text%2Ctimestamp&limit=50&after=${after}`;
    /** The fixture, with media 18000000000000002 holding `first` comments and a link to the next page. */
    function withComments(first: number, pages: Route[]): Route[] {
      return [
        ...loadFixture('instagram').map((r): Route => {
          if (!r.path.endsWith('/media') || r.query?.after) return r;
          const body = r.body as { data: Array<Record<string, unknown>> };
          return {
            ...r,
            body: {
              ...body,
              data: body.data.map((m) =>
                m.id === '18000000000000002'
                  ? {
                      ...m,
                      comments_count: 120,
                      comments: {
                        data: Array.from({ length: first }, (_, i) => comment(i)),
                        paging: { cursors: { after: 'C1' }, next: commentsNext('C1') },
                      },
                    }
                  : m,
              ),
            },
          };
        }),
        ...pages,
      ];
    }
    const page = (after: string, from: number, n: number, next: string | null): Route => ({
      method: 'GET',
      path: `${V}/18000000000000002/comments`,
      query: { access_token: 'ACCESS_TOKEN', fields: 'text,timestamp', limit: '50', after },
      body: {
        data: Array.from({ length: n }, (_, i) => comment(from + i)),
        paging: { cursors: { after: next ?? 'END' }, ...(next ? { next: commentsNext(next) } : {}) },
      },
      source: COMMENTS_DOC,
    });

    it("follows a post's comment pages to the end: 120 comments, not the first 50", async () => {
      const { result, seen } = await sync(
        'instagram',
        withComments(50, [page('C1', 50, 50, 'C2'), page('C2', 100, 20, null)]),
      );
      if (result instanceof Error) throw result;
      const r = result as Awaited<ReturnType<typeof CONNECTORS.instagram.fetchSnapshots>>;
      expect(r.failures).toBeUndefined();
      expect(seen.filter((q) => q.path.endsWith('/comments')).map((q) => q.query.after)).toEqual([
        'C1',
        'C2',
      ]);
      const day = r.snapshots.find((s) => s.day === '2025-03-03')!;
      expect(day.sentimentNegative).toBe(120);
    });

    it(`reads at most ${GRAPH_COMMENT_PAGES_MAX} follow-up comment pages a sync, and keeps what it read`, async () => {
      const endless: Route = {
        ...page('*', 50, 50, 'C9'),
        query: { ...page('*', 0, 0, null).query!, after: '*' },
      };
      const { result, seen } = await sync('instagram', withComments(50, [endless]));
      if (result instanceof Error) throw result;
      const r = result as Awaited<ReturnType<typeof CONNECTORS.instagram.fetchSnapshots>>;
      expect(seen.filter((q) => q.path.endsWith('/comments'))).toHaveLength(GRAPH_COMMENT_PAGES_MAX);
      const day = r.snapshots.find((s) => s.day === '2025-03-03')!;
      expect(day.sentimentNegative).toBe(50 * (GRAPH_COMMENT_PAGES_MAX + 1));
    });

    it("a refused comment page is a partial failure; the first page's comments are kept", async () => {
      const refused: Route = {
        ...page('C1', 0, 0, null),
        status: 403,
        body: {
          error: {
            message: '(#10) Requires instagram_manage_comments permission to manage the object',
            type: 'OAuthException',
            code: 10,
          },
        },
        source: ERRORS,
      };
      const { result } = await sync('instagram', withComments(50, [refused]));
      if (result instanceof Error) throw result;
      const r = result as Awaited<ReturnType<typeof CONNECTORS.instagram.fetchSnapshots>>;
      expect(r.failures).toMatchObject([{ call: 'GET /{ig-media-id}/comments', kind: 'permission_missing' }]);
      expect(r.snapshots.find((s) => s.day === '2025-03-03')!.sentimentNegative).toBe(50);
    });
  });

  it('a missing comments permission is a partial failure: the rest of the sync is stored', async () => {
    // Graph refuses the whole media request when the comments field needs a permission the token lacks.
    const routes = loadFixture('instagram').flatMap((r): Route[] => {
      if (!r.path.endsWith('/media')) return [r];
      if (r.query?.after) return [];
      return [
        {
          ...r,
          status: 403,
          body: {
            error: {
              message: '(#10) Requires instagram_manage_comments permission to manage the object',
              type: 'OAuthException',
              code: 10,
              fbtrace_id: 'A2',
            },
          },
          source: ERRORS,
        },
        {
          ...r,
          query: { fields: 'id,timestamp,like_count,comments_count', limit: '100' },
          body: {
            data: (r.body as { data: unknown[] }).data,
            paging: { cursors: { before: 'QVFIUjFh', after: 'QVFIUmxtZAXM2' } },
          },
          source:
            'https://developers.facebook.com/docs/instagram-platform/instagram-graph-api/reference/ig-user/media',
        },
      ];
    });
    const { result } = await sync('instagram', routes);
    if (result instanceof Error) throw result;
    const r = result as Awaited<ReturnType<typeof CONNECTORS.instagram.fetchSnapshots>>;
    expect(r.failures).toEqual([
      {
        call: 'GET /{ig-user-id}/media',
        metric: 'comments',
        kind: 'permission_missing',
        message: expect.stringContaining('(#10)'),
        scope: 'instagram_manage_comments',
      },
    ]);
    // Posts, likes, views and saves are stored; only the comment texts are missing.
    expect(r.snapshots.map((s) => [s.posts, s.likes, s.impressions, s.saves])).toEqual([
      [0, 0, 1200, 0],
      [0, 0, 1500, 0],
      [2, 60, 900, 11],
    ]);
    expect(r.snapshots.every((s) => s.sentimentPositive + s.sentimentNegative === 0)).toBe(true);
  });

  it('splits a long range into windows of at most 30 days, none before the platform today - 29, and bounds the views calls', async () => {
    // The platform's today (its Date header) is 2025-03-04; a 90-day first sync from 2024-12-05.
    const long = { since: '2024-12-05', until: '2025-03-04' };
    const any: Route[] = [
      {
        method: 'GET',
        path: `${V}/17841400000000001/insights`,
        query: { metric: 'reach,follower_count', period: 'day', since: '*', until: '*' },
        headers: { date: 'Tue, 04 Mar 2025 10:00:00 GMT' },
        body: { data: [] },
        source:
          'https://developers.facebook.com/docs/instagram-platform/api-reference/instagram-user/insights',
      },
      {
        method: 'GET',
        path: `${V}/17841400000000001/insights`,
        query: { metric: 'views', metric_type: 'total_value', period: 'day', since: '*', until: '*' },
        headers: { date: 'Tue, 04 Mar 2025 10:00:00 GMT' },
        body: { data: [] },
        source:
          'https://developers.facebook.com/docs/instagram-platform/api-reference/instagram-user/insights',
      },
    ];
    const routes = [
      ...loadFixture('instagram')
        .filter((r) => !r.path.endsWith('/insights') || r.query?.metric === 'reach,saved,shares,views')
        // The second media page is the last one here.
        .map((r) => (r.query?.after ? { ...r, body: { ...(r.body as object), paging: {} } } : r)),
      ...any,
    ];
    const { result, seen, api } = await sync('instagram', routes, { range: long });
    if (result instanceof Error) throw result;
    const day = (s: string) => new Date(Number(s) * 1000).toISOString().slice(0, 10);
    const windows = seen
      .filter((s) => s.query.metric === 'reach,follower_count')
      .map((s) => [day(s.query.since!), day(s.query.until!)]);
    expect(windows).toEqual([['2025-02-03', '2025-03-05']]);
    for (const s of seen.filter(
      (x) => x.query.metric?.startsWith('reach,follower') || x.query.metric === 'views',
    )) {
      expect(Number(s.query.until) - Number(s.query.since)).toBeLessThanOrEqual(30 * 86_400);
      expect(day(s.query.since!) >= addDays('2025-03-04', -29)).toBe(true);
    }
    const views = seen.filter((s) => s.query.metric === 'views');
    expect(views).toHaveLength(IG_VIEWS_DAYS);
    expect(views.every((s) => s.query.metric_type === 'total_value')).toBe(true);
    expect(api.requests).toBeLessThanOrEqual(ApiClient.MAX_REQUESTS);
    // Days Graph cannot give are not filled in.
    const r = result as Awaited<ReturnType<typeof CONNECTORS.instagram.fetchSnapshots>>;
    expect(r.snapshots.filter((s) => s.day < '2025-02-03').every((s) => s.impressions === 0)).toBe(true);
  });
});

describe('Facebook connector', () => {
  it('asks for page_media_view, never the removed page_impressions; a Page without insights still syncs', async () => {
    const fixture = loadFixture('facebook');
    const { result, seen } = await sync('facebook', fixture, { handle: 'acmepage' });
    if (result instanceof Error) throw result;
    expect(seen.find((s) => s.path.endsWith('/insights'))!.query.metric).toBe(
      'page_media_view,page_daily_follows_unique,page_daily_unfollows_unique',
    );
    await close?.();
    // Insights refused (a Page under 100 likes, or read_insights not granted): recorded, posts stored.
    const refused = fixture.map((r) =>
      r.path.endsWith('/insights')
        ? {
            ...r,
            status: 403,
            body: {
              error: {
                message: '(#10) This endpoint requires the read_insights permission',
                type: 'OAuthException',
                code: 10,
                fbtrace_id: 'A3',
              },
            },
            source: ERRORS,
          }
        : r,
    );
    const partial = await sync('facebook', refused, { handle: 'acmepage' });
    const r = partial.result as Awaited<ReturnType<typeof CONNECTORS.facebook.fetchSnapshots>>;
    expect(r.failures).toMatchObject([
      { call: 'GET /{page-id}/insights', kind: 'permission_missing', scope: 'read_insights' },
    ]);
    expect(r.snapshots.map((s) => s.posts)).toEqual([1, 1, 0]);
    // Follows and unfollows unknown: the audience is carried.
    expect(r.snapshots.map((s) => s.followers)).toEqual([30000, 30000, 30000]);
  });

  it("reads other people's comments only with pages_read_user_content; without it, counts without texts", async () => {
    const fixture = loadFixture('facebook');
    const routes = fixture.flatMap((r): Route[] =>
      r.path.endsWith('/published_posts') && !r.query?.after
        ? [
            {
              ...r,
              status: 403,
              body: {
                error: {
                  message: "(#10) This endpoint requires the 'pages_read_user_content' permission",
                  type: 'OAuthException',
                  code: 10,
                  fbtrace_id: 'A4',
                },
              },
              source: ERRORS,
            },
            {
              ...r,
              query: {
                ...r.query!,
                fields:
                  'id,created_time,shares,reactions.summary(total_count).limit(0),comments.summary(total_count).limit(0)',
              },
              body: { ...(r.body as object), paging: {} },
            },
          ]
        : [r],
    );
    const { result } = await sync('facebook', routes, { handle: 'acmepage' });
    if (result instanceof Error) throw result;
    const r = result as Awaited<ReturnType<typeof CONNECTORS.facebook.fetchSnapshots>>;
    expect(r.failures).toMatchObject([{ metric: 'comments', scope: 'pages_read_user_content' }]);
    expect(r.snapshots.map((s) => s.comments)).toEqual([0, 3, 0]);
  });
});
