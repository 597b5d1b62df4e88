import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setParent } from '../../src/admin/workspaces.ts';
import { addDays, utcDay } from '../../src/core/days.ts';
import { runSyncJob } from '../../src/platforms/sync-worker.ts';
import type { Service } from '../../src/service.ts';
import { startSimulator, type Simulator } from '../../simulator/server.ts';
import { usingPostgres } from '../helpers/database.ts';
import { settled } from '../helpers/settled.ts';
import {
  expectProblem,
  secondInstance,
  startTestService,
  workspaceWithKey,
  type TestService,
} from '../helpers/service.ts';
import { connectThroughSimulator } from '../helpers/simulator-oauth.ts';
import { runJob, seedMetrics } from './audits.fixtures.ts';

/**
 * GET /v1/score answers from memory (src/scoring/score-cache.ts), dropped by the NOTIFY the
 * database triggers send in the transaction of every change (migration 0062). Every check reads
 * through HTTP after a committed change: a missed invalidation shows as the old answer.
 */
const NOW = new Date();
const TODAY = utcDay(NOW);

const ENV = {
  PUBLIC_URL: 'http://brandhealth.test',
  ENCRYPTION_KEYS: `k1:${randomBytes(32).toString('base64')}`,
  // The helper turns the cache off for the other tests (read-after-write on PostgreSQL): on here.
  SCORE_CACHE_TTL_MS: '60000',
};
let sim: Simulator;
let t: TestService;
beforeAll(async () => {
  sim = await startSimulator({ speed: 0, startDay: TODAY });
  Object.assign(ENV, { SIMULATOR_URL: sim.url });
  t = await startTestService({}, ENV);
  t.setNow(NOW);
});
afterAll(async () => {
  await t?.close();
  await sim?.close();
});

const get = (key: string, url: string) => t.request({ method: 'GET', url, key });

/** An answer read back after a write (test/helpers/settled.ts). */
const settledAnswer = <T>(read: () => Promise<T>, done: (value: T) => boolean) => settled(read, done);

