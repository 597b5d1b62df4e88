import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Simulator } from '../../simulator/server.ts';
import { runSyncJob } from '../../src/platforms/sync-worker.ts';
import { getAccessToken } from '../../src/platforms/vault.ts';
import { PLATFORMS } from '../../src/core/catalog.ts';
import {
  bindingCookieOf,
  closeSimulatedService,
  connectThroughSimulator,
  startSimulatedService,
} from '../helpers/simulator-oauth.ts';
import { workspaceWithKey, type TestService } from '../helpers/service.ts';

/**
 * connect -> consent -> callback -> first sync for every platform against the simulator, which
 * speaks the real platforms' departures from plain OAuth: TikTok's `client_key`, Meta's long-lived
 * token exchange (fb_exchange_token; its code gives a short-lived token and no refresh token), and
 * Meta accounts found through /me/accounts (/me is the person; a Page is read with its own token).
 */
let sim: Simulator;
let t: TestService;
const NOW = new Date();
beforeAll(async () => ({ sim, t } = await startSimulatedService(NOW)));
afterAll(() => closeSimulatedService({ sim, t }));

const DAY_S = 86_400;

/** A new agency workspace connected through the simulator as `login` (its handle). */
async function connectedWorkspace(platform: (typeof PLATFORMS)[number], login: string) {
  const { workspace, key } = await workspaceWithKey(t.db, { plan: 'agency' });
  const id = await connectThroughSimulator(t, { key, workspaceId: workspace.id, platform, login });
  return { workspace, key, id };
}

const connection = (id: string) =>
  t.db.selectFrom('platform_connections').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

