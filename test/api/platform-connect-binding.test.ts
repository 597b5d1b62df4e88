import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../simulator/server.ts';
import { createWorkspace } from '../../src/admin/workspaces.ts';
import { createApiKey } from '../../src/admin/keys.ts';
import { connectionScopes } from '../../src/platforms/scopes.ts';
import { getAccessToken } from '../../src/platforms/vault.ts';
import { expectProblem, startTestService, workspaceWithKey, type TestService } from '../helpers/service.ts';
import { bindingCookieOf } from '../helpers/simulator-oauth.ts';
import type { Platform } from '../../src/core/catalog.ts';
import { signedInPerson, type Browser } from '../helpers/people.ts';
import { auditEntries } from '../helpers/audit-log.ts';

/**
 * The connect flow's boundaries (docs/ingestion.md "Connecting an account"): who may complete an
 * authorisation (the browser or key that started it, RFC 9700 4.7), which account it attaches
 * (the brand picks among several; a reconnect only its own), and what the platform granted.
 * No PUBLIC_URL: the redirect URI comes from the request only on loopback.
 */
let sim: Simulator;
let t: TestService;
beforeAll(async () => {
  sim = await startSimulator({ speed: 0 });
  t = await startTestService(
    {},
    {
      SIMULATOR_URL: sim.url,
      // Facebook also asks for the comment scope, which the score can do without.
      PLATFORM_FACEBOOK_SCOPES: 'pages_show_list,pages_read_engagement,read_insights,pages_read_user_content',
    },
  );
});
afterAll(async () => {
  await t?.close();
  await sim?.close();
});

/**
 * POST connect as `starter` (an API key, or a signed-in person's browser); the consent at the
 * simulator signed in as `login`; the redirect back.
 */
async function consent(starter: string | Browser, platform: Platform, login: string, query = '') {
  const url0 = `/v1/platforms/${platform}/connect${query}`;
  const started =
    typeof starter === 'string'
      ? await t.request({ method: 'POST', url: url0, key: starter })
      : await starter.request('POST', url0);
  expect(started.statusCode, started.body).toBe(200);
  const url = new URL(started.json().authorization_url);
  url.searchParams.set('login_hint', login);
  const answer = await fetch(url, { redirect: 'manual' });
  expect(answer.status).toBe(302);
  const back = new URL(answer.headers.get('location')!);
  return {
    id: started.json().id as string,
    cookie: bindingCookieOf(started.headers['set-cookie']),
    callback: `${back.pathname}${back.search}`,
    query: Object.fromEntries(back.searchParams),
  };
}

/** The same browser follows the redirect back. */
async function connect(key: string, platform: Platform, login: string) {
  const c = await consent(key, platform, login);
  return t.request({ method: 'GET', url: c.callback, headers: { cookie: c.cookie } });
}

const connections = (workspaceId: string) =>
  t.db
    .selectFrom('platform_connections')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .orderBy('connected_at')
    .execute();