describe('GET /v1/score from memory', () => {
  it('a sync that brings new snapshots replaces the cached real-time score', async () => {
    const { workspace, key } = await workspaceWithKey(t.db, { plan: 'agency', realtimeScoring: true });
    const id = await connectThroughSimulator(t, { key, workspaceId: workspace.id, platform: 'instagram' });
    // History up to yesterday only, then read twice: the second answer is the cached one.
    await seedMetrics(t.db, workspace.id, { platforms: ['instagram'], asOf: addDays(TODAY, -1), days: 60 });
    const before = await get(key, '/v1/score');
    expect(before.statusCode, before.body).toBe(200);
    expect(before.json()).toMatchObject({ source: 'realtime', latest_data_day: addDays(TODAY, -1) });
    expect((await get(key, '/v1/score')).body).toBe(before.body);

    expect(await runSyncJob(t.ctx, { connectionId: id, round: NOW.toISOString(), attempt: 1 })).toBe(
      'synced',
    );
    // A sync commits in steps (its running mark, the snapshots, the daily scores): wait for the last.
    const after = (
      await settledAnswer(
        () => get(key, '/v1/score'),
        (r) => r.json().latest_data_day === TODAY,
      )
    ).json();
    expect(after).toMatchObject({ source: 'realtime', latest_data_day: TODAY });
    expect(after).not.toEqual(before.json());
  });

  it("never serves one tenant's cached answer to another, and follows a workspace moving agency", async () => {
    const x = await workspaceWithKey(t.db, { plan: 'agency', accountType: 'agency' });
    const y = await workspaceWithKey(t.db, { plan: 'agency', accountType: 'agency' });
    const client = await workspaceWithKey(
      t.db,
      { plan: 'pro', parentId: x.workspace.id },
      { platforms: [{ platform: 'instagram' }] },
    );
    await seedMetrics(t.db, client.workspace.id, { platforms: ['instagram'] });
    const run = await t.request({ method: 'POST', url: '/v1/audit/run', key: client.key, payload: {} });
    await runJob(t.ctx, run.json().audit_id);
    const url = `/v1/score?workspace_id=${client.workspace.id}`;

    const seenByX = await get(x.key, url);
    expect(seenByX.statusCode).toBe(200);
    expect((await get(x.key, url)).body).toBe(seenByX.body);
    // Same workspace, same variant, cached: another agency's key still gets Not Found.
    expectProblem(await get(y.key, url), 404, 'Not Found');
    expect((await get(client.key, url)).json()).toEqual(seenByX.json());
    expect((await get(x.key, `${url}&include_pillars=false`)).json().pillars).toBeUndefined();

    // The client moves to agency Y (an operator's change): X loses it at once, Y sees it.
    await setParent(t.db, client.workspace.id, y.workspace.id);
    expectProblem(
      await settledAnswer(
        () => get(x.key, url),
        (r) => r.statusCode !== 200,
      ),
      404,
      'Not Found',
    );
    expect((await get(y.key, url)).json()).toEqual(seenByX.json());
  });

  it('a new audit replaces the cached score; a plan change replaces the cached tier', async () => {
    const { workspace, key } = await workspaceWithKey(
      t.db,
      { plan: 'pro' },
      { platforms: [{ platform: 'tiktok' }] },
    );
    await seedMetrics(t.db, workspace.id, { platforms: ['tiktok'], seed: 2 });
    const first = await t.request({ method: 'POST', url: '/v1/audit/run', key, payload: {} });
    await runJob(t.ctx, first.json().audit_id);
    const cached = (await get(key, '/v1/score')).json();
    await seedMetrics(t.db, workspace.id, { platforms: ['tiktok'], seed: 5, followers: 4_000_000 });
    // Snapshots changed but the answer is the audit's, so it is unchanged.
    expect((await get(key, '/v1/score')).json()).toEqual(cached);
    // A second later (the clock is fixed): the new audit has its own completed_at.
    t.setNow(new Date(NOW.getTime() + 1000));
    const second = await t.request({ method: 'POST', url: '/v1/audit/run', key, payload: {} });
    await runJob(t.ctx, second.json().audit_id);
    t.setNow(NOW);
    const audit = (await get(key, `/v1/audit/${second.json().audit_id}`)).json();
    const now = (
      await settledAnswer(
        () => get(key, '/v1/score'),
        (r) => r.json().calculated_at !== cached.calculated_at,
      )
    ).json();
    expect(now.score).toBe(audit.score);
    expect(now.calculated_at).toBe(audit.completed_at);
    expect(now.calculated_at).not.toBe(cached.calculated_at);

    await t.db.updateTable('workspaces').set({ plan: 'enterprise' }).where('id', '=', workspace.id).execute();
    const tier = await settledAnswer(
      () => get(key, '/v1/score'),
      (r) => r.json().tier !== 'pro',
    );
    expect(tier.json().tier).toBe('enterprise');
  });
});

// Two instances on one PostgreSQL database (PGlite is one process's database: nothing to share).
describe.skipIf(!usingPostgres())('GET /v1/score cached on two instances', () => {
  let b: Service;
  beforeAll(async () => {
    b = await secondInstance(t, ENV, () => NOW);
  }, 60_000);
  afterAll(async () => b?.stop());

  it("an audit completing on A reaches B's cached answer before its TTL", async () => {
    const { workspace, key } = await workspaceWithKey(
      t.db,
      { plan: 'pro' },
      { platforms: [{ platform: 'youtube' }] },
    );
    await seedMetrics(t.db, workspace.id, { platforms: ['youtube'], seed: 11 });
    const onB = () =>
      b.app.inject({ method: 'GET', url: '/v1/score', headers: { authorization: `Bearer ${key}` } });
    const first = await t.request({ method: 'POST', url: '/v1/audit/run', key, payload: {} });
    await runJob(t.ctx, first.json().audit_id);
    await seedMetrics(t.db, workspace.id, { platforms: ['youtube'], seed: 12, followers: 5_000_000 });
    const cached = (await onB()).body;
    expect((await onB()).body).toBe(cached);

    t.setNow(new Date(NOW.getTime() + 1000));
    const second = await t.request({ method: 'POST', url: '/v1/audit/run', key, payload: {} });
    await runJob(t.ctx, second.json().audit_id);
    t.setNow(NOW);
    const audit = (
      await t.request({ method: 'GET', url: `/v1/audit/${second.json().audit_id}`, key })
    ).json();
    expect(JSON.parse(cached).calculated_at).not.toBe(audit.completed_at);
    const answer = await settledAnswer(
      async () => (await onB()).json(),
      (a) => a.calculated_at === audit.completed_at,
    );
    expect(answer).toMatchObject({ score: audit.score, calculated_at: audit.completed_at });
  });
});
