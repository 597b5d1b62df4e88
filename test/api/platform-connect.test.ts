import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../simulator/server.ts';
import { getAccessToken, ReauthRequired } from '../../src/platforms/vault.ts';
import { connectPlatform, disconnectPlatform } from '../../src/admin/platforms.ts';
import { generateKeyEntry, parseKeyRing } from '../../src/infra/crypto/keyring.ts';
import { resealAll, sealedAt } from '../../src/infra/crypto/sealed-columns.ts';
import { expectProblem, startTestService, workspaceWithKey, type TestService } from '../helpers/service.ts';
import { bindingCookieOf } from '../helpers/simulator-oauth.ts';
import type { Platform } from '../../src/core/catalog.ts';

let sim: Simulator;
let t: TestService;
const OLD_KEYS = generateKeyEntry();
/** Every response (headers and body) and log line, scanned for tokens at the end. */
const seen: string[] = [];
beforeAll(async () => {
  sim = await startSimulator({ speed: 0 });
  const logStream = new Writable({
    write(chunk, _encoding, callback) {
      seen.push(String(chunk));
      callback();
    },
  });
  t = await startTestService(
    {},
    {
      SIMULATOR_URL: sim.url,
      PUBLIC_URL: 'http://brandhealth.test',
      LOG_LEVEL: 'debug',
      ENCRYPTION_KEYS: OLD_KEYS,
    },
    { logStream },
  );
});

const req: TestService['request'] = async (options) => {
  const res = await t.request(options);
  seen.push(JSON.stringify(res.headers), res.body);
  return res;
};
afterAll(async () => {
  await t?.close();
  await sim?.close();
});

/** POST connect, "visit" the authorization URL as the account owner, return the redirect back. */
async function authorize(key: string, platform: Platform, login = 'acme') {
  const res = await req({ method: 'POST', url: `/v1/platforms/${platform}/connect`, key });
  expect(res.statusCode, res.body).toBe(200);
  const url = new URL(res.json().authorization_url);
  url.searchParams.set('login_hint', login);
  const consent = await fetch(url, { redirect: 'manual' });
  expect(consent.status).toBe(302);
  const back = new URL(consent.headers.get('location')!);
  expect(back.origin + back.pathname).toBe(`http://brandhealth.test/v1/platforms/${platform}/callback`);
  const cookie = bindingCookieOf(res.headers['set-cookie']);
  return {
    started: res.json(),
    /** The redirect back, followed by the browser that started it (with its binding cookie). */
    back: (): ReturnType<typeof req> =>
      req({ method: 'GET', url: `${back.pathname}${back.search}`, headers: { cookie } }),
  };
}

async function connect(key: string, platform: Platform, login = 'acme') {
  const { back } = await authorize(key, platform, login);
  return back();
}

