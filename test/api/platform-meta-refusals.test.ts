import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ApiClient,
  CONNECTORS,
  ConnectorError,
  GRAPH_API_VERSION,
} from '../../src/ingest/connectors/index.ts';
import { platformEndpoints } from '../../src/platforms/oauth-config.ts';
import { loadConfig } from '../../src/infra/config.ts';
import { startSimulator, type Simulator } from '../../simulator/server.ts';
import { addDays, utcDay } from '../../src/core/days.ts';

/**
 * The simulator refuses what Meta's Graph API refuses, so the service's handling of it is tested:
 * - removed metrics: Instagram `impressions` (all versions since 2025-04-21), `views` only with
 *   metric_type=total_value, 30 days at most between since and until
 *   (https://developers.facebook.com/docs/instagram-platform/api-reference/instagram-user/insights);
 * - Pages: `page_impressions` removed on 2025-11-15 (https://developers.facebook.com/documentation/pages-api/changelog/),
 *   90 days at most (https://developers.facebook.com/docs/graph-api/reference/insights);
 * - comments need instagram_manage_comments (https://developers.facebook.com/docs/instagram-platform/instagram-graph-api/reference/ig-media/comments)
 *   or pages_read_user_content (https://developers.facebook.com/docs/permissions);
 * - throttling is a 400 with a code and the usage header, not 429 with Retry-After
 *   (https://developers.facebook.com/docs/graph-api/overview/rate-limiting/).
 */
let sim: Simulator;
const TODAY = utcDay(new Date());
beforeAll(async () => {
  sim = await startSimulator({ speed: 0, startDay: TODAY });
});
afterAll(() => sim?.close());

const unix = (day: string) => Date.parse(`${day}T00:00:00Z`) / 1000;

async function graph(
  platform: 'instagram' | 'facebook',
  token: string,
  path: string,
  query: Record<string, string>,
) {
  const url = new URL(`${sim.url}/${platform}/graph/${GRAPH_API_VERSION}${path}`);
  for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}

function client(platform: 'instagram' | 'facebook', token: string) {
  const e = platformEndpoints(loadConfig({ SIMULATOR_URL: sim.url }), platform);
  return new ApiClient({
    platform,
    baseUrls: e.apiBaseUrls,
    headers: CONNECTORS[platform].authHeaders(token),
    timeoutMs: 5000,
    maxBytes: 5_000_000,
    fetch,
    readFault: (a) => CONNECTORS[platform].readFault!(a),
  });
}

