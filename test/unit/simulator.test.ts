import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ApiClient, CONNECTORS, ConnectorError } from '../../src/ingest/connectors/index.ts';
import { startSimulator, type Simulator } from '../../simulator/server.ts';
import { runSimulatorCli } from '../../simulator/cli.ts';
import { SyntheticAccount } from '../../simulator/accounts.ts';
import { platformEndpoints } from '../../src/platforms/oauth-config.ts';
import { loadConfig } from '../../src/infra/config.ts';
import { addDays } from '../../src/core/days.ts';
import { PLATFORMS, type Platform } from '../../src/core/catalog.ts';

const START = '2026-06-10';
let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator({ speed: 0, startDay: START });
});
afterAll(() => sim?.close());

function client(platform: Platform, token: string) {
  const e = platformEndpoints(loadConfig({ SIMULATOR_URL: sim.url }), platform);
  return new ApiClient({
    platform,
    baseUrls: e.apiBaseUrls,
    headers: CONNECTORS[platform].authHeaders(token),
    timeoutMs: 5000,
    maxBytes: 5_000_000,
    fetch,
    ...(CONNECTORS[platform].readFault ? { readFault: CONNECTORS[platform].readFault } : {}),
  });
}

async function post(path: string, body: unknown) {
  const res = await fetch(`${sim.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

describe('platform simulator', () => {
  it.each(PLATFORMS)('serves %s in the shapes its connector reads, deterministically', async (platform) => {
    const { access_token } = sim.issueTokens(platform, 'acme');
    const range = { since: addDays(START, -20), until: START };
    const account = new SyntheticAccount(platform, 'acme');
    const first = await CONNECTORS[platform].fetchSnapshots(
      client(platform, access_token),
      { handle: 'acme' },
      range,
    );
    expect(first.followers).toBe(account.followersOn(START));
    expect(first.snapshots).toHaveLength(21);
    const last = first.snapshots.at(-1)!;
    expect(last.day).toBe(START);
    expect(last.followers).toBe(account.followersOn(START));
    // Activity arrives: impressions on every day (on X, impressions are the posts').
    if (platform !== 'twitter') expect(first.snapshots.every((s) => s.impressions > 0)).toBe(true);
    expect(first.snapshots.some((s) => s.likes > 0)).toBe(true);
    expect(first.snapshots.reduce((n, s) => n + s.posts, 0)).toBe(
      first.snapshots.reduce((n, s) => n + account.metrics(s.day).posts.length, 0),
    );
    // Platforms with follower history (gains and losses) rebuild each day's audience from the daily
    // changes; Instagram reports gains only, so its audience is carried, as X's.
    if (platform !== 'twitter' && platform !== 'instagram')
      expect(first.snapshots[5]!.followers).toBe(account.followersOn(first.snapshots[5]!.day));
    const again = await CONNECTORS[platform].fetchSnapshots(
      client(platform, access_token),
      { handle: 'acme' },
      range,
    );
    expect(again).toEqual(first);
  });

  it('reveals one more day as its clock advances', async () => {
    const { access_token } = sim.issueTokens('youtube', 'grow');
    const next = addDays(sim.today(), 1);
    const range = { since: addDays(next, -2), until: next };
    const early = client('youtube', access_token);
    const before = await CONNECTORS.youtube.fetchSnapshots(early, { handle: 'grow' }, range);
    expect(before.snapshots.at(-1)!.impressions).toBe(0);
    // Its answers carry its clock (Date), which is what keeps a sync from storing the empty day.
    expect(early.platformToday).toBe(addDays(next, -1));
    expect((await post('/_sim/clock', { advance_days: 1 })).body.today).toBe(next);
    const late = client('youtube', access_token);
    const after = await CONNECTORS.youtube.fetchSnapshots(late, { handle: 'grow' }, range);
    expect(late.platformToday).toBe(next);
    expect(after.snapshots.at(-1)!.impressions).toBeGreaterThan(0);
    expect(after.followers).toBe(new SyntheticAccount('youtube', 'grow').followersOn(next));
  });

  it('started in the past, catches up with the real clock and then follows it (capAtNow)', async () => {
    let clock = Date.parse('2026-06-10T15:00:00Z');
    const behind = await startSimulator({
      speed: 1440,
      startDay: '2026-06-07',
      capAtNow: true,
      now: () => clock,
    });
    try {
      expect(behind.today()).toBe('2026-06-07');
      clock += 60_000; // a day a minute
      expect(behind.today()).toBe('2026-06-08');
      clock += 10 * 60_000; // would be 2026-06-18: held at the real today
      expect(behind.today()).toBe('2026-06-10');
      const res = await fetch(`${behind.url}/twitter/api/users/me`);
      expect(Date.parse(res.headers.get('date')!)).toBe(Math.floor(clock / 1000) * 1000);
    } finally {
      await behind.close();
    }
  });

  it('`brandhealth simulator` refuses a start day that is not a date or lies in the future', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      expect(await runSimulatorCli(['--start', '2026-02-30', '--port', '0'])).toBe(1);
      expect(await runSimulatorCli(['--start', '2999-01-01', '--port', '0'])).toBe(1);
      expect(errors.mock.calls.map((c) => String(c[0]))).toEqual([
        'brandhealth simulator: --start must be a YYYY-MM-DD date, got "2026-02-30"',
        'brandhealth simulator: --start 2999-01-01 is in the future (a platform has no days ahead of today)',
      ]);
    } finally {
      errors.mockRestore();
    }
  });

  it('refuses unknown and expired tokens the way the platform does', async () => {
    const api = client('twitter', 'sim_at_forged');
    await expect(
      CONNECTORS.twitter.fetchSnapshots(api, { handle: 'acme' }, { since: START, until: START }),
    ).rejects.toMatchObject({ status: 401 });
    await post('/_sim/faults', { platform: 'tiktok', faults: { tokenTtlSeconds: 0 } });
    const { access_token } = sim.issueTokens('tiktok', 'acme');
    const error = await CONNECTORS.tiktok
      .fetchSnapshots(client('tiktok', access_token), { handle: 'acme' }, { since: START, until: START })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectorError);
    // TikTok's API for Business refuses the token in an HTTP 200 envelope (code 40105).
    expect((error as ConnectorError).status).toBe(200);
    expect((error as ConnectorError).tokenRefused).toBe(true);
    await post('/_sim/faults', { platform: 'tiktok', faults: { tokenTtlSeconds: 3600 } });
  });

  it('lets a Meta long-lived token lapse on request: 401 with Graph code 190', async () => {
    const { access_token } = sim.issueTokens('instagram', 'lapse');
    const other = sim.issueTokens('instagram', 'stays').access_token;
    const range = { since: START, until: START };
    await CONNECTORS.instagram.fetchSnapshots(client('instagram', access_token), { handle: 'lapse' }, range);
    const expired = await post('/_sim/expire-access-tokens', { platform: 'instagram', handle: 'lapse' });
    // The user token and the Page token /me/accounts handed out with it (a Page token lapses with
    // the user token it came from).
    expect(expired).toEqual({ status: 200, body: { expired: 2 } });
    const res = await fetch(`${sim.url}/instagram/graph/ig_lapse`, {
      headers: { authorization: `Bearer ${access_token}` },
    });
    expect(res.status).toBe(401);
    expect(((await res.json()) as any).error).toMatchObject({ code: 190, type: 'OAuthException' });
    const error = await CONNECTORS.instagram
      .fetchSnapshots(client('instagram', access_token), { handle: 'lapse', accountId: 'ig_lapse' }, range)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 401, tokenRefused: true });
    // Another account's token is untouched.
    await CONNECTORS.instagram.fetchSnapshots(client('instagram', other), { handle: 'stays' }, range);
  });

  it('addresses an Instagram account by id only, as the Graph API does (no lookup by username)', async () => {
    const { access_token } = sim.issueTokens('instagram', 'acme');
    const headers = { authorization: `Bearer ${access_token}` };
    const byName = await fetch(`${sim.url}/instagram/graph/acme?fields=id,username`, { headers });
    expect(byName.status).toBe(400);
    expect(((await byName.json()) as any).error).toMatchObject({ code: 100, error_subcode: 33 });
    const byId = await fetch(`${sim.url}/instagram/graph/ig_acme?fields=id,username`, { headers });
    expect(byId.status).toBe(200);
    expect(await byId.json()).toMatchObject({ id: 'ig_acme', username: 'acme' });
  });

  it('pages Instagram media with next links under the API base, which the connector follows', async () => {
    const { access_token } = sim.issueTokens('instagram', 'pages');
    const api = client('instagram', access_token);
    const first = await api.get<any>('graph', '/ig_pages/media', { limit: '2' });
    expect(first.data).toHaveLength(2);
    // Through the connector's own check: a next link outside its base URL is refused.
    const second = await api.follow<any>('graph', first.paging.next);
    expect(second.data).toHaveLength(2);
    expect(second.data[0].id).not.toBe(first.data[0].id);
  });

  it.each([
    ['instagram', '/ig_pages/media', 'id,timestamp,comments_count,comments.limit(1){text,timestamp}', 'text'],
    [
      'facebook',
      '/page_pages/published_posts',
      'id,created_time,comments.summary(total_count).limit(1){message,created_time}',
      'message',
    ],
  ] as const)(
    "%s: pages a post's comments from the nested page through its comments edge, as Graph does",
    async (platform, path, fields, key) => {
      const { access_token } = sim.issueTokens(platform, 'pages');
      const api = client(platform, access_token);
      const page = await api.get<any>('graph', path, { fields, limit: '25' });
      const post = page.data.find((p: any) => p.comments?.paging?.next);
      expect(post, 'a post with more than one comment').toBeDefined();
      const texts: string[] = post.comments.data.map((c: any) => c[key]);
      expect(texts).toHaveLength(1);
      for (let next = post.comments.paging.next; next;) {
        const more = await api.follow<any>('graph', next);
        expect(more.data.length).toBeLessThanOrEqual(1);
        texts.push(...more.data.map((c: any) => c[key]));
        next = more.paging?.next;
      }
      // Every comment text the account holds for the post, in order, each once.
      const account = new SyntheticAccount(platform, 'pages');
      const created: string = post.timestamp ?? post.created_time;
      const totals = account.postTotals(created.slice(0, 10), sim.today())!;
      expect(texts).toEqual(totals.commentTexts.map((c) => c.text));
      expect(texts.length).toBeGreaterThan(1);
    },
  );

  it('injects 429 bursts with Retry-After, then 5xx, per platform', async () => {
    await post('/_sim/faults', {
      platform: 'facebook',
      faults: { burst429: 2, retryAfterSeconds: 7, errors5xx: 1 },
    });
    const { access_token } = sim.issueTokens('facebook', 'acme');
    const url = `${sim.url}/facebook/graph/acme`;
    const headers = { authorization: `Bearer ${access_token}` };
    const get = async () => {
      const res = await fetch(url, { headers });
      await res.arrayBuffer();
      return [res.status, res.headers.get('retry-after')];
    };
    // Graph throttles with a 400 and a code (32 for a Page), its wait in the usage header, no Retry-After.
    const throttled = await fetch(url, { headers });
    expect(throttled.status).toBe(400);
    expect(throttled.headers.get('retry-after')).toBeNull();
    expect(((await throttled.json()) as any).error).toMatchObject({ code: 32, is_transient: true });
    expect(JSON.parse(throttled.headers.get('x-business-use-case-usage')!)).toMatchObject({
      '104000000000001': [{ type: 'pages', estimated_time_to_regain_access: 1 }],
    });
    expect(await get()).toEqual([400, null]);
    expect(await get()).toEqual([503, null]);
    expect(await get()).toEqual([200, null]);
    // X throttles with a 429 whose x-rate-limit-reset (epoch seconds) says when, and no Retry-After
    // (https://docs.x.com/x-api/fundamentals/rate-limits).
    await post('/_sim/faults', { platform: 'twitter', faults: { burst429: 1, retryAfterSeconds: 7 } });
    const x = sim.issueTokens('twitter', 'acme').access_token;
    const before = Math.ceil(Date.now() / 1000);
    const limited = await fetch(`${sim.url}/twitter/api/users/me`, {
      headers: { authorization: `Bearer ${x}` },
    });
    await limited.arrayBuffer();
    expect([limited.status, limited.headers.get('retry-after')]).toEqual([429, null]);
    const reset = Number(limited.headers.get('x-rate-limit-reset'));
    // Seven seconds after the simulator answered, which was between `before` and now.
    expect(reset).toBeGreaterThanOrEqual(before + 7);
    expect(reset).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 7);
    // Other platforms are unaffected.
    const yt = sim.issueTokens('youtube', 'acme').access_token;
    const res = await fetch(`${sim.url}/youtube/data/channels?forHandle=@acme`, {
      headers: { authorization: `Bearer ${yt}` },
    });
    expect(res.status).toBe(200);
    expect((await post('/_sim/faults', { platform: 'nope', faults: {} })).status).toBe(422);
    expect((await post('/_sim/faults', { platform: 'youtube', faults: { slowMs: -1 } })).status).toBe(422);
  });

  it('is a strict OAuth 2.0 server: PKCE S256, single-use codes, redirect match, rotating refresh, revocation', async () => {
    const verifier = 'v'.repeat(50);
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const authorize = async (extra: Record<string, string> = {}) => {
      const url = new URL(`${sim.url}/twitter/oauth/authorize`);
      const q = {
        response_type: 'code',
        client_id: 'brandhealth-twitter',
        redirect_uri: 'http://app.test/cb',
        state: 's1',
        code_challenge: challenge,
        code_challenge_method: 'S256',
        login_hint: 'oauthy',
        ...extra,
      };
      for (const [k, v] of Object.entries(q)) url.searchParams.set(k, v);
      const res = await fetch(url, { redirect: 'manual' });
      return new URL(res.headers.get('location')!).searchParams;
    };
    // X's confidential client: HTTP Basic, and its client_id in the form.
    const token = async (form: Record<string, string>, secret = 'simulator-secret') => {
      const res = await fetch(`${sim.url}/twitter/oauth/token`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`brandhealth-twitter:${secret}`).toString('base64')}`,
        },
        body: new URLSearchParams({ client_id: 'brandhealth-twitter', ...form }),
      });
      return { status: res.status, body: (await res.json()) as any };
    };
    expect((await authorize({ code_challenge_method: 'plain' })).get('error')).toBe('invalid_request');
    const code = (await authorize()).get('code')!;
    const exchange = { grant_type: 'authorization_code', code, redirect_uri: 'http://app.test/cb' };
    expect((await token({ ...exchange, code_verifier: 'w'.repeat(50) })).body.error).toBe('invalid_grant');
    // A failed attempt burns the code too.
    expect((await token({ ...exchange, code_verifier: verifier })).body.error).toBe('invalid_grant');
    const code2 = (await authorize()).get('code')!;
    expect(
      (
        await token({
          ...exchange,
          code: code2,
          redirect_uri: 'http://evil.test/cb',
          code_verifier: verifier,
        })
      ).body.error,
    ).toBe('invalid_grant');
    const code3 = (await authorize()).get('code')!;
    const ok = await token({ ...exchange, code: code3, code_verifier: verifier });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600, open_id: 'oauthy' });
    expect((await token({ ...exchange, code: code3, code_verifier: verifier })).body.error).toBe(
      'invalid_grant',
    );
    expect(
      (await token({ grant_type: 'refresh_token', refresh_token: ok.body.refresh_token }, 'x')).status,
    ).toBe(401);
    const rotated = await token({ grant_type: 'refresh_token', refresh_token: ok.body.refresh_token });
    expect(rotated.status).toBe(200);
    expect(
      (await token({ grant_type: 'refresh_token', refresh_token: ok.body.refresh_token })).body.error,
    ).toBe('invalid_grant');
    const revoke = await fetch(`${sim.url}/twitter/oauth/revoke`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from('brandhealth-twitter:simulator-secret').toString('base64')}`,
      },
      body: new URLSearchParams({ client_id: 'brandhealth-twitter', token: rotated.body.refresh_token }),
    });
    expect(revoke.status).toBe(200);
    const me = await fetch(`${sim.url}/twitter/api/users/me`, {
      headers: { authorization: `Bearer ${rotated.body.access_token}` },
    });
    expect(me.status).toBe(401);
    sim.setFaults('twitter', { denyConsent: true });
    expect((await authorize()).get('error')).toBe('access_denied');
    sim.setFaults('twitter', { denyConsent: false });
  });

  it('answers slowly when told to', async () => {
    sim.setFaults('instagram', { slowMs: 300 });
    const { access_token } = sim.issueTokens('instagram', 'slow');
    const started = Date.now();
    const res = await fetch(`${sim.url}/instagram/graph/ig_slow`, {
      headers: { authorization: `Bearer ${access_token}` },
    });
    expect(res.status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    sim.setFaults('instagram', { slowMs: 0 });
  });
});
