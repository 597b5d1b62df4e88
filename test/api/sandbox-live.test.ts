import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AddressInfo } from 'node:net';
import { connectPlatform } from '../../src/admin/platforms.ts';
import { claimDueConnections } from '../../src/platforms/sync-worker.ts';
import { connectThroughConsent } from '../../simulator/live-connect.ts';
import { startSimulator, type Simulator } from '../../simulator/server.ts';
import { utcDay } from '../../src/core/days.ts';
import type { Platform } from '../../src/core/catalog.ts';
import { runQueuedSyncs } from '../helpers/simulator-oauth.ts';
import { startTestService, workspaceWithKey, type TestService } from '../helpers/service.ts';

/**
 * The live part of `npm run demo` (simulator/live-connect.ts) against a started, listening
 * service: a sandbox-like workspace with handle-only connections is connected through the real
 * consent flow over HTTP; /v1/platforms then shows its syncs and /v1/score moves as simulated days
 * pass. Jobs are run here (the test service has no workers) through the same handler the workers use.
 */
let sim: Simulator;
let t: TestService;
let baseUrl: string;
const NOW = new Date();
beforeAll(async () => {
  sim = await startSimulator({ speed: 0, startDay: utcDay(NOW) });
  t = await startTestService({}, { SIMULATOR_URL: sim.url, SYNC_INTERVAL_MINUTES: '1' });
  t.setNow(NOW);
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await t?.close();
  await sim?.close();
});

const PLATFORMS: Platform[] = ['instagram', 'tiktok'];

describe('live sandbox', () => {
  it('connects through consent over HTTP; syncs show in /v1/platforms and the score moves as days pass', async () => {
    const { workspace, key } = await workspaceWithKey(t.db, { plan: 'agency', realtimeScoring: true });
    // As the seeded sandbox: connections made by handle only, nothing to sync with.
    await connectPlatform(t.db, { workspaceId: workspace.id, platform: 'instagram', handle: '@LiveBrand' });
    await connectPlatform(t.db, { workspaceId: workspace.id, platform: 'tiktok', handle: 'livebrand' });

    const results = await connectThroughConsent({ baseUrl, key, workspaceId: workspace.id });
    expect(results).toEqual([
      { platform: 'instagram', handle: 'livebrand', outcome: 'connected' },
      { platform: 'tiktok', handle: 'livebrand', outcome: 'connected' },
    ]);
    const live = await t.db
      .selectFrom('platform_connections')
      .select(['platform', 'status', 'access_token', 'handle'])
      .where('workspace_id', '=', workspace.id)
      .where('status', '=', 'connected')
      .execute();
    expect(live).toHaveLength(2);
    expect(live.every((c) => c.access_token !== null)).toBe(true);

    // The first syncs were queued by the flow.
    expect(await runQueuedSyncs(t, PLATFORMS)).toEqual(['synced', 'synced']);
    const first = (await t.request({ method: 'GET', url: '/v1/platforms', key })).json();
    expect(first.total_connected).toBe(2);
    for (const p of first.platforms)
      expect(p).toMatchObject({ status: 'connected', last_sync: NOW.toISOString(), last_error: null });
    const score1 = await t.request({ method: 'GET', url: '/v1/score', key });
    expect(score1.statusCode, score1.body).toBe(200);
    expect(score1.json().source).toBe('realtime');

    // Simulated days pass; the schedule syncs every connection again and the score follows.
    let previous = score1.json().score as number;
    let moved = 0;
    for (let day = 1; day <= 3; day++) {
      sim.advanceDays(1);
      const now = new Date(NOW.getTime() + day * 86_400_000);
      t.setNow(now);
      expect(await claimDueConnections(t.ctx)).toBe(2);
      expect(await runQueuedSyncs(t, PLATFORMS)).toEqual(['synced', 'synced']);
      const listed = (await t.request({ method: 'GET', url: '/v1/platforms', key })).json();
      for (const p of listed.platforms) expect(p.last_sync).toBe(now.toISOString());
      const score = (await t.request({ method: 'GET', url: '/v1/score', key })).json().score as number;
      if (score !== previous) moved++;
      previous = score;
    }
    expect(moved).toBeGreaterThan(0);
  });
});