describe('the simulator refuses what Graph refuses (Meta)', () => {
  it('serves Graph under the version every Meta URL names', () => {
    const e = platformEndpoints(loadConfig({ SIMULATOR_URL: sim.url }), 'instagram');
    expect(e.apiBaseUrls.graph).toBe(`${sim.url}/instagram/graph/${GRAPH_API_VERSION}`);
    const real = platformEndpoints(loadConfig({}), 'facebook');
    expect(real.authorizeUrl).toBe(`https://www.facebook.com/${GRAPH_API_VERSION}/dialog/oauth`);
    expect(real.tokenUrl).toBe(`https://graph.facebook.com/${GRAPH_API_VERSION}/oauth/access_token`);
    expect(real.apiBaseUrls.graph).toBe(`https://graph.facebook.com/${GRAPH_API_VERSION}`);
    expect(real.scopes).toContain('pages_read_user_content');
    expect(platformEndpoints(loadConfig({}), 'instagram').scopes).toEqual(
      expect.arrayContaining(['instagram_manage_comments', 'pages_read_engagement']),
    );
  });

  it('Instagram: impressions, views without total_value and windows over 30 days are refused with code 100', async () => {
    const { access_token } = sim.issueTokens('instagram', 'refused');
    const window = { period: 'day', since: String(unix(addDays(TODAY, -6))), until: String(unix(TODAY)) };
    const impressions = await graph('instagram', access_token, '/ig_refused/insights', {
      metric: 'impressions,reach',
      ...window,
    });
    expect(impressions.status).toBe(400);
    expect(impressions.body.error).toMatchObject({ code: 100, type: 'OAuthException' });
    expect(impressions.body.error.message).toMatch(/^\(#100\) metric\[0\] must be one of/);
    const views = await graph('instagram', access_token, '/ig_refused/insights', {
      metric: 'views',
      ...window,
    });
    expect(views.status).toBe(400);
    expect(views.body.error.message).toContain('metric_type=total_value');
    const long = await graph('instagram', access_token, '/ig_refused/insights', {
      metric: 'reach',
      period: 'day',
      since: String(unix(addDays(TODAY, -29))),
      until: String(unix(addDays(TODAY, 2))),
    });
    expect(long.status).toBe(400);
    expect(long.body.error.message).toContain('30 days');
    // What the connector sends is accepted.
    const ok = await graph('instagram', access_token, '/ig_refused/insights', {
      metric: 'views',
      metric_type: 'total_value',
      ...window,
    });
    expect(ok.status).toBe(200);
    expect(ok.body.data[0]).toMatchObject({ name: 'views', total_value: { value: expect.any(Number) } });
  });

  it('Facebook: page_impressions and windows over 90 days are refused', async () => {
    const { access_token } = sim.issueTokens('facebook', 'refused');
    const removed = await graph('facebook', access_token, '/page_refused/insights', {
      metric: 'page_impressions',
      period: 'day',
    });
    expect(removed.status).toBe(400);
    expect(removed.body.error).toMatchObject({
      code: 100,
      message: '(#100) The value must be a valid insights metric',
    });
    const long = await graph('facebook', access_token, '/page_refused/insights', {
      metric: 'page_media_view',
      period: 'day',
      since: String(unix(addDays(TODAY, -95))),
      until: String(unix(TODAY)),
    });
    expect(long.status).toBe(400);
    expect(long.body.error.message).toContain('90 days');
  });

  it('comments without the permission: code 10, recorded by the connectors as a partial failure', async () => {
    const ig = sim.issueTokens(
      'instagram',
      'nocomments',
      'instagram_basic,instagram_manage_insights,pages_show_list',
    ).access_token;
    const refused = await graph('instagram', ig, '/ig_nocomments/media', {
      fields: 'id,timestamp,like_count,comments_count,comments.limit(50){text,timestamp,from}',
      limit: '100',
    });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: 10 });
    const range = { since: addDays(TODAY, -6), until: TODAY };
    const result = await CONNECTORS.instagram.fetchSnapshots(
      client('instagram', ig),
      { handle: 'nocomments', accountId: 'ig_nocomments' },
      range,
    );
    expect(result.failures).toMatchObject([
      { call: 'GET /{ig-user-id}/media', metric: 'comments', kind: 'permission_missing' },
    ]);
    expect(result.snapshots.reduce((n, s) => n + s.posts, 0)).toBeGreaterThan(0);
    expect(result.snapshots.some((s) => s.impressions > 0)).toBe(true);

    const fb = sim.issueTokens(
      'facebook',
      'nocomments',
      'pages_show_list,pages_read_engagement,read_insights',
    ).access_token;
    const page = await CONNECTORS.facebook.fetchSnapshots(
      client('facebook', fb),
      { handle: 'nocomments' },
      range,
    );
    expect(page.failures).toMatchObject([
      { metric: 'comments', kind: 'permission_missing', scope: 'pages_read_user_content' },
    ]);
    expect(page.snapshots.reduce((n, s) => n + s.comments, 0)).toBeGreaterThan(0);
    // With every permission the service asks for, nothing fails.
    const full = sim.issueTokens('facebook', 'allgranted').access_token;
    const whole = await CONNECTORS.facebook.fetchSnapshots(
      client('facebook', full),
      { handle: 'allgranted' },
      range,
    );
    expect(whole.failures).toBeUndefined();
  });

  it('throttles as Graph does: 400 with code 80002 and the usage header; the connector waits for it', async () => {
    await fetch(`${sim.url}/_sim/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ platform: 'instagram', faults: { burst429: 1, retryAfterSeconds: 120 } }),
    });
    const { access_token } = sim.issueTokens('instagram', 'busy');
    const before = Date.now();
    const error = await CONNECTORS.instagram
      .fetchSnapshots(
        client('instagram', access_token),
        { handle: 'busy', accountId: 'ig_busy' },
        {
          since: TODAY,
          until: TODAY,
        },
      )
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectorError);
    expect(error).toMatchObject({ kind: 'throttled', status: 400 });
    const wait = (error as ConnectorError).retryAt!.getTime() - before;
    expect(wait).toBeGreaterThanOrEqual(2 * 60_000 - 1000);
    expect(wait).toBeLessThan(2 * 60_000 + 10_000);
  });
});
