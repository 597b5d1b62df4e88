import { createHash } from 'node:crypto';
import * as oauth from 'oauth4webapi';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, CONNECTORS, ConnectorError } from '../../src/ingest/connectors/index.ts';
import { startSimulator, type Simulator } from '../../simulator/server.ts';
import { platformEndpoints, REAL_OAUTH } from '../../src/platforms/oauth-config.ts';
import * as tiktokBusiness from '../../src/platforms/tiktok-business-oauth.ts';
import { loadConfig } from '../../src/infra/config.ts';
import { addDays } from '../../src/core/days.ts';
import { fixtureServer, loadFixture, type Route } from './connectors-fixtures/server.ts';

/**
 * TikTok API for Business (TikTok account holders): the 200-envelope error reading, the lookback cap,
 * comments for sentiment through partial(), the JSON token endpoints, and the simulator refusing what
 * TikTok refuses.
 */
const connector = CONNECTORS.tiktok;
const RETURN_CODES = 'https://business-api.tiktok.com/portal/docs?id=1738373164380162';
const range = { since: '2025-03-01', until: '2025-03-03' };
let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

async function run(routes: Route[], r = range) {
  const server = await fixtureServer(routes);
  close = server.close;
  const api = new ApiClient({
    platform: 'tiktok',
    baseUrls: { business: `${server.origin}/open_api/v1.3` },
    headers: connector.authHeaders('tok_123'),
    timeoutMs: 5000,
    maxBytes: 1_000_000,
    fetch,
    readFault: connector.readFault!,
  });
  const result = await connector.fetchSnapshots(api, { handle: 'acme' }, r);
  return { ...result, seen: server.seen };
}

/** The recorded exchanges with one of them answering a Business API error envelope (HTTP 200). */
function failing(path: string, code: number, message: string): Route[] {
  return loadFixture('tiktok').map((r) =>
    r.path.endsWith(path)
      ? { ...r, source: RETURN_CODES, body: { code, message, request_id: '2025030401', data: {} } }
      : r,
  );
}

