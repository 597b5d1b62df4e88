import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../src/admin/workspaces.ts';
import { loadConfig } from '../../src/infra/config.ts';
import { newId } from '../../src/infra/ids.ts';
import { claimDueConnections, syncJob } from '../../src/platforms/sync-worker.ts';
import { sealTokens } from '../../src/platforms/vault.ts';
import { createService, type Service } from '../../src/service.ts';
import { createTestDatabase, usingPostgres, type TestDatabase } from '../helpers/database.ts';
import { platformStandIn } from '../helpers/platform-standin.ts';
import { killService, spawnService, until, type ChildService } from './support.ts';

// kill -9 of the real service while it works through a sync round, then a new process on the same
// database: every connection ends synced, each round job completes exactly once, and no snapshot
// or event is duplicated. PostgreSQL only (see kill-restart.test.ts).
const CONNECTIONS = 60;

describe.runIf(usingPostgres())('kill -9 during a sync round', () => {
  let testDb: TestDatabase | undefined;
  let local: Service | undefined;
  let standIn: Awaited<ReturnType<typeof platformStandIn>> | undefined;
  const children: ChildService[] = [];
  afterAll(async () => {
    for (const c of children) await killService(c, 'SIGKILL').catch(() => {});
    await local?.stop();
    await standIn?.close();
    await testDb?.drop();
  });

  it('loses nothing and duplicates nothing', async () => {
    testDb = await createTestDatabase({ migrated: true });
    standIn = await platformStandIn();
    // Weekly slots: no connection comes due a second time while the test runs.
    const env = {
      ...standIn.env,
      DATABASE_URL: testDb.databaseUrl!,
      SYNC_INTERVAL_MINUTES: '10080',
      SYNC_CONCURRENCY: '2',
    };
    // This process only claims (as a tick would) and reads; the child does the work.
    local = await createService({
      ...loadConfig({
        LOG_LEVEL: 'silent',
        ...env,
        ENCRYPTION_KEYS: `faults:${Buffer.alloc(32, 1).toString('base64')}`,
      }),
      runWorkers: false,
    });
    // The round's jobs are sent from here: a job the killed worker held is retried a second after the
    // supervisor fails it (its heartbeat stopped), not after the production back-off (30 s and up),
    // which only lengthens the wait without testing more.
    for (const platform of ['instagram', 'tiktok'] as const) {
      local.ctx.jobs.setRetry(syncJob(platform), { retryLimit: 5, retryDelay: 1, retryBackoff: false });
    }
    const db = local.ctx.db;
    const now = new Date();
    const ids: string[] = [];
    for (let i = 0; i < CONNECTIONS / 2; i++) {
      const ws = await createWorkspace(db, { name: `Kill sync ${i}`, plan: 'agency' });
      for (const platform of ['instagram', 'tiktok'] as const) {
        const id = newId('pc');
        ids.push(id);
        await db
          .insertInto('platform_connections')
          .values({
            id,
            workspace_id: ws.id,
            platform,
            handle: 'acme',
            connected_at: new Date(now.getTime() - 2 * 86_400_000),
            last_sync_at: new Date(now.getTime() - 86_400_000),
            ...sealTokens(
              local.ctx.keyRing,
              {
                accessToken: `secret-${id}`,
                refreshToken: null,
                expiresAt: new Date(now.getTime() + 86_400_000),
                scopes: null,
              },
              { table: 'platform_connections', row: id },
            ),
          })
          .execute();
      }
    }
    expect(await claimDueConnections(local.ctx)).toBe(CONNECTIONS);
    standIn.control.delayMs = 150; // slow answers: the kill lands mid-round

    const first = await spawnService(env);
    children.push(first);
    const synced = async () => {
      const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM platform_connections
        WHERE last_sync_at > ${now}`.execute(db);
      return rows[0]!.n;
    };
    const active = async () => {
      const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pgboss.job
        WHERE name IN (${syncJob('instagram').queue}, ${syncJob('tiktok').queue}) AND state = 'active'`.execute(
        db,
      );
      return rows[0]!.n;
    };
    await until(
      'some syncs done and others in flight',
      async () => ((await synced()) >= 5 && (await active()) > 0) || undefined,
      { timeoutMs: 60_000, intervalMs: 20 },
    );
    await killService(first, 'SIGKILL');
    const atKill = await synced();
    expect(atKill).toBeLessThan(CONNECTIONS);

    const second = await spawnService(env);
    children.push(second);
    await until('every connection synced', async () => (await synced()) === CONNECTIONS || undefined, {
      timeoutMs: 110_000,
      intervalMs: 250,
    });
    // Every round job completed exactly once (a job the dead worker held was retried, not duplicated).
    await until(
      'the round jobs to settle',
      async () => {
        const { rows } = await sql<{
          state: string;
          n: number;
        }>`SELECT state, count(*)::int AS n FROM pgboss.job
          WHERE name IN (${syncJob('instagram').queue}, ${syncJob('tiktok').queue}) GROUP BY state`.execute(
          db,
        );
        return rows.length === 1 && rows[0]!.state === 'completed' ? rows[0]!.n : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 250 },
    ).then((n) => expect(n).toBe(CONNECTIONS));
    // Snapshots: the same number for every connection of a platform (upserts, no duplicates), no errors.
    const { rows: perConnection } = await sql<{ platform: string; n: number }>`
      SELECT c.platform, count(s.day)::int AS n FROM platform_connections c
      LEFT JOIN metric_snapshots s ON s.workspace_id = c.workspace_id AND s.platform = c.platform
      GROUP BY c.id, c.platform`.execute(db);
    expect(perConnection).toHaveLength(CONNECTIONS);
    for (const platform of ['instagram', 'tiktok']) {
      const counts = new Set(perConnection.filter((r) => r.platform === platform).map((r) => r.n));
      expect([...counts].length, platform).toBe(1);
      expect([...counts][0]!, platform).toBeGreaterThan(0);
    }
    const errors = await db
      .selectFrom('platform_connections')
      .select(['id', 'last_error_class', 'sync_started_at'])
      .where((eb) => eb.or([eb('last_error_class', 'is not', null), eb('sync_started_at', 'is not', null)]))
      .execute();
    expect(errors).toEqual([]);
    // No token in anything the processes wrote.
    for (const c of children) expect(c.output()).not.toContain('secret-');
    console.info(
      `kill -9 during a sync round: ${atKill}/${CONNECTIONS} synced at the kill; all after restart`,
    );
  }, 240_000);
});