describe('who may complete an authorisation', () => {
  it('a person who merely consents at a URL someone else started attaches nothing (connect-CSRF)', async () => {
    const attacker = await workspaceWithKey(t.db, { plan: 'pro' });
    // The attacker starts, and sends the authorization URL to the victim, who consents as themself;
    // the victim's browser follows the redirect to the callback. It has no binding cookie.
    const lure = await consent(attacker.key, 'tiktok', 'victimbrand');
    const victim = await t.request({ method: 'GET', url: lure.callback });
    expectProblem(victim, 403, 'Connect Started Elsewhere');
    // Nor does a cookie of another attempt (the attacker's own browser, another state) help.
    const other = await consent(attacker.key, 'tiktok', 'attackerbrand');
    expectProblem(
      await t.request({ method: 'GET', url: other.callback, headers: { cookie: lure.cookie } }),
      403,
      'Connect Started Elsewhere',
    );
    expect(await connections(attacker.workspace.id)).toEqual([]);
    // The state is spent: the code cannot be redeemed later by anyone.
    expectProblem(
      await t.request({ method: 'GET', url: lure.callback, headers: { cookie: lure.cookie } }),
      400,
      'Invalid State',
    );
    const rows = await t.db
      .selectFrom('oauth_states')
      .select(['outcome', 'error'])
      .where('workspace_id', '=', attacker.workspace.id)
      .orderBy('created_at')
      .execute();
    expect(rows.map((r) => r.outcome)).toEqual(['failed', 'failed']);
    expect(rows[0]!.error).toMatch(/another browser or key/);
  });

  it("an application's own redirect page completes with the starting key only (POST callback)", async () => {
    const app = await workspaceWithKey(t.db, { plan: 'pro' });
    const sameWorkspaceOtherKey = await t.db
      .selectFrom('api_keys')
      .select('id')
      .where('workspace_id', '=', app.workspace.id)
      .execute();
    expect(sameWorkspaceOtherKey).toHaveLength(1);
    const other = await workspaceWithKey(t.db, { plan: 'pro' });
    const first = await consent(app.key, 'twitter', 'integratorbrand');
    const refused = await t.request({
      method: 'POST',
      url: '/v1/platforms/twitter/callback',
      key: other.key,
      payload: first.query,
    });
    expectProblem(refused, 403, 'Connect Started Elsewhere');

    const second = await consent(app.key, 'twitter', 'integratorbrand');
    const done = await t.request({
      method: 'POST',
      url: '/v1/platforms/twitter/callback',
      key: app.key,
      payload: second.query,
    });
    expect(done.statusCode, done.body).toBe(200);
    expect(done.json()).toMatchObject({
      id: second.id,
      status: 'connected',
      handle: 'integratorbrand',
      workspace_id: app.workspace.id,
    });
    expect(await connections(other.workspace.id)).toEqual([]);
  });

  it('refuses the callback when the starting key lost access between start and callback (L-3)', async () => {
    const agencyA = await workspaceWithKey(t.db, { plan: 'agency', accountType: 'agency' });
    const agencyB = await workspaceWithKey(t.db, { plan: 'agency', accountType: 'agency' });
    const client = await createWorkspace(t.db, {
      name: 'client',
      plan: 'pro',
      parentId: agencyA.workspace.id,
    });
    const started = await consent(agencyA.key, 'twitter', 'oldagencyplant', `?workspace_id=${client.id}`);
    // The client moves to agency B before the callback arrives.
    await t.db
      .updateTable('workspaces')
      .set({ parent_id: agencyB.workspace.id })
      .where('id', '=', client.id)
      .execute();
    expectProblem(
      await t.request({ method: 'GET', url: started.callback, headers: { cookie: started.cookie } }),
      403,
      'Forbidden',
    );
    expect(await connections(client.id)).toEqual([]);

    // A key whose write scope was taken away meanwhile is refused too.
    const brand = await workspaceWithKey(t.db, { plan: 'pro' });
    const again = await consent(brand.key, 'twitter', 'readonlynow');
    await t.db
      .updateTable('api_keys')
      .set({ scopes: ['read'] })
      .where('id', '=', brand.keyId)
      .execute();
    expectProblem(
      await t.request({ method: 'GET', url: again.callback, headers: { cookie: again.cookie } }),
      403,
      'Forbidden',
    );
    expect(await connections(brand.workspace.id)).toEqual([]);
  });

  it('a signed-in person completes what they started, and no longer once demoted to viewer', async () => {
    const brand = await workspaceWithKey(t.db, { plan: 'pro' });
    const admin = await signedInPerson(t, { workspaceId: brand.workspace.id, role: 'admin' });
    const done = await consent(admin, 'tiktok', 'personstarted');
    const back = await t.request({ method: 'GET', url: done.callback, headers: { cookie: done.cookie } });
    expect(back.statusCode, back.body).toBe(200);
    expect((await connections(brand.workspace.id)).map((c) => c.handle)).toEqual(['personstarted']);
    const audit = await auditEntries(t.db, { workspaceId: brand.workspace.id, action: 'platform.connected' });
    expect(audit.map((a) => a.actor_person_id)).toEqual([admin.personId]);

    // Started again as admin, then demoted to viewer before the callback: nothing is connected.
    const again = await consent(admin, 'youtube', 'demotedmeanwhile');
    await t.db
      .updateTable('memberships')
      .set({ role: 'viewer' })
      .where('person_id', '=', admin.personId)
      .execute();
    expectProblem(
      await t.request({ method: 'GET', url: again.callback, headers: { cookie: again.cookie } }),
      403,
      'Forbidden',
    );
    expect((await connections(brand.workspace.id)).map((c) => c.platform)).toEqual(['tiktok']);
  });

  it('takes the redirect URI from the Host header only on loopback when PUBLIC_URL is unset (L-2)', async () => {
    const { key } = await workspaceWithKey(t.db, { plan: 'pro' });
    const evil = await t.request({
      method: 'POST',
      url: '/v1/platforms/youtube/connect',
      key,
      headers: { host: 'evil.example' },
    });
    expectProblem(evil, 503, 'Platform Not Configured');
    expect(evil.json().detail).toMatch(/PUBLIC_URL/);
    // A loopback Host from a non-loopback peer (a proxy passing the client's Host) is refused too.
    const proxied = await t.request({
      method: 'POST',
      url: '/v1/platforms/youtube/connect',
      key,
      headers: { host: 'localhost' },
      remoteAddress: '203.0.113.9',
    });
    expectProblem(proxied, 503, 'Platform Not Configured');
    const local = await t.request({ method: 'POST', url: '/v1/platforms/youtube/connect', key });
    expect(local.statusCode, local.body).toBe(200);
    expect(new URL(local.json().authorization_url).searchParams.get('redirect_uri')).toBe(
      'http://localhost:80/v1/platforms/youtube/callback',
    );
    expect(String(local.headers['set-cookie'])).toMatch(
      /^bh_connect_youtube=[\w-]+; Path=\/v1\/platforms\/youtube\/callback; Max-Age=600; HttpOnly; SameSite=Lax$/,
    );
  });
});