describe('platform OAuth quirks', () => {
  it.each(PLATFORMS)('%s: connects through the simulator and syncs', async (platform) => {
    const { workspace, key } = await workspaceWithKey(t.db, { plan: 'agency' });
    const started = await t.request({ method: 'POST', url: `/v1/platforms/${platform}/connect`, key });
    expect(started.statusCode, started.body).toBe(200);
    const url = new URL(started.json().authorization_url);
    const idParam = platform === 'tiktok' ? 'client_key' : 'client_id';
    expect(url.searchParams.get(idParam)).toBe(`brandhealth-${platform}`);
    expect(url.searchParams.has(platform === 'tiktok' ? 'client_id' : 'client_key')).toBe(false);
    url.searchParams.set('login_hint', `quirk${platform}`);

    const consent = await fetch(url, { redirect: 'manual' });
    expect(consent.status).toBe(302);
    const back = new URL(consent.headers.get('location')!);
    expect(back.searchParams.get('error')).toBeNull();
    const done = await t.request({
      method: 'GET',
      url: `${back.pathname}${back.search}`,
      headers: { cookie: bindingCookieOf(started.headers['set-cookie']) },
    });
    expect(done.statusCode, done.body).toBe(200);
    expect(done.json()).toMatchObject({ platform, status: 'connected', handle: `quirk${platform}` });

    const row = await t.db
      .selectFrom('platform_connections')
      .selectAll()
      .where('workspace_id', '=', workspace.id)
      .executeTakeFirstOrThrow();
    const lifetime = row.token_expires_at ? (row.token_expires_at.getTime() - NOW.getTime()) / 1000 : null;
    const token = await getAccessToken(t.ctx, row.id);
    if (platform === 'instagram') {
      // The long-lived token (about 60 days, no refresh token), for the business account of /me/accounts.
      expect(lifetime).toBeGreaterThan(59 * DAY_S);
      expect(row.refresh_token).toBeNull();
      expect(row.account_id).toBe(`ig_quirk${platform}`);
      expect(token.startsWith('sim_at_')).toBe(true);
    } else if (platform === 'facebook') {
      // The Page's own token from /me/accounts (no expiry), not the person's.
      expect(lifetime).toBeNull();
      expect(row.refresh_token).toBeNull();
      expect(row.account_id).toBe(`page_quirk${platform}`);
      expect(token.startsWith('sim_pt_')).toBe(true);
    } else {
      // Standard OAuth: the simulator's hour-long token and a refresh token.
      expect(lifetime).toBeLessThanOrEqual(3600);
      expect(row.refresh_token).not.toBeNull();
    }

    expect(await runSyncJob(t.ctx, { connectionId: row.id, round: NOW.toISOString(), attempt: 1 })).toBe(
      'synced',
    );
    const held = await t.db
      .selectFrom('metric_snapshots')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('workspace_id', '=', workspace.id)
      .where('platform', '=', platform)
      .executeTakeFirstOrThrow();
    // TikTok's daily metrics go back 60 days (docs/ingestion.md "TikTok"): older days are not reported.
    if (platform === 'tiktok') expect(Number(held.n)).toBe(60);
    else expect(Number(held.n)).toBeGreaterThanOrEqual(90);
    const listed = await t.request({ method: 'GET', url: '/v1/platforms', key });
    expect(listed.json().platforms).toEqual([
      expect.objectContaining({ name: platform, status: 'connected', last_sync: NOW.toISOString() }),
    ]);
  });

  it('Instagram: syncs by the stored account id; a connection made before ids were stored finds and keeps it', async () => {
    const { workspace, id } = await connectedWorkspace('instagram', 'igbyid');
    const row = await connection(id);
    expect(row.account_id).toBe('ig_igbyid');
    // The simulator, like the Graph API, refuses /{username}: the sync reads /{id}.
    expect(await runSyncJob(t.ctx, { connectionId: id, round: 'a', attempt: 1 })).toBe('synced');

    // As a connection made before ids were stored: the id is found through /me/accounts and kept.
    await t.db.updateTable('platform_connections').set({ account_id: null }).where('id', '=', id).execute();
    t.setNow(new Date(NOW.getTime() + 3600_000));
    try {
      expect(await runSyncJob(t.ctx, { connectionId: id, round: 'b', attempt: 1 })).toBe('synced');
    } finally {
      t.setNow(NOW);
    }
    const after = await connection(id);
    expect(after.account_id).toBe('ig_igbyid');
    expect(after.last_sync_at!.getTime()).toBe(NOW.getTime() + 3600_000);
    expect(after.last_error_class).toBeNull();
    const held = await t.db
      .selectFrom('metric_snapshots')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('workspace_id', '=', workspace.id)
      .executeTakeFirstOrThrow();
    expect(Number(held.n)).toBeGreaterThanOrEqual(90);
  });

  it('a lapsed Meta long-lived token (no refresh token) moves the connection to reauth_required, once, with its event', async () => {
    const { workspace, key, id } = await connectedWorkspace('instagram', 'lapsed');
    expect(await runSyncJob(t.ctx, { connectionId: id, round: 'a', attempt: 1 })).toBe('synced');
    // About 60 days later the token lapses: the platform answers 401 (Graph code 190).
    expect(sim.expireAccessTokens('instagram', 'lapsed')).toBeGreaterThan(0);
    expect(await runSyncJob(t.ctx, { connectionId: id, round: 'b', attempt: 1 })).toBe('reauth_required');
    expect(await runSyncJob(t.ctx, { connectionId: id, round: 'b', attempt: 2 })).toBe('skipped');
    const row = await connection(id);
    expect(row).toMatchObject({ status: 'reauth_required', last_error_class: 'reauth_required' });
    expect(row.reauth_at).not.toBeNull();
    const events = await t.db
      .selectFrom('events')
      .select(['type', 'data'])
      .where('workspace_id', '=', workspace.id)
      .where('type', '=', 'platform.reauth_required')
      .execute();
    expect(events).toHaveLength(1);
    expect(events[0]!.data).toMatchObject({
      platform: 'instagram',
      handle: 'lapsed',
      reconnect: 'POST /v1/platforms/instagram/connect',
    });
    const listed = await t.request({ method: 'GET', url: '/v1/platforms', key });
    expect(listed.json().platforms).toEqual([
      expect.objectContaining({
        name: 'instagram',
        status: 'reauth_required',
        last_error: expect.objectContaining({ class: 'reauth_required' }),
      }),
    ]);
    for (const token of sim.issuedTokens()) expect(JSON.stringify(events)).not.toContain(token);
  });

  it("refuses a form-encoded (Login Kit) request at TikTok's Business token endpoint, and Meta's exchange of an unknown token", async () => {
    const tiktok = await fetch(`${sim.url}/tiktok/oauth/refresh_token`, {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        client_key: 'brandhealth-tiktok',
        client_secret: 'simulator-secret',
        refresh_token: 'x',
      }),
    });
    expect(tiktok.status).toBe(200);
    expect(await tiktok.json()).toMatchObject({ code: 40002 });
    const meta = await fetch(`${sim.url}/instagram/oauth/token`, {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'fb_exchange_token',
        client_id: 'brandhealth-instagram',
        client_secret: 'simulator-secret',
        fb_exchange_token: 'not-a-token',
      }),
    });
    expect(meta.status).toBe(400);
    expect(((await meta.json()) as { error: string }).error).toBe('invalid_grant');
  });
});
