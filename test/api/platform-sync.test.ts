import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { connectPlatform } from '../../src/admin/platforms.ts';
import {
  BREAKER_THRESHOLD,
  claimDueConnections,
  FAILURE_ALERT_AFTER,
  nextSlot,
  runSyncJob,
  syncJob,
  type SyncJob,
} from '../../src/platforms/sync-worker.ts';
import { sealTokens } from '../../src/platforms/vault.ts';
import { oauthConnection as oauthConnectionOf } from '../helpers/oauth-connection.ts';
import type { Platform } from '../../src/core/catalog.ts';
import { platformStandIn } from '../helpers/platform-standin.ts';
import { startTestService, workspaceWithKey, type TestService } from '../helpers/service.ts';

let t: TestService;
let standIn: Awaited<ReturnType<typeof platformStandIn>>;
const NOW = new Date('2025-03-04T06:00:00Z');

beforeAll(async () => {
  standIn = await platformStandIn();
  t = await startTestService({}, standIn.env);
  t.setNow(NOW);
});
afterAll(async () => {
  await t?.close();
  await standIn?.close();
});

// Synced yesterday: the next sync re-reads from 2025-03-01, the days the recorded answers cover.
const oauthConnection = (
  workspaceId: string,
  platform: Platform,
  options: { expiresAt?: Date; refresh?: boolean } = {},
) => oauthConnectionOf(t, NOW, workspaceId, platform, options);

async function takeJobs(platform: Platform): Promise<SyncJob[]> {
  const jobs = await t.ctx.jobs.boss.fetch<SyncJob>(syncJob(platform).queue, { batchSize: 1000 });
  return (jobs ?? []).map((j) => j.data);
}

async function queued(platform: Platform) {
  const { rows } = await sql<{ data: SyncJob; start_after: Date }>`
    SELECT data, start_after FROM pgboss.job WHERE name = ${syncJob(platform).queue} AND state = 'created'`.execute(
    t.db,
  );
  return rows;
}

async function events(workspaceId: string, type: string) {
  return t.db
    .selectFrom('events')
    .select(['type', 'data'])
    .where('workspace_id', '=', workspaceId)
    .where('type', '=', type as never)
    .execute();
}

async function health(key: string) {
  const res = await t.request({ method: 'GET', url: '/v1/platforms', key });
  expect(res.statusCode).toBe(200);
  return res.json().platforms as Array<Record<string, unknown>>;
}