describe('OAuth platform connections', () => {
  it('connects through consent and callback; tokens are sealed and never returned; the state is single-use', async () => {
    const { workspace, key } = await workspaceWithKey(t.db, { plan: 'pro' });
    const { started, back } = await authorize(key, 'youtube', 'acmetube');
    const url = new URL(started.authorization_url);
    expect(url.origin).toBe(sim.url);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(Date.parse(started.expires_at) - Date.now()).toBeGreaterThan(9 * 60_000);
    expect(Date.parse(started.expires_at) - Date.now()).toBeLessThanOrEqual(10 * 60_000);

    const done = await back();
    expect(done.statusCode, done.body).toBe(200);
    expect(done.json()).toMatchObject({
      platform: 'youtube',
      workspace_id: workspace.id,
      status: 'connected',
      handle: 'acmetube',
      reconnected: false,
    });
    expect(done.json().followers).toBeGreaterThan(0);

    const row = await t.db
      .selectFrom('platform_connections')
      .selectAll()
      .where('workspace_id', '=', workspace.id)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'connected', handle: 'acmetube', account_id: 'UCacmetube' });
    const issued = sim.issuedTokens();
    expect(issued.length).toBeGreaterThan(0);
    const stored = JSON.stringify(row);
    for (const token of issued) {
      expect(stored).not.toContain(token);
      expect(done.body).not.toContain(token);
    }
    expect(row.access_token_key_id).toBe(t.ctx.keyRing.activeKeyId);
    // The vault opens what was sealed: the simulator accepts it.
    const token = await getAccessToken(t.ctx, row.id);
    const api = await fetch(`${sim.url}/youtube/data/channels?mine=true`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(api.status).toBe(200);

    const listed = await req({ method: 'GET', url: '/v1/platforms', key });
    expect(listed.json().platforms).toEqual([
      expect.objectContaining({ name: 'youtube', status: 'connected' }),
    ]);
    for (const tok of sim.issuedTokens()) expect(listed.body).not.toContain(tok);

    expectProblem(await back(), 400, 'Invalid State');
    expectProblem(
      await req({ method: 'POST', url: '/v1/platforms/youtube/connect', key }),
      409,
      'Platform Already Connected',
    );
  });

  it('refuses an expired or unknown state, an unknown platform, and records a denied consent', async () => {
    const { workspace, key } = await workspaceWithKey(t.db, { plan: 'pro' });
    const { back } = await authorize(key, 'twitter');
    t.setNow(new Date(Date.now() + 10 * 60_000 + 1000));
    try {
      expectProblem(await back(), 400, 'Invalid State');
    } finally {
      t.setNow(undefined);
    }
    expectProblem(
      await req({ method: 'GET', url: '/v1/platforms/twitter/callback?state=nope&code=x' }),
      400,
      'Invalid State',
    );
    expectProblem(await req({ method: 'GET', url: '/v1/platforms/twitter/callback?code=x' }), 400);
    expectProblem(
      await req({ method: 'POST', url: '/v1/platforms/myspace/connect', key }),
      422,
      'Invalid Platform',
    );
    expectProblem(
      await req({ method: 'DELETE', url: '/v1/platforms/myspace', key }),
      422,
      'Invalid Platform',
    );
    expectProblem(
      await req({ method: 'GET', url: '/v1/platforms/myspace/callback?state=x' }),
      422,
      'Invalid Platform',
    );
    expectProblem(
      await req({ method: 'DELETE', url: '/v1/platforms/tiktok', key }),
      404,
      'Platform Not Connected',
    );

    sim.setFaults('tiktok', { denyConsent: true });
    try {
      const { back: refused } = await authorize(key, 'tiktok');
      expectProblem(await refused(), 403, 'Consent Denied');
      expectProblem(await refused(), 400, 'Invalid State');
    } finally {
      sim.setFaults('tiktok', { denyConsent: false });
    }
    const outcomes = await t.db
      .selectFrom('oauth_states')
      .select(['platform', 'outcome'])
      .where('workspace_id', '=', workspace.id)
      .orderBy('created_at')
      .execute();
    expect(outcomes.map((o) => o.outcome)).toEqual([null, 'denied']);
    const live = await t.db
      .selectFrom('platform_connections')
      .select('id')
      .where('workspace_id', '=', workspace.id)
      .execute();
    expect(live).toEqual([]);
  });

  it("enforces the plan's platform_limit", async () => {
    const { key } = await workspaceWithKey(t.db, { plan: 'pro' });
    for (const p of ['instagram', 'facebook', 'tiktok'] as const)
      expect((await connect(key, p)).statusCode).toBe(200);
    expectProblem(
      await req({ method: 'POST', url: '/v1/platforms/twitter/connect', key }),
      402,
      'Platform Limit Reached',
    );
    const free = await workspaceWithKey(t.db, { plan: 'free' });
    expectProblem(
      await req({ method: 'POST', url: '/v1/platforms/twitter/connect', key: free.key }),
      403,
      'Plan Required',
    );
  });

  it('counts a connection waiting for re-authorisation in platforms_connected, as the limit does', async () => {
    const { workspace, key } = await workspaceWithKey(
      t.db,
      { plan: 'pro' },
      { platforms: [{ platform: 'instagram' }, { platform: 'facebook' }, { platform: 'tiktok' }] },
    );
    await t.db
      .updateTable('platform_connections')
      .set({ status: 'reauth_required', reauth_at: new Date() })
      .where('workspace_id', '=', workspace.id)
      .where('platform', '=', 'tiktok')
      .execute();
    const ws = (await req({ method: 'GET', url: '/v1/workspace', key })).json();
    expect([ws.platforms_connected, ws.platform_limit]).toEqual([3, 3]);
    expect((await req({ method: 'GET', url: '/v1/platforms', key })).json().total_connected).toBe(3);
    expectProblem(
      await req({ method: 'POST', url: '/v1/platforms/twitter/connect', key }),
      402,
      'Platform Limit Reached',
    );
  });

  it('refreshes before expiry, moves a refused refresh to reauth_required, and reconnects in place', async () => {
    const { workspace, key } = await workspaceWithKey(t.db, { plan: 'agency' });
    sim.setFaults('twitter', { tokenTtlSeconds: 30 });
    try {
      expect((await connect(key, 'twitter', 'refresher')).statusCode).toBe(200);
    } finally {
      sim.setFaults('twitter', { tokenTtlSeconds: 3600 });
    }
    const row = await t.db
      .selectFrom('platform_connections')
      .selectAll()
      .where('workspace_id', '=', workspace.id)
      .executeTakeFirstOrThrow();
    const first = await getAccessToken(t.ctx, row.id);
    const after = await t.db
      .selectFrom('platform_connections')
      .selectAll()
      .where('id', '=', row.id)
      .executeTakeFirstOrThrow();
    // 30 s is inside the refresh margin: the vault refreshed and stored the new pair, sealed.
    expect(after.access_token).not.toBe(row.access_token);
    expect(after.refresh_token).not.toBe(row.refresh_token);
    expect(after.token_expires_at!.getTime()).toBeGreaterThan(Date.now() + 30 * 60_000);
    const me = await fetch(`${sim.url}/twitter/api/users/me`, {
      headers: { authorization: `Bearer ${first}` },
    });
    expect(me.status).toBe(200);
    expect(await getAccessToken(t.ctx, row.id)).toBe(first);

    // The refresh token is revoked at the platform and the access token is about to expire.
    expect(sim.revokeRefreshTokens('twitter', 'refresher')).toBe(1);
    await t.db
      .updateTable('platform_connections')
      .set({ token_expires_at: new Date(Date.now() + 1000) })
      .where('id', '=', row.id)
      .execute();
    const error = await getAccessToken(t.ctx, row.id).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ReauthRequired);
    expect(String(error)).not.toContain(first);
    const waiting = await t.db
      .selectFrom('platform_connections')
      .select(['status', 'reauth_at'])
      .where('id', '=', row.id)
      .executeTakeFirstOrThrow();
    expect(waiting.status).toBe('reauth_required');
    expect(waiting.reauth_at).not.toBeNull();

    // The admin CLI sees the waiting connection as taken, not as a free slot (no unique violation).
    await expect(
      connectPlatform(t.db, { workspaceId: workspace.id, platform: 'twitter', handle: 'other' }),
    ).rejects.toThrow(/already connected/);

    const again = await connect(key, 'twitter', 'refresher');
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json().reconnected).toBe(true);
    const restored = await t.db
      .selectFrom('platform_connections')
      .select(['id', 'status'])
      .where('workspace_id', '=', workspace.id)
      .execute();
    expect(restored).toEqual([{ id: row.id, status: 'connected' }]);
  });

  it('disconnects: revokes at the platform, forgets the tokens, keeps the history', async () => {
    const { workspace, key } = await workspaceWithKey(t.db, { plan: 'pro' });
    expect((await connect(key, 'youtube', 'leaver')).statusCode).toBe(200);
    const row = await t.db
      .selectFrom('platform_connections')
      .selectAll()
      .where('workspace_id', '=', workspace.id)
      .executeTakeFirstOrThrow();
    const token = await getAccessToken(t.ctx, row.id);
    await t.db
      .insertInto('metric_snapshots')
      .values({ workspace_id: workspace.id, platform: 'youtube', day: '2026-01-01', followers: 10 })
      .execute();
    const res = await req({ method: 'DELETE', url: '/v1/platforms/youtube', key });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ platform: 'youtube', status: 'disconnected', revoked: true });
    const api = await fetch(`${sim.url}/youtube/data/channels?mine=true`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(api.status).toBe(401);
    const gone = await t.db
      .selectFrom('platform_connections')
      .selectAll()
      .where('id', '=', row.id)
      .executeTakeFirstOrThrow();
    expect(gone).toMatchObject({ status: 'disconnected', access_token: null, refresh_token: null });
    const kept = await t.db
      .selectFrom('metric_snapshots')
      .select('day')
      .where('workspace_id', '=', workspace.id)
      .execute();
    expect(kept).toHaveLength(1);
    expectProblem(await req({ method: 'DELETE', url: '/v1/platforms/youtube', key }), 404);
    // Still listed, as disconnected with its last sync, and connectable again.
    const listed = await req({ method: 'GET', url: '/v1/platforms', key });
    expect(listed.statusCode, listed.body).toBe(200);
    expect(listed.json()).toMatchObject({ total_connected: 0 });
    expect(listed.json().available).toContain('youtube');
    expect(listed.json().platforms).toEqual([
      expect.objectContaining({
        name: 'youtube',
        status: 'disconnected',
        handle: 'leaver',
        last_sync: row.connected_at.toISOString(),
        disconnected_at: gone.disconnected_at!.toISOString(),
        last_error: null,
        next_sync_at: null,
      }),
    ]);
    // And it can be connected again: the live connection replaces the disconnected one in the list.
    expect((await connect(key, 'youtube', 'leaver')).statusCode).toBe(200);
    const again = (await req({ method: 'GET', url: '/v1/platforms', key })).json();
    expect(again.total_connected).toBe(1);
    expect(again.available).not.toContain('youtube');
    expect(again.platforms).toEqual([expect.objectContaining({ name: 'youtube', status: 'connected' })]);
  });

  it('refuses the callback when the key that started it was revoked', async () => {
    const { key, keyId } = await workspaceWithKey(t.db, { plan: 'pro' });
    const { back } = await authorize(key, 'instagram');
    await t.db.updateTable('api_keys').set({ revoked_at: new Date() }).where('id', '=', keyId).execute();
    expectProblem(await back(), 403, 'Forbidden');
    expectProblem(await back(), 400, 'Invalid State');
  });

  it('platform tokens are re-sealed by key rotation, and the admin disconnect forgets them', async () => {
    const { workspace, key } = await workspaceWithKey(t.db, { plan: 'pro' });
    expect((await connect(key, 'youtube', 'rotator')).statusCode).toBe(200);
    const before = await t.db
      .selectFrom('platform_connections')
      .selectAll()
      .where('workspace_id', '=', workspace.id)
      .executeTakeFirstOrThrow();
    const token = await getAccessToken(t.ctx, before.id);
    // Rotation: a new active key in front of the old one, then `encryption rotate` (resealAll).
    const rotated = parseKeyRing(`${generateKeyEntry()},${OLD_KEYS}`);
    const counts = (await resealAll(t.db, rotated)).resealed;
    expect(counts['platform_connections.access_token']).toBeGreaterThanOrEqual(1);
    expect(counts['platform_connections.refresh_token']).toBeGreaterThanOrEqual(1);
    const after = await t.db
      .selectFrom('platform_connections')
      .selectAll()
      .where('id', '=', before.id)
      .executeTakeFirstOrThrow();
    expect(after.access_token_key_id).toBe(rotated.activeKeyId);
    expect(after.refresh_token_key_id).toBe(rotated.activeKeyId);
    expect(
      rotated.open(
        { ciphertext: after.access_token!, keyId: after.access_token_key_id! },
        sealedAt('platform_connections.access_token', after.id),
      ),
    ).toBe(token);

    await disconnectPlatform(t.db, workspace.id, 'youtube', t.ctx.now());
    const gone = await t.db
      .selectFrom('platform_connections')
      .selectAll()
      .where('id', '=', before.id)
      .executeTakeFirstOrThrow();
    expect(gone).toMatchObject({ status: 'disconnected', access_token: null, refresh_token: null });
  });

  it('no token or authorization code appears in any response, log line or event', async () => {
    const secrets = sim.issuedTokens();
    expect(secrets.length).toBeGreaterThan(20);
    expect(seen.join('\n')).toContain('/callback?'); // the callbacks were logged, with their query redacted
    const events = await t.db.selectFrom('events').selectAll().execute();
    const haystack = seen.join('\n') + JSON.stringify(events);
    for (const secret of secrets) expect(haystack).not.toContain(secret);
  });
});
