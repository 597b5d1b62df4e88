import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AddressInfo } from 'node:net';
import { connectPlatform } from '../../src/admin/platforms.ts';
import { claimDueConnections } from '../../src/platforms/sync-worker.ts';
import { snapshotRow, upsertSnapshots } from '../../src/ingest/store.ts';
import { connectThroughConsent } from '../../simulator/live-connect.ts';
import { handOverToSimulator } from '../../simulator/live-history.ts';
import { startSimulator, type Simulator } from '../../simulator/server.ts';
import { addDays, daysBetween, utcDay } from '../../src/core/days.ts';
import type { Platform } from '../../src/core/catalog.ts';
import { syntheticSnapshots } from '../helpers/synthetic.ts';
import { runQueuedSyncs } from '../helpers/simulator-oauth.ts';
import { startTestService, workspaceWithKey, type TestService } from '../helpers/service.ts';

/**
 * `npm run demo`'s clocks (simulator/live.ts), which the other live-sandbox test keeps in step: the
 * simulator starts days behind the service's today at a day a minute and never runs ahead of the real
 * clock; the sandbox workspace's seeded history is handed over to it and its platforms connected
 * through consent. The score must follow the simulator's days: nothing stored for a day the platform
 * has not lived (X included, which has no daily series to show where its data ends), latest_data_day a
 * step further with each sync, and caught up once the simulator reaches today. One clock drives both.
 */
const BEHIND = 5;
const PLATFORMS: Platform[] = ['instagram', 'twitter'];
// Noon of the real UTC day: the test moves the clock eight minutes on, which must not cross midnight.
let clock = Math.floor(Date.now() / 86_400_000) * 86_400_000 + 12 * 3_600_000;
const TODAY = utcDay(new Date(clock));
let sim: Simulator;
let t: TestService;
let baseUrl: string;
beforeAll(async () => {
  sim = await startSimulator({
    speed: 1440,
    startDay: addDays(TODAY, -BEHIND),
    capAtNow: true,
    now: () => clock,
  });
  t = await startTestService({}, { SIMULATOR_URL: sim.url, SYNC_INTERVAL_MINUTES: '1' });
  t.setNow(new Date(clock));
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await t?.close();
  await sim?.close();
});

async function storedDays(workspaceId: string) {
  const rows = await t.db
    .selectFrom('metric_snapshots')
    .select(['platform', 'day', 'source'])
    .where('workspace_id', '=', workspaceId)
    .orderBy('day')
    .execute();
  const last = (p: Platform) => rows.filter((r) => r.platform === p).at(-1)?.day;
  return { rows, last };
}

describe("the demo's clocks", () => {
  it('the connected sandbox workspace follows the simulator from behind until it catches up with today', async () => {
    const { workspace, key } = await workspaceWithKey(t.db, { plan: 'agency', realtimeScoring: true });
    await connectPlatform(t.db, { workspaceId: workspace.id, platform: 'instagram', handle: '@LiveClock' });
    await connectPlatform(t.db, { workspaceId: workspace.id, platform: 'twitter', handle: 'liveclock' });
    // The seed's history of another account, up to today (as `brandhealth demo` writes it).
    const seeded = syntheticSnapshots({
      seed: 11,
      from: addDays(TODAY, -89),
      days: 90,
      platforms: PLATFORMS,
    });
    await upsertSnapshots(
      t.db,
      seeded.map((s) => snapshotRow(workspace.id, s, 'sandbox')),
    );

    const simStart = sim.today();
    expect(simStart).toBe(addDays(TODAY, -BEHIND));
    expect(await handOverToSimulator(t.db, workspace.id, simStart, TODAY)).toEqual({
      removed: BEHIND * PLATFORMS.length,
    });
    const results = await connectThroughConsent({ baseUrl, key, workspaceId: workspace.id });
    expect(results.map((r) => r.outcome)).toEqual(['connected', 'connected']);
    expect(await runQueuedSyncs(t, PLATFORMS)).toEqual(['synced', 'synced']);

    // The first sync asked for 90 days up to the service's today; the platforms have lived only up to
    // the simulator's today, and everything from the backfill's first day on is the simulator's account.
    let stored = await storedDays(workspace.id);
    for (const p of PLATFORMS) expect(stored.last(p)).toBe(simStart);
    expect(stored.rows.every((r) => r.source === 'connector')).toBe(true);
    const first = (await t.request({ method: 'GET', url: '/v1/score', key })).json();
    expect(first).toMatchObject({ source: 'realtime', latest_data_day: simStart, stale: true });

    // Two real minutes a step: two simulated days, until the simulator reaches today and stays there.
    const scores = [first.score as number];
    for (let step = 1; step <= 4; step++) {
      clock += 2 * 60_000;
      t.setNow(new Date(clock));
      const simToday = sim.today();
      expect(simToday).toBe(addDays(simStart, Math.min(2 * step, BEHIND)));
      expect(await claimDueConnections(t.ctx)).toBe(2);
      expect(await runQueuedSyncs(t, PLATFORMS)).toEqual(['synced', 'synced']);
      stored = await storedDays(workspace.id);
      for (const p of PLATFORMS) expect(stored.last(p)).toBe(simToday);
      const score = (await t.request({ method: 'GET', url: '/v1/score', key })).json();
      expect(score.latest_data_day).toBe(simToday);
      expect(score.stale).toBe(daysBetween(simToday, TODAY) > 3);
      scores.push(score.score as number);
    }
    expect(sim.today()).toBe(TODAY);
    expect(new Set(scores).size).toBeGreaterThan(1);
  });
});
