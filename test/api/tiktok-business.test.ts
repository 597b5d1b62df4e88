import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Simulator } from '../../simulator/server.ts';
import { BREAKER_THRESHOLD, runSyncJob } from '../../src/platforms/sync-worker.ts';
import { getAccessToken } from '../../src/platforms/vault.ts';
import {
  closeSimulatedService,
  connectThroughSimulator,
  startSimulatedService,
} from '../helpers/simulator-oauth.ts';
import { workspaceWithKey, type TestService } from '../helpers/service.ts';

/**
 * TikTok through the service and the simulator, which speaks the TikTok API for Business: the
 * account-holder token endpoints (JSON in, HTTP 200 envelopes out) and errors as HTTP 200 envelopes.
 * An envelope token error (code 40105) is a refused token: it leads to a refresh, then to
 * re-authorisation, and never counts towards the platform's circuit breaker.
 */
let sim: Simulator;
let t: TestService;
const NOW = new Date();
beforeAll(async () => ({ sim, t } = await startSimulatedService(NOW)));
afterAll(() => closeSimulatedService({ sim, t }));

const connection = (id: string) =>
  t.db.selectFrom('platform_connections').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

async function connected(login: string) {
  const { workspace, key } = await workspaceWithKey(t.db, { plan: 'agency' });
  const id = await connectThroughSimulator(t, { key, workspaceId: workspace.id, platform: 'tiktok', login });
  return { workspace, key, id };
}

describe('TikTok API for Business connections', () => {
  it('connects with the Business token endpoint: the username as handle, the open_id as account id, the granted scopes; syncs comments for sentiment', async () => {
    const { workspace, key, id } = await connected('tkbrand');
    const row = await connection(id);
    expect(row).toMatchObject({ handle: 'tkbrand', account_id: 'tkbrand', status: 'connected' });
    expect(row.scopes).toBe(
      'user.info.basic,user.info.username,user.info.profile,user.info.stats,user.insights,video.list,comment.list',
    );
    expect(row.refresh_token).not.toBeNull();
    const started = await t.request({ method: 'POST', url: '/v1/platforms/tiktok/connect', key });
    expect(started.statusCode).toBe(409);

    expect(await runSyncJob(t.ctx, { connectionId: id, round: 'first', attempt: 1 })).toBe('synced');
    const snaps = await t.db
      .selectFrom('metric_snapshots')
      .select(['day', 'impressions', 'sentiment_positive', 'sentiment_neutral', 'sentiment_negative'])
      .where('workspace_id', '=', workspace.id)
      .orderBy('day')
      .execute();
    // TikTok's 60-day lookback, not the 90 days of a first sync.
    expect(snaps).toHaveLength(60);
    expect(snaps.every((s) => s.impressions > 0)).toBe(true);
    const classified = snaps.reduce(
      (n, s) => n + s.sentiment_positive + s.sentiment_neutral + s.sentiment_negative,
      0,
    );
    expect(classified).toBeGreaterThan(0);
  });

  it('an envelope token error is refreshed on the next attempt and never opens the breaker', async () => {
    const ids: string[] = [];
    for (let i = 0; i < BREAKER_THRESHOLD; i++) ids.push((await connected(`expiring${i}`)).id);
    const before = await Promise.all(ids.map((id) => getAccessToken(t.ctx, id)));
    for (let i = 0; i < ids.length; i++) expect(sim.expireAccessTokens('tiktok', `expiring${i}`)).toBe(1);

    for (const id of ids) {
      // HTTP 200 with code 40105: the stored token is marked expired, the job retried.
      expect(await runSyncJob(t.ctx, { connectionId: id, round: 'r', attempt: 1 })).toBe('deferred');
      const row = await connection(id);
      expect(row).toMatchObject({ status: 'connected', last_error_class: 'platform_error' });
      expect(row.token_expires_at!.getTime()).toBeLessThanOrEqual(NOW.getTime());
    }
    // Five refused tokens in a row are not an outage: another TikTok connection is still called.
    const other = (await connected('unaffected')).id;
    expect(await runSyncJob(t.ctx, { connectionId: other, round: 'r', attempt: 1 })).toBe('synced');

    for (const [i, id] of ids.entries()) {
      expect(await runSyncJob(t.ctx, { connectionId: id, round: 'r', attempt: 2 })).toBe('synced');
      const row = await connection(id);
      expect(row).toMatchObject({ status: 'connected', last_error_class: null });
      expect(await getAccessToken(t.ctx, id)).not.toBe(before[i]);
    }
  });

  it('a refused refresh after an envelope token error moves the connection to reauth_required, once', async () => {
    const { workspace, key, id } = await connected('revoked');
    expect(sim.revokeRefreshTokens('tiktok', 'revoked')).toBe(1);
    expect(sim.expireAccessTokens('tiktok', 'revoked')).toBe(1);
    expect(await runSyncJob(t.ctx, { connectionId: id, round: 'r', attempt: 1 })).toBe('deferred');
    expect(await runSyncJob(t.ctx, { connectionId: id, round: 'r', attempt: 2 })).toBe('reauth_required');
    expect(await runSyncJob(t.ctx, { connectionId: id, round: 'r', attempt: 3 })).toBe('skipped');
    const events = await t.db
      .selectFrom('events')
      .select(['type', 'data'])
      .where('workspace_id', '=', workspace.id)
      .where('type', '=', 'platform.reauth_required')
      .execute();
    expect(events).toHaveLength(1);
    expect(events[0]!.data).toMatchObject({
      platform: 'tiktok',
      reconnect: 'POST /v1/platforms/tiktok/connect',
    });
    const listed = await t.request({ method: 'GET', url: '/v1/platforms', key });
    expect(listed.json().platforms).toEqual([
      expect.objectContaining({ name: 'tiktok', status: 'reauth_required' }),
    ]);
  });

  it('a TikTok outage (code 5xxxx) and throttling (40100) in HTTP 200 envelopes are read as such', async () => {
    const { id } = await connected('flaky');
    sim.setFaults('tiktok', { burst429: 1 });
    expect(await runSyncJob(t.ctx, { connectionId: id, round: 'f', attempt: 1 })).toBe('deferred');
    expect(await connection(id)).toMatchObject({ last_error_class: 'rate_limited' });
    sim.setFaults('tiktok', { errors5xx: 1 });
    expect(await runSyncJob(t.ctx, { connectionId: id, round: 'f', attempt: 2 })).toBe('deferred');
    expect(await connection(id)).toMatchObject({ last_error_class: 'platform_unavailable' });
    expect(await runSyncJob(t.ctx, { connectionId: id, round: 'f', attempt: 3 })).toBe('synced');
  });

  it('disconnecting revokes the access token at the Business API', async () => {
    const { key, id } = await connected('leaving');
    const token = await getAccessToken(t.ctx, id);
    const res = await t.request({ method: 'DELETE', url: '/v1/platforms/tiktok', key });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ platform: 'tiktok', status: 'disconnected', revoked: true });
    const url = new URL(`${sim.url}/tiktok/business/business/get/`);
    url.search = new URLSearchParams({ business_id: 'leaving', fields: '["username"]' }).toString();
    const after = await fetch(url, { headers: { 'access-token': token } });
    expect(after.status).toBe(200);
    expect(await after.json()).toMatchObject({ code: 40105 });
  });
});