describe('which account is connected', () => {
  it('lists every Page of a login (Graph pages followed) and connects the one the brand picks', async () => {
    const { workspace, key, keyId } = await workspaceWithKey(t.db, { plan: 'pro' });
    const pages = Array.from({ length: 130 }, (_, i) => `agencypage${i}`);
    sim.setUser('facebook', 'agencyperson', { accounts: pages });
    const c = await consent(key, 'facebook', 'agencyperson');
    const back = await t.request({ method: 'GET', url: c.callback, headers: { cookie: c.cookie } });
    expect(back.statusCode, back.body).toBe(200);
    expect(back.json()).toMatchObject({ id: c.id, status: 'pending_selection' });
    expect(back.json().accounts.map((a: { handle: string }) => a.handle)).toEqual(pages);
    expect(await connections(workspace.id)).toEqual([]);
    // The user's token waits sealed on the attempt, never in an answer.
    const waiting = await t.db
      .selectFrom('oauth_states')
      .select(['access_token', 'access_token_key_id'])
      .where('id', '=', c.id)
      .executeTakeFirstOrThrow();
    expect(waiting.access_token).not.toBeNull();
    for (const token of sim.issuedTokens()) expect(back.body).not.toContain(token);

    const listed = await t.request({ method: 'GET', url: `/v1/platforms/facebook/connect/${c.id}`, key });
    expect(listed.statusCode, listed.body).toBe(200);
    expect(listed.json().accounts).toHaveLength(130);
    expect(listed.json().accounts[117]).toEqual({
      account_id: 'page_agencypage117',
      handle: 'agencypage117',
      name: 'agencypage117 (simulated)',
      followers: expect.any(Number),
      connected_elsewhere: false,
    });
    // Another key, even of the same workspace, neither sees the attempt nor picks for it.
    const second = await createApiKey(t.db, { workspaceId: workspace.id }, { scopes: ['read', 'write'] });
    expect(second.id).not.toBe(keyId);
    expectProblem(
      await t.request({ method: 'GET', url: `/v1/platforms/facebook/connect/${c.id}`, key: second.key }),
      404,
    );
    expectProblem(
      await t.request({
        method: 'POST',
        url: `/v1/platforms/facebook/connect/${c.id}/select`,
        key: second.key,
        payload: { account_id: 'page_agencypage1' },
      }),
      404,
    );

    const unknownParameter = await t.request({
      method: 'GET',
      url: `/v1/platforms/facebook/connect/${c.id}?no_such_parameter=1`,
      key,
    });
    expect(expectProblem(unknownParameter, 400).errors[0].parameter).toBe('no_such_parameter');
    const select = (body: Record<string, unknown>) =>
      t.request({ method: 'POST', url: `/v1/platforms/facebook/connect/${c.id}/select`, key, payload: body });
    expectProblem(await select({ account_id: 'page_notmine' }), 400, 'Invalid Parameter');
    expectProblem(await select({}), 400);
    const picked = await select({ account_id: 'page_agencypage117' });
    expect(picked.statusCode, picked.body).toBe(200);
    expect(picked.json()).toMatchObject({ status: 'connected', handle: 'agencypage117', reconnected: false });
    const [row] = await connections(workspace.id);
    expect(row).toMatchObject({
      handle: 'agencypage117',
      account_id: 'page_agencypage117',
      status: 'connected',
    });
    // The connection reads the Page with the Page's own token.
    const token = await getAccessToken(t.ctx, row!.id);
    expect(token.startsWith('sim_pt_')).toBe(true);
    const page = await fetch(`${sim.url}/facebook/graph/page_agencypage117?fields=id`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(page.status).toBe(200);
    const after = await t.db
      .selectFrom('oauth_states')
      .select(['outcome', 'access_token', 'connection_id'])
      .where('id', '=', c.id)
      .executeTakeFirstOrThrow();
    expect(after).toEqual({ outcome: 'connected', access_token: null, connection_id: row!.id });
    expectProblem(await select({ account_id: 'page_agencypage3' }), 409, 'Not Awaiting Selection');
    expect(
      (await t.request({ method: 'GET', url: `/v1/platforms/facebook/connect/${c.id}`, key })).json(),
    ).toMatchObject({ status: 'connected', handle: 'agencypage117' });
  });

  it('lists every YouTube channel of a login (pageToken followed); one candidate selects itself', async () => {
    const { workspace, key } = await workspaceWithKey(t.db, { plan: 'pro' });
    const channels = Array.from({ length: 61 }, (_, i) => `chan${i}`);
    sim.setUser('youtube', 'bigmcn', { accounts: channels });
    const c = await consent(key, 'youtube', 'bigmcn');
    const back = await t.request({ method: 'GET', url: c.callback, headers: { cookie: c.cookie } });
    expect(back.json().status, back.body).toBe('pending_selection');
    expect(back.json().accounts.map((a: { account_id: string }) => a.account_id)).toEqual(
      channels.map((h) => `UC${h}`),
    );
    const picked = await t.request({
      method: 'POST',
      url: `/v1/platforms/youtube/connect/${c.id}/select`,
      key,
      payload: { account_id: 'UCchan60' },
    });
    expect(picked.statusCode, picked.body).toBe(200);
    expect((await connections(workspace.id))[0]).toMatchObject({ handle: 'chan60', account_id: 'UCchan60' });

    const single = await workspaceWithKey(t.db, { plan: 'pro' });
    const one = await connect(single.key, 'instagram', 'onlyonebrand');
    expect(one.statusCode, one.body).toBe(200);
    expect(one.json()).toMatchObject({ status: 'connected', handle: 'onlyonebrand' });
  });

  it('a pick not made within 30 minutes expires, and its waiting token is forgotten', async () => {
    const { key } = await workspaceWithKey(t.db, { plan: 'pro' });
    sim.setUser('youtube', 'slowpicker', { accounts: ['slowa', 'slowb'] });
    const c = await consent(key, 'youtube', 'slowpicker');
    const back = await t.request({ method: 'GET', url: c.callback, headers: { cookie: c.cookie } });
    expect(back.json().status).toBe('pending_selection');
    t.setNow(new Date(Date.now() + 30 * 60_000 + 1000));
    try {
      expect(
        (await t.request({ method: 'GET', url: `/v1/platforms/youtube/connect/${c.id}`, key })).json(),
      ).toMatchObject({ status: 'expired' });
      expectProblem(
        await t.request({
          method: 'POST',
          url: `/v1/platforms/youtube/connect/${c.id}/select`,
          key,
          payload: { account_id: 'UCslowa' },
        }),
        409,
        'Not Awaiting Selection',
      );
      // The next connect (any workspace) closes it.
      const other = await workspaceWithKey(t.db, { plan: 'pro' });
      await t.request({ method: 'POST', url: '/v1/platforms/twitter/connect', key: other.key });
    } finally {
      t.setNow(undefined);
    }
    const row = await t.db
      .selectFrom('oauth_states')
      .select(['outcome', 'access_token', 'refresh_token'])
      .where('id', '=', c.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ outcome: 'failed', access_token: null, refresh_token: null });
  });

  it('a reconnect never lands on another account: refused naming both, history untouched', async () => {
    const { workspace, key } = await workspaceWithKey(t.db, { plan: 'pro' });
    expect((await connect(key, 'twitter', 'brandone')).statusCode).toBe(200);
    const [before] = await connections(workspace.id);
    await t.db
      .insertInto('metric_snapshots')
      .values({ workspace_id: workspace.id, platform: 'twitter', day: '2026-01-01', followers: 10 })
      .execute();
    await t.db
      .updateTable('platform_connections')
      .set({ status: 'reauth_required', reauth_at: new Date() })
      .where('id', '=', before!.id)
      .execute();

    const wrong = await connect(key, 'twitter', 'brandtwo');
    const problem = expectProblem(wrong, 409, 'Account Mismatch');
    expect(problem.detail).toContain('brandone');
    expect(problem.detail).toContain('brandtwo');
    expect(problem.connected_account).toBe('brandone (xbrandone)');
    expect(problem.authorised_accounts).toEqual(['brandtwo (xbrandtwo)']);
    const [still] = await connections(workspace.id);
    expect(still).toMatchObject({
      id: before!.id,
      status: 'reauth_required',
      handle: 'brandone',
      account_id: 'xbrandone',
      access_token: before!.access_token,
    });

    const right = await connect(key, 'twitter', 'brandone');
    expect(right.statusCode, right.body).toBe(200);
    expect(right.json()).toMatchObject({ status: 'connected', reconnected: true, handle: 'brandone' });
    expect(await connections(workspace.id)).toEqual([
      expect.objectContaining({ id: before!.id, status: 'connected', account_id: 'xbrandone' }),
    ]);
    const history = await t.db
      .selectFrom('metric_snapshots')
      .select('day')
      .where('workspace_id', '=', workspace.id)
      .execute();
    expect(history).toHaveLength(1);
  });

  it("a reconnect through a login with several Pages brings back the connection's own Page", async () => {
    const { workspace, key } = await workspaceWithKey(t.db, { plan: 'pro' });
    sim.setUser('facebook', 'pagemanager', { accounts: ['pagea', 'pageb', 'pagec'] });
    const first = await consent(key, 'facebook', 'pagemanager');
    const listed = await t.request({ method: 'GET', url: first.callback, headers: { cookie: first.cookie } });
    expect(listed.json().status).toBe('pending_selection');
    await t.request({
      method: 'POST',
      url: `/v1/platforms/facebook/connect/${first.id}/select`,
      key,
      payload: { account_id: 'page_pageb' },
    });
    const [row] = await connections(workspace.id);
    await t.db
      .updateTable('platform_connections')
      .set({ status: 'reauth_required', reauth_at: new Date() })
      .where('id', '=', row!.id)
      .execute();
    const again = await connect(key, 'facebook', 'pagemanager');
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json()).toMatchObject({ status: 'connected', reconnected: true, handle: 'pageb' });
    sim.setUser('facebook', 'pagemanager', { accounts: ['pagea', 'pagec'] });
    await t.db
      .updateTable('platform_connections')
      .set({ status: 'reauth_required', reauth_at: new Date() })
      .where('id', '=', row!.id)
      .execute();
    expectProblem(await connect(key, 'facebook', 'pagemanager'), 409, 'Account Mismatch');
  });

  it('an account live in another workspace is connected only when sharing is asked for', async () => {
    const brand = await workspaceWithKey(t.db, { plan: 'pro' });
    const agency = await workspaceWithKey(t.db, { plan: 'pro' });
    expect((await connect(brand.key, 'youtube', 'sharedchannel')).statusCode).toBe(200);
    const c = await consent(agency.key, 'youtube', 'sharedchannel');
    const back = await t.request({ method: 'GET', url: c.callback, headers: { cookie: c.cookie } });
    expect(back.json()).toMatchObject({
      status: 'pending_selection',
      accounts: [expect.objectContaining({ account_id: 'UCsharedchannel', connected_elsewhere: true })],
    });
    const select = (share?: boolean) =>
      t.request({
        method: 'POST',
        url: `/v1/platforms/youtube/connect/${c.id}/select`,
        key: agency.key,
        payload: { account_id: 'UCsharedchannel', ...(share === undefined ? {} : { share }) },
      });
    expectProblem(await select(), 409, 'Account Connected Elsewhere');
    expect(await connections(agency.workspace.id)).toEqual([]);
    const shared = await select(true);
    expect(shared.statusCode, shared.body).toBe(200);
    expect(await connections(agency.workspace.id)).toEqual([
      expect.objectContaining({ account_id: 'UCsharedchannel', status: 'connected' }),
    ]);
  });
});