describe('TikTok Business API envelopes', () => {
  it.each([
    [40105, 'Access token is incorrect or has been revoked.', 'token_refused', null],
    [40100, 'Too many requests. Please retry in some time.', 'throttled', null],
    [
      40001,
      'No permission to operate: the scope user.insights is not authorized.',
      'permission_missing',
      'user.insights',
    ],
    [40007, 'The business account does not exist.', 'account_gone', null],
    [50002, 'System error.', 'unavailable', null],
    [40002, 'Invalid parameter: end_date.', 'invalid_request', null],
  ] as const)('code %i (%s) on /business/get/, HTTP 200, reads as %s', async (code, message, kind, scope) => {
    const error = await run(failing('/business/get/', code, message)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectorError);
    expect(error).toMatchObject({ kind, status: 200, scope, call: '/open_api/v1.3/business/get/' });
    expect((error as Error).message).toContain(`code ${code}`);
  });

  it('an answer that is not an envelope is an unreadable answer, not a success', async () => {
    const routes = loadFixture('tiktok').map((r) =>
      r.path.endsWith('/business/get/') ? { ...r, body: { display_name: 'no envelope' } } : r,
    );
    await expect(run(routes)).rejects.toMatchObject({ kind: 'invalid_response' });
  });

  it('a comment list TikTok refuses is a partial failure: the metrics are kept, and no other video is tried without the permission', async () => {
    const r = await run(
      failing(
        '/business/comment/list/',
        40001,
        'No permission to operate: the scope comment.list is not authorized.',
      ),
    );
    expect(r.snapshots.map((s) => s.impressions)).toEqual([3000, 4100, 2500]);
    expect(r.snapshots.every((s) => s.sentimentPositive === 0 && s.sentimentNegative === 0)).toBe(true);
    expect(r.failures).toEqual([
      expect.objectContaining({
        call: 'GET /business/comment/list/',
        metric: 'comments',
        kind: 'permission_missing',
        scope: 'comment.list',
      }),
    ]);
    expect(r.seen.filter((s) => s.path.endsWith('/comment/list/'))).toHaveLength(1);
  });

  it('reads every comment of a video by paging with cursor while has_more (here 75 over three pages)', async () => {
    const comment = (i: number) => ({
      video_id: '7340000000000000002',
      text: 'still waiting for my refund, three weeks now',
      create_time: '1740920400',
      comment_id: `7340000000000000${i}`,
      status: 'PUBLIC',
      likes: 0,
      replies: 0,
      owner: false,
    });
    const page = (cursor: number | null, from: number, n: number, hasMore: boolean): Route => ({
      method: 'GET',
      path: '/open_api/v1.3/business/comment/list/',
      query: {
        business_id: 'acme',
        video_id: '7340000000000000002',
        max_count: '30',
        ...(cursor === null ? {} : { cursor: String(cursor) }),
      },
      source: 'https://ads.tiktok.com/marketing_api/docs?id=1733329505077250',
      body: {
        code: 0,
        message: 'OK',
        request_id: `2025030401010101${from}`,
        data: {
          comments: Array.from({ length: n }, (_, i) => comment(from + i)),
          cursor: from + n,
          has_more: hasMore,
        },
      },
    });
    const routes = [
      ...loadFixture('tiktok').filter(
        (r) => !(r.path.endsWith('/comment/list/') && r.query?.video_id === '7340000000000000002'),
      ),
      page(null, 0, 30, true),
      page(30, 30, 30, true),
      page(60, 60, 15, false),
    ];
    const r = await run(routes);
    expect(r.failures).toBeUndefined();
    expect(
      r.seen
        .filter((s) => s.path.endsWith('/comment/list/') && s.query.video_id === '7340000000000000002')
        .map((s) => s.query.cursor ?? null),
    ).toEqual([null, '30', '60']);
    expect(r.snapshots.find((s) => s.day === '2025-03-02')!.sentimentNegative).toBe(75);
  });

  it('a refused token on the comments stops the whole sync (every call would meet it)', async () => {
    const error = await run(
      failing('/business/comment/list/', 40105, 'Access token is incorrect or has been revoked.'),
    ).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'token_refused' });
  });

  it('asks no further back than the 60-day lookback; older days are not reported', async () => {
    const long = { since: addDays(range.until, -89), until: range.until };
    // Every video of the fixture's three pages is inside this window (the third page ends the list).
    const routes: Route[] = loadFixture('tiktok');
    const r = await run(routes, long);
    const get = r.seen.find((s) => s.path.endsWith('/business/get/'))!;
    expect(get.query).toMatchObject({ start_date: addDays(range.until, -59), end_date: range.until });
    expect(r.snapshots).toHaveLength(60);
    expect(r.snapshots[0]!.day).toBe(addDays(range.until, -59));
    expect(r.snapshots.reduce((n, s) => n + s.posts, 0)).toBe(4);
    expect(r.failures).toBeUndefined();
  });
});

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator({ speed: 0, startDay: '2026-06-10' });
});
afterAll(() => sim?.close());

const endpoints = () => platformEndpoints(loadConfig({ SIMULATOR_URL: sim.url }), 'tiktok');
const REDIRECT = 'http://brandhealth.test/v1/platforms/tiktok/callback';

/** The consent screen, signed in as `login`, granting `scopes`: the code of the redirect. */
async function consent(login: string, scopes: string): Promise<string> {
  const url = new URL(`${sim.url}/tiktok/oauth/authorize`);
  const verifier = 'v'.repeat(43);
  url.search = new URLSearchParams({
    client_key: 'brandhealth-tiktok',
    response_type: 'code',
    redirect_uri: REDIRECT,
    scope: scopes,
    state: 's',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    login_hint: login,
  }).toString();
  const back = new URL((await fetch(url, { redirect: 'manual' })).headers.get('location')!);
  return back.searchParams.get('code')!;
}

async function businessGet(headers: Record<string, string>, fields: string[]) {
  const url = new URL(`${sim.url}/tiktok/business/business/get/`);
  url.searchParams.set('business_id', 'acme');
  url.searchParams.set('fields', JSON.stringify(fields));
  const res = await fetch(url, { headers });
  return { status: res.status, body: (await res.json()) as { code: number; message: string } };
}

