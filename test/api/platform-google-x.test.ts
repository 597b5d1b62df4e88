import { bindingCookieOf, closeSimulatedService, startSimulatedService } from '../helpers/simulator-oauth.ts';
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { X_PUBLIC_CLIENT_ID, type Simulator } from '../../simulator/server.ts';
import { runSyncJob, syncJob, type SyncJob } from '../../src/platforms/sync-worker.ts';
import { nextPacificMidnight } from '../../src/ingest/connectors/youtube.ts';
import { oauthParties, platformEndpoints } from '../../src/platforms/oauth-config.ts';
import { clientAuth, getAccessToken, oauthOptions } from '../../src/platforms/vault.ts';
import { loadConfig } from '../../src/infra/config.ts';
import type { Platform } from '../../src/core/catalog.ts';
import { expectProblem, workspaceWithKey, type TestService } from '../helpers/service.ts';

/**
 * Google (YouTube) and X against the simulator, which refuses what they refuse: Google names itself in
 * the redirect (iss) and issues a refresh token only for offline access; X wants HTTP Basic from a
 * confidential client; both throttle with their own signals (Google's 403 quotaExceeded, X's
 * x-rate-limit-reset), and Google refuses a token without the endpoint's scope.
 */
let sim: Simulator;
let t: TestService;
const NOW = new Date();
beforeAll(async () => ({ sim, t } = await startSimulatedService(NOW)));
afterAll(() => closeSimulatedService({ sim, t }));

const YT = 'https://www.googleapis.com/auth/';
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

/** POST connect and "visit" the authorization URL as `login`, after `edit`; returns the redirect back. */
async function consent(key: string, platform: Platform, login: string, edit: (url: URL) => void = () => {}) {
  const started = await t.request({ method: 'POST', url: `/v1/platforms/${platform}/connect`, key });
  expect(started.statusCode, started.body).toBe(200);
  const url = new URL(started.json().authorization_url);
  url.searchParams.set('login_hint', login);
  edit(url);
  const res = await fetch(url, { redirect: 'manual' });
  expect(res.status).toBe(302);
  const back = new URL(res.headers.get('location')!);
  // The callback comes back to the browser that started the flow, with its binding cookie.
  cookies.set(url.searchParams.get('state')!, bindingCookieOf(started.headers['set-cookie']));
  return { url, back };
}

/** The binding cookie of each started flow, by its state. */
const cookies = new Map<string, string>();
const callback = (back: URL) =>
  t.request({
    method: 'GET',
    url: `${back.pathname}${back.search}`,
    headers: { cookie: cookies.get(back.searchParams.get('state') ?? '') ?? '' },
  });

const connectionOf = (workspaceId: string, platform: Platform) =>
  t.db
    .selectFrom('platform_connections')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('platform', '=', platform)
    .executeTakeFirstOrThrow();

async function queuedFor(platform: Platform, connectionId: string) {
  const { rows } = await sql<{ data: SyncJob; start_after: Date }>`
    SELECT data, start_after FROM pgboss.job WHERE name = ${syncJob(platform).queue} AND state = 'created'`.execute(
    t.db,
  );
  return rows.filter((r) => r.data.connectionId === connectionId);
}