describe('granted scopes', () => {
  it('refuses when a required permission was unticked (Meta: /me/permissions; Google: the token scope)', async () => {
    const { workspace, key } = await workspaceWithKey(t.db, { plan: 'pro' });
    sim.setUser('instagram', 'untickerig', { declinedScopes: ['instagram_manage_insights'] });
    const ig = expectProblem(await connect(key, 'instagram', 'untickerig'), 403, 'Permissions Declined');
    expect(ig.missing_scopes).toEqual(['instagram_manage_insights']);
    expect(ig.detail).toContain('instagram_manage_insights');
    // Meta's dialog asks again for a declined permission only when told to, so a reconnect can grant it
    // (https://developers.facebook.com/docs/facebook-login/guides/advanced/manual-flow#reaskperms).
    const again = await t.request({ method: 'POST', url: '/v1/platforms/instagram/connect', key });
    expect(new URL(again.json().authorization_url).searchParams.get('auth_type')).toBe('rerequest');
    sim.setUser('youtube', 'untickeryt', {
      declinedScopes: ['https://www.googleapis.com/auth/yt-analytics.readonly'],
    });
    const yt = expectProblem(await connect(key, 'youtube', 'untickeryt'), 403, 'Permissions Declined');
    expect(yt.missing_scopes).toEqual(['https://www.googleapis.com/auth/yt-analytics.readonly']);
    expect(await connections(workspace.id)).toEqual([]);
  });

  it('connects without an optional (comments) permission, says so, and stores the granted set', async () => {
    const { workspace, key } = await workspaceWithKey(t.db, { plan: 'pro' });
    sim.setUser('facebook', 'nocomments', { declinedScopes: ['pages_read_user_content'] });
    const done = await connect(key, 'facebook', 'nocomments');
    expect(done.statusCode, done.body).toBe(200);
    expect(done.json()).toMatchObject({
      status: 'connected',
      granted_scopes: ['pages_show_list', 'pages_read_engagement', 'read_insights'],
      missing_scopes: ['pages_read_user_content'],
    });
    const [row] = await connections(workspace.id);
    expect(row!.granted_scopes).toEqual(['pages_show_list', 'pages_read_engagement', 'read_insights']);
    expect(connectionScopes(t.ctx.config, 'facebook', row!.granted_scopes)).toMatchObject({
      missing: ['pages_read_user_content'],
      missingRequired: [],
    });
    // Everything granted: nothing missing.
    const all = await workspaceWithKey(t.db, { plan: 'pro' });
    const full = await connect(all.key, 'twitter', 'fullgrant');
    expect(full.json()).toMatchObject({
      granted_scopes: ['tweet.read', 'users.read', 'offline.access'],
      missing_scopes: [],
    });
  });
});
