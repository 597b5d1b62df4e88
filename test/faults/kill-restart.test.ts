import { sql, type Kysely } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { AUDIT_QUEUE } from '../../src/audits/policy.ts';
import { openDatabase, type Database } from '../../src/infra/db/database.ts';
import type { DB } from '../../src/infra/db/types.ts';
import { seedMetrics } from '../api/audits.fixtures.ts';
import { createTestDatabase, usingPostgres, type TestDatabase } from '../helpers/database.ts';
import { workspaceWithKey } from '../helpers/service.ts';
import { expectScoredOnce, http, killService, spawnService, until, type ChildService } from './support.ts';
import type { Platform } from '../../src/core/catalog.ts';

// kill -9 of the real service (`node src/main.ts`) while 50 audits are processing, then a new
// process on the same database: every audit completes exactly once and no quota is counted twice.
//
// PostgreSQL only: PGlite is one process writing its own files, and a SIGKILL can leave that
// folder unrecoverable by design (docs: stop it with SIGTERM so it checkpoints). There is nothing
// for the service to recover there, so the case needs a real server.
const AUDITS = 50;
const PLATFORMS: Platform[] = ['instagram', 'tiktok', 'youtube', 'twitter', 'facebook'];
const LOOKBACK_DAYS = 180;
const RECOVERY_BOUND_SECONDS = 40;

describe.runIf(usingPostgres())('kill -9 while 50 audits are processing', () => {
  let testDb: TestDatabase | undefined;
  let database: Database | undefined;
  const children: ChildService[] = [];
  afterAll(async () => {
    for (const c of children) await killService(c, 'SIGKILL').catch(() => {});
    await database?.close();
    await testDb?.drop();
  });

  it('completes every audit exactly once after a restart, counting each once against the quota', async () => {
    testDb = await createTestDatabase();
    const env = { DATABASE_URL: testDb.databaseUrl! };
    const first = await spawnService(env);
    children.push(first);
    // Fixtures go straight into the database the child migrated.
    database = await openDatabase({ databaseUrl: testDb.databaseUrl, dataDir: 'memory://', poolSize: 4 });
    const db: Kysely<DB> = database.db;

    const tenants: Array<{ workspaceId: string; key: string }> = [];
    for (let i = 0; i < AUDITS; i++) {
      const { workspace, key } = await workspaceWithKey(
        db,
        { plan: 'agency', name: `Kill test ${i}` },
        { platforms: PLATFORMS.map((platform) => ({ platform })) },
      );
      await seedMetrics(db, workspace.id, { platforms: PLATFORMS, days: LOOKBACK_DAYS, seed: i + 1 });
      tenants.push({ workspaceId: workspace.id, key });
    }

    const started = await Promise.all(
      tenants.map((t) =>
        http(first.origin, 'POST', '/v1/audit/run', { key: t.key, body: { lookback_days: LOOKBACK_DAYS } }),
      ),
    );
    expect(started.map((r) => r.status)).toEqual(Array(AUDITS).fill(200));
    const auditIds = started.map((r) => r.json.audit_id as string);

    const statusCounts = async () => {
      const rows = await db
        .selectFrom('audits')
        .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
        .where('id', 'in', auditIds)
        .groupBy('status')
        .execute();
      return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)])) as Record<string, number>;
    };
    const activeJobs = async () => {
      const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pgboss.job
        WHERE name = ${AUDIT_QUEUE} AND state = 'active'`.execute(db);
      return rows[0]!.n;
    };
    // Kill mid-attempt: a few audits done, most still processing, and the worker holding one.
    const activeAudits = async () =>
      (
        await sql<{ audit_id: string }>`SELECT data->>'auditId' AS audit_id FROM pgboss.job
          WHERE name = ${AUDIT_QUEUE} AND state = 'active'`.execute(db)
      ).rows.map((r) => r.audit_id);
    // The attempts running when the kill is sent (read just before it: one may still finish in between,
    // which the checks below allow; reading them only after the kill could find none).
    const running = await until(
      'the worker to be running an audit after the first few completed',
      async () => {
        if (((await statusCounts()).completed ?? 0) < 3) return undefined;
        const ids = await activeAudits();
        return ids.length ? ids : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 10 },
    );
    await killService(first, 'SIGKILL');
    const atKill = await statusCounts();
    const heldAtKill = await activeJobs();
    expect(atKill.processing ?? 0, 'audits still processing when the process died').toBeGreaterThan(0);
    expect(atKill.failed ?? 0).toBe(0);

    // The attempts the dead worker held stay `active` until their heartbeat goes stale (10 s)
    // and the next maintenance pass (every 5 s) retries them (back-off 5-10 s): seconds, not the
    // 300 s expiry. Nothing here moves the clock.
    const heldIds = [...new Set([...running, ...(await activeAudits())])];
    const killedAt = Date.now();

    const second = await spawnService(env);
    children.push(second);
    // Each local audit worker fetches one job per 2 s poll (pg-boss batchSize 1, no burst mode),
    // so a backlog drains at a few audits a second at best; the deadline allows 3 s each.
    const restartedAt = Date.now();
    const held = await until(
      'the attempts held by the killed worker to complete',
      async () => {
        const rows = await db.selectFrom('audits').select('status').where('id', 'in', heldIds).execute();
        return rows.every((r) => r.status === 'completed') ? Date.now() - killedAt : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 100 },
    );
    // Heartbeat 10 s + maintenance pass 5 s + back-off up to 10 s + a poll: well under a minute.
    expect(held, 'ms from the kill until the interrupted attempts completed').toBeLessThan(
      RECOVERY_BOUND_SECONDS * 1000,
    );
    await until(
      'every audit to complete after the restart',
      async () => ((await statusCounts()).completed === AUDITS ? true : undefined),
      { timeoutMs: 30_000 + 3_000 * AUDITS, intervalMs: 250 },
    );
    console.info(
      `kill -9: ${atKill.processing} audits processing and ${heldAtKill} attempt(s) in flight at the kill; ` +
        `the new process completed them in ${((Date.now() - restartedAt) / 1000).toFixed(1)} s; ` +
        `the interrupted attempts completed ${(held / 1000).toFixed(1)} s after the kill`,
    );
    expect(await statusCounts()).toEqual({ completed: AUDITS });

    // One score_log set per audit (one row per platform scored) and one audit.completed event each.
    await expectScoredOnce(db, auditIds, PLATFORMS.length);

    // Through the API of the new process: each audit reads back completed, and each workspace
    // has used exactly one audit of its quota.
    for (const [i, t] of tenants.entries()) {
      const audit = await http(second.origin, 'GET', `/v1/audit/${auditIds[i]}`, { key: t.key });
      expect(audit.status).toBe(200);
      expect(audit.json).toMatchObject({ status: 'completed', audit_id: auditIds[i] });
      const ws = await http(second.origin, 'GET', '/v1/workspace', { key: t.key });
      expect(ws.json.audits_used, t.workspaceId).toBe(1);
    }
    await killService(second, 'SIGTERM');
    expect((await second.exited).code).toBe(0);
    // Room for the waits above (60 s + 120 s + 30 s + 3 s an audit), so a slow run fails on the wait
    // that names what did not happen, not on a bare test timeout.
  }, 420_000);
});