describe('Google OAuth (YouTube)', () => {
  it('asks for offline access and the three scopes, checks the issuer the simulator names, and keeps a refresh token', async () => {
    const { workspace, key } = await workspaceWithKey(t.db, { plan: 'agency' });
    const { url, back } = await consent(key, 'youtube', 'offlinetube');
    expect(url.searchParams.get('access_type')).toBe('offline');
    expect(url.searchParams.get('prompt')).toBe('consent');
    expect(url.searchParams.get('include_granted_scopes')).toBe('true');
    expect(url.searchParams.get('scope')!.split(' ')).toEqual([
      `${YT}youtube.readonly`,
      `${YT}yt-analytics.readonly`,
      `${YT}youtube.force-ssl`,
    ]);
    // As Google's: the redirect names the authorization server; pointing at the simulator, its issuer is
    // the simulator's own.
    expect(back.searchParams.get('iss')).toBe(`${sim.url}/youtube`);
    const done = await callback(back);
    expect(done.statusCode, done.body).toBe(200);
    const row = await connectionOf(workspace.id, 'youtube');
    expect(row).toMatchObject({ status: 'connected', account_id: 'UCofflinetube' });
    expect(row.refresh_token).not.toBeNull();
    // The first sync reads the channel by the stored id, the report, uploads and comment threads.
    expect(await runSyncJob(t.ctx, { connectionId: row.id, round: 'r1', attempt: 1 })).toBe('synced');
  });

  it('the real platform is checked against https://accounts.google.com, whatever the token endpoint', () => {
    const e = platformEndpoints(
      loadConfig({ PLATFORM_YOUTUBE_CLIENT_ID: 'id', PLATFORM_YOUTUBE_CLIENT_SECRET: 's' }),
      'youtube',
    );
    expect(e.tokenUrl).toBe('https://oauth2.googleapis.com/token');
    expect(oauthParties(e).as.issuer).toBe('https://accounts.google.com');
    const sim = platformEndpoints(loadConfig({ SIMULATOR_URL: 'http://127.0.0.1:9' }), 'youtube');
    expect(oauthParties(sim).as.issuer).toBe('http://127.0.0.1:9/youtube');
  });

  it('refuses a redirect whose iss is not the authorization server it asked', async () => {
    const { workspace, key } = await workspaceWithKey(t.db, { plan: 'agency' });
    for (const iss of ['https://evil.example', 'https://accounts.google.com']) {
      const { back } = await consent(key, 'youtube', 'mixup');
      back.searchParams.set('iss', iss);
      expectProblem(await callback(back), 400, 'Authorization Failed');
    }
    const rows = await t.db
      .selectFrom('platform_connections')
      .select('id')
      .where('workspace_id', '=', workspace.id)
      .execute();
    expect(rows).toEqual([]);
  });

  it('without access_type=offline Google issues no refresh token: once the access token lapses the connection needs reauthorisation', async () => {
    const { workspace, key } = await workspaceWithKey(t.db, { plan: 'agency' });
    const { back } = await consent(key, 'youtube', 'onlinetube', (url) =>
      url.searchParams.delete('access_type'),
    );
    expect((await callback(back)).statusCode).toBe(200);
    const row = await connectionOf(workspace.id, 'youtube');
    expect(row.refresh_token).toBeNull();
    expect(sim.expireAccessTokens('youtube', 'onlinetube')).toBe(1);
    await t.db
      .updateTable('platform_connections')
      .set({ token_expires_at: new Date(Date.now() - 1000) })
      .where('id', '=', row.id)
      .execute();
    await runSyncJob(t.ctx, { connectionId: row.id, round: 'r1', attempt: 1 });
    expect(await connectionOf(workspace.id, 'youtube')).toMatchObject({ status: 'reauth_required' });
  });

  it('after the first offline consent, a refresh token again only with prompt=consent', async () => {
    const verifier = 'v'.repeat(50);
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const grant = async (extra: Record<string, string>) => {
      const url = new URL(`${sim.url}/youtube/oauth/authorize`);
      const q = {
        response_type: 'code',
        client_id: 'brandhealth-youtube',
        redirect_uri: 'http://app.test/cb',
        scope: `${YT}youtube.readonly`,
        code_challenge: challenge,
        code_challenge_method: 'S256',
        login_hint: 'reconsent',
        ...extra,
      };
      for (const [k, v] of Object.entries(q)) url.searchParams.set(k, v);
      const code = new URL(
        (await fetch(url, { redirect: 'manual' })).headers.get('location')!,
      ).searchParams.get('code')!;
      const res = await fetch(`${sim.url}/youtube/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code,
          redirect_uri: 'http://app.test/cb',
          code_verifier: verifier,
          client_id: 'brandhealth-youtube',
          client_secret: 'simulator-secret',
        }),
      });
      expect(res.status).toBe(200);
      return (await res.json()) as { refresh_token?: string; access_token: string };
    };
    const first = await grant({ access_type: 'offline' });
    expect(first.refresh_token).toBeDefined();
    expect((await grant({ access_type: 'offline' })).refresh_token).toBeUndefined();
    expect((await grant({ access_type: 'offline', prompt: 'consent' })).refresh_token).toBeDefined();
    // Google keeps the refresh token on refresh: the answer carries a new access token only.
    const refreshed = await fetch(`${sim.url}/youtube/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: first.refresh_token!,
        client_id: 'brandhealth-youtube',
        client_secret: 'simulator-secret',
      }),
    });
    const body = (await refreshed.json()) as Record<string, unknown>;
    expect(body.access_token).toBeDefined();
    expect(body.refresh_token).toBeUndefined();
  });

  it('refuses a token without the scope an endpoint needs, as Google does (403 insufficientPermissions)', async () => {
    const readOnly = sim.issueTokens('youtube', 'scoped');
    const get = (path: string, token: string) =>
      fetch(`${sim.url}/youtube/data/${path}`, { headers: { authorization: `Bearer ${token}` } });
    // A full token reads comment threads; a connection consented without youtube.force-ssl cannot.
    expect(
      (await get('commentThreads?part=snippet&allThreadsRelatedToChannelId=UCscoped', readOnly.access_token))
        .status,
    ).toBe(200);
    const { workspace, key } = await workspaceWithKey(t.db, { plan: 'agency' });
    const { back } = await consent(key, 'youtube', 'scoped', (url) =>
      url.searchParams.set('scope', `${YT}youtube.readonly ${YT}yt-analytics.readonly`),
    );
    expect((await callback(back)).statusCode).toBe(200);
    const row = await connectionOf(workspace.id, 'youtube');
    const token = await getAccessToken(t.ctx, row.id);
    const refused = await get('commentThreads?part=snippet&allThreadsRelatedToChannelId=UCscoped', token);
    expect(refused.status).toBe(403);
    expect(refused.headers.get('www-authenticate')).toContain(`scope="${YT}youtube.force-ssl"`);
    expect(((await refused.json()) as any).error.errors[0].reason).toBe('insufficientPermissions');
    // Comments are what the sync can do without: it still stores the rest.
    expect(await runSyncJob(t.ctx, { connectionId: row.id, round: 'r1', attempt: 1 })).toBe('synced');
    const days = await t.db
      .selectFrom('metric_snapshots')
      .select('day')
      .where('workspace_id', '=', workspace.id)
      .execute();
    expect(days.length).toBeGreaterThan(0);
    // Without youtube.readonly not even the account can be read: nothing is connected.
    const { workspace: w2, key: k2 } = await workspaceWithKey(t.db, { plan: 'agency' });
    const second = await consent(k2, 'youtube', 'noread', (url) =>
      url.searchParams.set('scope', `${YT}yt-analytics.readonly`),
    );
    expect((await callback(second.back)).statusCode).toBeGreaterThanOrEqual(400);
    const none = await t.db
      .selectFrom('platform_connections')
      .select('id')
      .where('workspace_id', '=', w2.id)
      .execute();
    expect(none).toEqual([]);
  });

  it('a spent daily quota (403 quotaExceeded) defers the sync to midnight Pacific Time', async () => {
    const { workspace, key } = await workspaceWithKey(t.db, { plan: 'agency' });
    const { back } = await consent(key, 'youtube', 'quotatube');
    expect((await callback(back)).statusCode).toBe(200);
    const row = await connectionOf(workspace.id, 'youtube');
    sim.setFaults('youtube', { burst429: 1 });
    const before = Date.now();
    expect(await runSyncJob(t.ctx, { connectionId: row.id, round: 'rq', attempt: 1 })).toBe('deferred');
    const [retry] = await queuedFor('youtube', row.id);
    const expected = nextPacificMidnight(before).getTime();
    expect(Math.abs(retry!.start_after.getTime() - expected)).toBeLessThan(10_000);
    const listed = await t.request({ method: 'GET', url: '/v1/platforms', key });
    expect(listed.json().platforms[0]).toMatchObject({
      status: 'connected',
      last_error: { class: 'rate_limited' },
    });
  });
});