describe('TikTok Business account-holder token endpoints (against the simulator)', () => {
  it('derives the refresh endpoint from the token endpoint', () => {
    expect(tiktokBusiness.refreshUrl(REAL_OAUTH.tiktok.tokenUrl)).toBe(
      'https://business-api.tiktok.com/open_api/v1.3/tt_user/oauth2/refresh_token/',
    );
    expect(() => tiktokBusiness.refreshUrl('https://example.com/oauth/exchange')).toThrow(/refresh endpoint/);
  });

  it('exchanges the code with a JSON body, refreshes with rotation, revokes by access token', async () => {
    const e = endpoints();
    const code = await consent(
      'acme',
      'user.info.basic,user.info.username,user.info.stats,user.insights,video.list',
    );
    const first = await tiktokBusiness.exchangeCode(e, code, REDIRECT);
    expect(first).toMatchObject({
      token_type: 'bearer',
      open_id: 'acme',
      scope: 'user.info.basic,user.info.username,user.info.stats,user.insights,video.list',
    });
    expect(first.expires_in).toBeGreaterThan(0);
    // A code is single use: TikTok refuses it again with an envelope (HTTP 200), read as invalid_grant.
    const again = await tiktokBusiness.exchangeCode(e, code, REDIRECT).catch((x: unknown) => x);
    expect(again).toBeInstanceOf(oauth.ResponseBodyError);
    expect(again).toMatchObject({ error: 'invalid_grant', status: 200 });
    expect((again as oauth.ResponseBodyError).error_description).toContain('40131');

    const second = await tiktokBusiness.refresh(e, first.refresh_token!);
    expect(second.access_token).not.toBe(first.access_token);
    expect(second.refresh_token).not.toBe(first.refresh_token);
    // The refresh token rotated: the old one is refused.
    await expect(tiktokBusiness.refresh(e, first.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
    // Wrong client credentials: TikTok's "illegal access partner", an invalid_client.
    await expect(
      tiktokBusiness.refresh({ ...e, clientSecret: 'wrong' }, second.refresh_token!),
    ).rejects.toMatchObject({ error: 'invalid_client' });

    expect((await businessGet({ 'access-token': second.access_token }, ['username'])).body.code).toBe(0);
    await tiktokBusiness.revoke(e, second.access_token);
    expect((await businessGet({ 'access-token': second.access_token }, ['username'])).body).toMatchObject({
      code: 40105,
    });
    await expect(tiktokBusiness.refresh(e, second.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
  });

  it('the simulator refuses form-encoded token requests, Login Kit bearer tokens, missing scopes, all with HTTP 200 envelopes', async () => {
    const form = await fetch(`${sim.url}/tiktok/oauth/token`, {
      method: 'POST',
      body: new URLSearchParams({
        client_key: 'brandhealth-tiktok',
        client_secret: 'simulator-secret',
        grant_type: 'authorization_code',
        code: 'x',
        redirect_uri: REDIRECT,
      }),
    });
    expect(form.status).toBe(200);
    expect(await form.json()).toMatchObject({ code: 40002 });

    const e = endpoints();
    const narrow = await tiktokBusiness.exchangeCode(
      e,
      await consent('acme', 'user.info.basic,video.list'),
      REDIRECT,
    );
    // The Business API reads the token from Access-Token only: a bearer token (Login Kit's way) is refused.
    const bearer = await businessGet({ authorization: `Bearer ${narrow.access_token}` }, ['username']);
    expect(bearer).toMatchObject({ status: 200, body: { code: 40105 } });
    // A field whose scope was not granted.
    const insights = await businessGet({ 'access-token': narrow.access_token }, ['video_views']);
    expect(insights).toMatchObject({ status: 200, body: { code: 40001 } });
    expect(insights.body.message).toContain('user.insights');
    // The comments endpoint without comment.list.
    const comments = new URL(`${sim.url}/tiktok/business/business/comment/list/`);
    comments.search = new URLSearchParams({ business_id: 'acme', video_id: '1', max_count: '30' }).toString();
    const refused = await fetch(comments, { headers: { 'access-token': narrow.access_token } });
    expect(refused.status).toBe(200);
    expect(await refused.json()).toMatchObject({ code: 40001 });
    // Another account's business_id.
    const url = new URL(`${sim.url}/tiktok/business/business/get/`);
    url.search = new URLSearchParams({ business_id: 'someoneelse', fields: '["username"]' }).toString();
    const foreign = await fetch(url, { headers: { 'access-token': narrow.access_token } });
    expect(await foreign.json()).toMatchObject({ code: 40001 });
  });

  it('the simulator refuses a start_date beyond the 60-day lookback', async () => {
    const { access_token } = sim.issueTokens('tiktok', 'acme');
    const url = new URL(`${sim.url}/tiktok/business/business/get/`);
    url.search = new URLSearchParams({
      business_id: 'acme',
      start_date: addDays(sim.today(), -61),
      end_date: sim.today(),
      fields: '["video_views"]',
    }).toString();
    const res = await fetch(url, { headers: { 'access-token': access_token } });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ code: 40002 });
  });
});