describe('scheduled sync', () => {
  it('claims each due connection once per round, spread over the interval, and syncs it', async () => {
    const a = await workspaceWithKey(t.db, { plan: 'agency' });
    const b = await workspaceWithKey(t.db, { plan: 'agency' });
    const ids = [
      await oauthConnection(a.workspace.id, 'instagram'),
      await oauthConnection(a.workspace.id, 'tiktok'),
      await oauthConnection(b.workspace.id, 'instagram'),
    ];
    // A handle-only connection (CLI) is never scheduled.
    await connectPlatform(t.db, { workspaceId: b.workspace.id, platform: 'tiktok', handle: 'acme' });

    expect(await claimDueConnections(t.ctx)).toBe(3);
    expect(await claimDueConnections(t.ctx)).toBe(0);
    const rows = await t.db
      .selectFrom('platform_connections')
      .select(['id', 'next_sync_at'])
      .where('id', 'in', ids)
      .execute();
    for (const r of rows) {
      expect(r.next_sync_at!.getTime()).toBeGreaterThan(NOW.getTime());
      expect(r.next_sync_at!.getTime()).toBeLessThanOrEqual(NOW.getTime() + 86_400_000);
      expect(r.next_sync_at).toEqual(nextSlot(r.id, NOW, 1440));
    }

    const instagram = await takeJobs('instagram');
    const tiktok = await takeJobs('tiktok');
    expect(instagram.map((j) => j.connectionId).sort()).toEqual([ids[0], ids[2]].sort());
    expect(tiktok.map((j) => j.connectionId)).toEqual([ids[1]]);
    for (const job of [...instagram, ...tiktok]) expect(await runSyncJob(t.ctx, job)).toBe('synced');

    // The unsealed token went to the platform, in the platform's own header.
    const igCalls = standIn.requests.filter((r) => r.platform === 'instagram');
    expect(igCalls.some((r) => r.authorization === `Bearer secret-access-${ids[0]}`)).toBe(true);
    const snaps = await t.db
      .selectFrom('metric_snapshots')
      .select(['platform', 'day', 'followers'])
      .where('workspace_id', '=', a.workspace.id)
      .orderBy('platform')
      .orderBy('day')
      .execute();
    // 2025-03-01 .. today (the 4th). Instagram reports new followers, not the ones lost: the latest
    // audience is carried back rather than rebuilt from gains alone.
    expect(snaps.filter((s) => s.platform === 'instagram').map((s) => s.followers)).toEqual([
      10500, 10500, 10500, 10500,
    ]);
    const items = await health(a.key);
    expect(items.map((p) => [p.name, p.status, p.last_sync, p.last_error])).toEqual([
      ['instagram', 'connected', NOW.toISOString(), null],
      ['tiktok', 'connected', NOW.toISOString(), null],
    ]);
    expect(items[0]!.next_sync_at).toBe(nextSlot(ids[0]!, NOW, 1440).toISOString());
    // No token in the answer.
    const body = JSON.stringify(items);
    expect(body).not.toContain('secret-');

    // Next day's round: due again, exactly once.
    t.setNow(new Date(NOW.getTime() + 86_400_000));
    try {
      expect(await claimDueConnections(t.ctx)).toBe(3);
      expect(await claimDueConnections(t.ctx)).toBe(0);
      await takeJobs('instagram');
      await takeJobs('tiktok');
    } finally {
      t.setNow(NOW);
    }
  });

  it('fires score.changed from a sync only when the daily score moves outside its 90% interval, by 1.0 or more', async () => {
    const w = await workspaceWithKey(t.db, { plan: 'agency' });
    const id = await oauthConnection(w.workspace.id, 'instagram');
    const job: SyncJob = { connectionId: id, round: NOW.toISOString(), attempt: 1 };
    expect(await runSyncJob(t.ctx, job)).toBe('synced');
    // The first data is not a change.
    expect(await events(w.workspace.id, 'score.changed')).toHaveLength(0);
    const today = await t.db
      .selectFrom('daily_scores')
      .select(['score', 'score_low', 'score_high', 'formula_version'])
      .where('workspace_id', '=', w.workspace.id)
      .where('formula_version', '=', 'v3')
      .where('day', '=', '2025-03-04')
      .executeTakeFirstOrThrow();
    // The last day of a recompute is stored with its interval: what the next sync compares against.
    expect(today.formula_version).toBe('v3');
    expect(today.score_low).not.toBeNull();
    const s = today.score;
    // Stands for an earlier stored score and its interval, with the day's snapshot moved too: a sync
    // rescores only from a changed snapshot, so it restores both (and the score back to s).
    const setToday = async (score: number, low: number, high: number) => {
      await t.db
        .updateTable('daily_scores')
        .set({ score, score_low: low, score_high: high })
        .where('workspace_id', '=', w.workspace.id)
        .where('formula_version', '=', 'v3')
        .where('day', '=', '2025-03-04')
        .execute();
      await t.db
        .updateTable('metric_snapshots')
        .set((eb) => ({ followers: eb('followers', '+', 1) }))
        .where('workspace_id', '=', w.workspace.id)
        .where('day', '=', '2025-03-04')
        .execute();
    };

    // 3 points away but inside the earlier score's interval: noise, no event.
    await setToday(s - 3, s - 6, s + 0.5);
    expect(await runSyncJob(t.ctx, job)).toBe('synced');
    expect(await events(w.workspace.id, 'score.changed')).toHaveLength(0);
    // Outside a narrow interval but by less than 1.0: no event either.
    await setToday(s - 0.9, s - 0.95, s - 0.85);
    expect(await runSyncJob(t.ctx, job)).toBe('synced');
    expect(await events(w.workspace.id, 'score.changed')).toHaveLength(0);

    await setToday(s - 10, s - 12, s - 8);
    expect(await runSyncJob(t.ctx, job)).toBe('synced');
    const changed = await events(w.workspace.id, 'score.changed');
    expect(changed).toHaveLength(1);
    expect(changed[0]!.data).toMatchObject({
      workspace_id: w.workspace.id,
      source: 'sync',
      platform: 'instagram',
      change: '+10.0',
    });
  });

  it('backs off a 429 for its Retry-After and still completes the round', async () => {
    const w = await workspaceWithKey(t.db, { plan: 'agency' });
    const id = await oauthConnection(w.workspace.id, 'tiktok');
    standIn.faults.tiktok!.push({ status: 429, headers: { 'retry-after': '7' } });
    const job: SyncJob = { connectionId: id, round: NOW.toISOString(), attempt: 1 };
    expect(await runSyncJob(t.ctx, job)).toBe('deferred');
    const [item] = await health(w.key);
    // Being throttled is not an error of the connection.
    expect(item).toMatchObject({ status: 'connected', last_error: { class: 'rate_limited' } });
    const retry = (await queued('tiktok')).find((r) => r.data.connectionId === id)!;
    expect(retry.data).toMatchObject({ connectionId: id, round: job.round, attempt: 2 });
    const delay = retry.start_after.getTime() - Date.now();
    expect(delay).toBeGreaterThan(4_000);
    expect(delay).toBeLessThanOrEqual(8_000);
    await takeJobsAfterDelay('tiktok');
    expect(await runSyncJob(t.ctx, retry.data)).toBe('synced');
    const [after] = await health(w.key);
    expect(after).toMatchObject({ status: 'connected', last_error: null, last_sync: NOW.toISOString() });
  });

  it('records failures, emits platform.connection_failed once per streak, and opens the breaker', async () => {
    const w = await workspaceWithKey(t.db, { plan: 'agency' });
    const id = await oauthConnection(w.workspace.id, 'instagram');
    const other = await oauthConnection(w.workspace.id, 'tiktok');
    // A success first: the instagram breaker starts closed.
    expect(await runSyncJob(t.ctx, { connectionId: id, round: 'r0', attempt: 1 })).toBe('synced');
    for (let attempt = 1; attempt <= BREAKER_THRESHOLD; attempt++) {
      standIn.faults.instagram!.push({ status: 503 });
      const outcome = await runSyncJob(t.ctx, { connectionId: id, round: 'r1', attempt });
      expect(outcome).toBe(attempt < 5 ? 'deferred' : 'failed');
    }
    const failed = await events(w.workspace.id, 'platform.connection_failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]!.data).toMatchObject({
      platform: 'instagram',
      error_class: 'platform_unavailable',
      consecutive_failures: FAILURE_ALERT_AFTER,
    });
    const [ig] = await health(w.key);
    expect(ig).toMatchObject({
      name: 'instagram',
      status: 'error',
      last_error: { class: 'platform_unavailable' },
    });

    // Open: instagram is not called; tiktok is unaffected.
    const before = standIn.requests.length;
    expect(await runSyncJob(t.ctx, { connectionId: id, round: 'r2', attempt: 1 })).toBe('deferred');
    expect(standIn.requests.length).toBe(before);
    expect(await runSyncJob(t.ctx, { connectionId: other, round: 'r2', attempt: 1 })).toBe('synced');
    await takeJobsAfterDelay('instagram');
  });

  it('a refused access token with a refresh token on file is refreshed on the next attempt', async () => {
    const w = await workspaceWithKey(t.db, { plan: 'agency' });
    const id = await oauthConnection(w.workspace.id, 'tiktok', { refresh: true });
    standIn.faults.tiktok!.push({ status: 401 });
    const job: SyncJob = { connectionId: id, round: 'r', attempt: 1 };
    expect(await runSyncJob(t.ctx, job)).toBe('deferred');
    const marked = await t.db
      .selectFrom('platform_connections')
      .select(['status', 'token_expires_at', 'last_error_class'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    // Not a re-authorisation: the stored token is marked expired so the retry refreshes it.
    expect(marked).toMatchObject({ status: 'connected', last_error_class: 'platform_error' });
    expect(marked.token_expires_at!.getTime()).toBeLessThanOrEqual(NOW.getTime());
    await takeJobsAfterDelay('tiktok');
    const seen = standIn.requests.length;
    expect(await runSyncJob(t.ctx, { ...job, attempt: 2 })).toBe('synced');
    expect(standIn.requests.slice(seen).every((r) => r.authorization === 'refreshed-tiktok-token')).toBe(
      true,
    );
    expect(await events(w.workspace.id, 'platform.reauth_required')).toHaveLength(0);
  });

  it('moves a connection whose refresh is refused to reauth_required, once, with its event', async () => {
    const w = await workspaceWithKey(t.db, { plan: 'agency' });
    const id = await oauthConnection(w.workspace.id, 'tiktok', {
      expiresAt: new Date(NOW.getTime() + 10_000),
      refresh: true,
    });
    standIn.refuseRefresh.add('tiktok');
    try {
      expect(await runSyncJob(t.ctx, { connectionId: id, round: 'r', attempt: 1 })).toBe('reauth_required');
      expect(await runSyncJob(t.ctx, { connectionId: id, round: 'r', attempt: 2 })).toBe('skipped');
    } finally {
      standIn.refuseRefresh.delete('tiktok');
    }
    const reauth = await events(w.workspace.id, 'platform.reauth_required');
    expect(reauth).toHaveLength(1);
    expect(reauth[0]!.data).toMatchObject({
      platform: 'tiktok',
      reconnect: 'POST /v1/platforms/tiktok/connect',
    });
    expect(JSON.stringify(reauth)).not.toContain('secret-');
    const [item] = await health(w.key);
    expect(item).toMatchObject({ name: 'tiktok', status: 'reauth_required', next_sync_at: null });
    // Not claimed by the schedule while it waits for the user.
    await t.db.updateTable('platform_connections').set({ next_sync_at: null }).where('id', '=', id).execute();
    await claimDueConnections(t.ctx);
    expect((await takeJobs('tiktok')).map((j) => j.connectionId)).not.toContain(id);
    const res = await t.request({ method: 'POST', url: '/v1/platforms/tiktok/sync', key: w.key });
    expect(res.statusCode).toBe(409);
    expect(res.json().title).toBe('Reauthorization Required');
  });
});

/** Drops the queued retries of a platform (their start_after lies in the future). */
async function takeJobsAfterDelay(platform: Platform) {
  await sql`DELETE FROM pgboss.job WHERE name = ${syncJob(platform).queue} AND state = 'created'`.execute(
    t.db,
  );
}

describe('POST /v1/platforms/{platform}/sync', () => {
  it('queues a sync now, then answers 429 with Retry-After until the cooldown passes', async () => {
    const w = await workspaceWithKey(t.db, { plan: 'pro' });
    const id = await oauthConnection(w.workspace.id, 'instagram');
    const first = await t.request({ method: 'POST', url: '/v1/platforms/instagram/sync', key: w.key });
    expect(first.statusCode).toBe(202);
    expect(first.json()).toEqual({
      platform: 'instagram',
      status: 'queued',
      requested_at: NOW.toISOString(),
    });
    const jobs = (await takeJobs('instagram')).filter((j) => j.connectionId === id);
    expect(jobs).toEqual([expect.objectContaining({ connectionId: id, manual: true, attempt: 1 })]);

    const again = await t.request({ method: 'POST', url: '/v1/platforms/instagram/sync', key: w.key });
    expect(again.statusCode).toBe(429);
    expect(again.headers['retry-after']).toBe('300');
    expect(again.headers['content-type']).toContain('application/problem+json');
    t.setNow(new Date(NOW.getTime() + 300_000));
    try {
      const later = await t.request({ method: 'POST', url: '/v1/platforms/instagram/sync', key: w.key });
      expect(later.statusCode).toBe(202);
      await takeJobs('instagram');
    } finally {
      t.setNow(NOW);
    }
  });

  it('answers bad requests with the right problem', async () => {
    const w = await workspaceWithKey(t.db, { plan: 'pro' });
    await connectPlatform(t.db, { workspaceId: w.workspace.id, platform: 'tiktok', handle: 'acme' });
    const post = (url: string, key = w.key) => t.request({ method: 'POST', url, key });
    const unknown = await post('/v1/platforms/myspace/sync');
    expect([unknown.statusCode, unknown.json().title]).toEqual([422, 'Invalid Platform']);
    const missing = await post('/v1/platforms/youtube/sync');
    expect([missing.statusCode, missing.json().title]).toEqual([404, 'Platform Not Connected']);
    const handleOnly = await post('/v1/platforms/tiktok/sync');
    expect([handleOnly.statusCode, handleOnly.json().title]).toEqual([409, 'Not Connected Through OAuth']);
    const other = await workspaceWithKey(t.db, { plan: 'pro' });
    const foreign = await post(`/v1/platforms/tiktok/sync?workspace_id=${w.workspace.id}`, other.key);
    expect(foreign.statusCode).toBe(404);
    const free = await workspaceWithKey(t.db, { plan: 'free' });
    expect((await post('/v1/platforms/tiktok/sync', free.key)).statusCode).toBe(403);
    const readOnly = await workspaceWithKey(t.db, { plan: 'pro' }, { scopes: ['read'] });
    expect((await post('/v1/platforms/tiktok/sync', readOnly.key)).statusCode).toBe(403);
  });
});

describe('tokens never leave the vault', () => {
  it('appear in no response, log line, event or job of a sync round with failures', async () => {
    const lines: string[] = [];
    const s = await startTestService(
      {},
      { ...standIn.env, LOG_LEVEL: 'trace' },
      {
        logStream: { write: (line: string) => void lines.push(line) },
      },
    );
    try {
      s.setNow(NOW);
      const w = await workspaceWithKey(s.db, { plan: 'agency' });
      const ids: string[] = [];
      for (const platform of ['instagram', 'tiktok'] as const) {
        const id = await connectPlatform(s.db, {
          workspaceId: w.workspace.id,
          platform,
          handle: 'acme',
          lastSyncAt: new Date(NOW.getTime() - 90_000_000),
        });
        await s.db
          .updateTable('platform_connections')
          .set(
            sealTokens(
              s.ctx.keyRing,
              {
                accessToken: `secret-access-${id}`,
                refreshToken: `secret-refresh-${id}`,
                expiresAt: new Date(NOW.getTime() + 10_000), // refreshed first
                scopes: null,
              },
              { table: 'platform_connections', row: id },
            ),
          )
          .where('id', '=', id)
          .execute();
        ids.push(id);
      }
      standIn.faults.instagram!.push({ status: 500 }, { status: 429, headers: { 'retry-after': '1' } });
      expect(await claimDueConnections(s.ctx)).toBe(2);
      for (const platform of ['instagram', 'tiktok'] as const) {
        for (const job of (await s.ctx.jobs.boss.fetch<SyncJob>(syncJob(platform).queue, {
          batchSize: 10,
        })) ?? [])
          await runSyncJob(s.ctx, job.data);
      }
      const answers = [
        await s.request({ method: 'GET', url: '/v1/platforms', key: w.key }),
        await s.request({ method: 'POST', url: '/v1/platforms/tiktok/sync', key: w.key }),
        await s.request({ method: 'GET', url: '/v1/events', key: w.key }),
      ].map((r) => r.body);
      const events = await s.db.selectFrom('events').select('data').execute();
      const { rows: jobs } = await sql<{ data: unknown }>`SELECT data FROM pgboss.job`.execute(s.db);
      const everything = [...answers, ...lines, JSON.stringify(events), JSON.stringify(jobs)].join('\n');
      expect(lines.length).toBeGreaterThan(0);
      // The refreshed tokens the stand-in issued, and the ones sealed at connect.
      for (const token of ['secret-', 'refreshed-instagram-token', 'refreshed-tiktok-token'])
        expect(everything).not.toContain(token);
      const stored = await s.db
        .selectFrom('platform_connections')
        .select(['access_token', 'refresh_token'])
        .where('id', 'in', ids)
        .execute();
      for (const r of stored)
        expect(`${r.access_token} ${r.refresh_token}`).not.toMatch(/secret-|refreshed-/);
    } finally {
      await s.close();
    }
  });
});