describe('X OAuth 2.0 and throttling', () => {
  const token = (form: Record<string, string>, headers: Record<string, string> = {}) =>
    fetch(`${sim.url}/twitter/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams(form),
    }).then(async (res) => ({ status: res.status, body: (await res.json()) as Record<string, unknown> }));

  it('refuses a confidential client whose secret is in the form (401 unauthorized_client), accepts HTTP Basic', async () => {
    const refresh = sim.issueTokens('twitter', 'basicx').refresh_token;
    const form = { grant_type: 'refresh_token', refresh_token: refresh, client_id: 'brandhealth-twitter' };
    expect(await token({ ...form, client_secret: 'simulator-secret' })).toEqual({
      status: 401,
      body: { error: 'unauthorized_client', error_description: 'Missing valid authorization header' },
    });
    const { client_id: _, ...withoutId } = form;
    expect(
      (await token(withoutId, { authorization: basic('brandhealth-twitter', 'simulator-secret') })).body
        .error,
    ).toBe('invalid_request');
    const ok = await token(form, { authorization: basic('brandhealth-twitter', 'simulator-secret') });
    expect(ok.status).toBe(200);
    expect(ok.body.refresh_token).toBeDefined();
  });

  it('the service connects X as a confidential client (Basic) and as a public client (PKCE only)', async () => {
    const { workspace, key } = await workspaceWithKey(t.db, { plan: 'agency' });
    const { back } = await consent(key, 'twitter', 'confidentialx');
    expect((await callback(back)).statusCode).toBe(200);
    expect(await connectionOf(workspace.id, 'twitter')).toMatchObject({
      status: 'connected',
      account_id: 'xconfidentialx',
    });

    // A public client: the operator registers X's client id without a secret.
    const config = loadConfig({ SIMULATOR_URL: sim.url, PLATFORM_TWITTER_CLIENT_ID: X_PUBLIC_CLIENT_ID });
    const e = platformEndpoints(config, 'twitter');
    expect(e.clientSecret).toBeNull();
    const { as, client } = oauthParties(e);
    const verifier = oauth.generateRandomCodeVerifier();
    const url = new URL(e.authorizeUrl);
    for (const [k, v] of Object.entries({
      response_type: 'code',
      client_id: X_PUBLIC_CLIENT_ID,
      redirect_uri: 'http://app.test/cb',
      scope: e.scopes.join(' '),
      state: 'st',
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      login_hint: 'publicx',
    }))
      url.searchParams.set(k, v);
    const redirect = new URL((await fetch(url, { redirect: 'manual' })).headers.get('location')!);
    const params = oauth.validateAuthResponse(as, client, redirect.searchParams, 'st');
    const response = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      clientAuth(e),
      params,
      'http://app.test/cb',
      verifier,
      oauthOptions(e),
    );
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, response);
    expect(tokens.refresh_token).toBeDefined();
    // The confidential client's id without Basic is not a public client.
    expect(
      (
        await token({
          grant_type: 'refresh_token',
          refresh_token: tokens.refresh_token!,
          client_id: 'brandhealth-twitter',
        })
      ).status,
    ).toBe(401);
  });

  it('a 429 is retried when x-rate-limit-reset says (X sends no Retry-After)', async () => {
    const { workspace, key } = await workspaceWithKey(t.db, { plan: 'agency' });
    const { back } = await consent(key, 'twitter', 'throttledx');
    expect((await callback(back)).statusCode).toBe(200);
    const row = await connectionOf(workspace.id, 'twitter');
    sim.setFaults('twitter', { burst429: 1, retryAfterSeconds: 600 });
    const throttled = await fetch(`${sim.url}/twitter/api/users/me`, {
      headers: { authorization: `Bearer ${sim.issueTokens('twitter', 'peek').access_token}` },
    });
    expect(throttled.status).toBe(429);
    expect(throttled.headers.get('retry-after')).toBeNull();
    const reset = Number(throttled.headers.get('x-rate-limit-reset'));
    expect(reset * 1000 - Date.now()).toBeGreaterThan(590_000);
    sim.setFaults('twitter', { burst429: 1, retryAfterSeconds: 600 });
    expect(await runSyncJob(t.ctx, { connectionId: row.id, round: 'rx', attempt: 1 })).toBe('deferred');
    const [retry] = await queuedFor('twitter', row.id);
    const delay = retry!.start_after.getTime() - Date.now();
    // The reset, not the 30 s backoff a throttle without a signal gets.
    expect(delay).toBeGreaterThan(580_000);
    expect(delay).toBeLessThanOrEqual(605_000);
  });
});
