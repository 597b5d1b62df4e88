import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createWorkspace } from '../../src/admin/workspaces.ts';
import { loadConfig } from '../../src/infra/config.ts';
import { newId } from '../../src/infra/ids.ts';
import { claimDueConnections, syncJob } from '../../src/platforms/sync-worker.ts';
import { sealTokens } from '../../src/platforms/vault.ts';
import { createService, type Service } from '../../src/service.ts';
import { usingPostgres } from '../helpers/database.ts';
import { platformStandIn } from '../helpers/platform-standin.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

// Two service instances on one PostgreSQL database (PGlite is one process's database: nothing to share).
const NOW = new Date('2025-03-04T06:00:00Z');
const WORKSPACES = 100; // x 2 platforms = 200 connections

describe.skipIf(!usingPostgres())('scheduled sync across instances', () => {
  let a: TestService;
  let b: Service;
  let standIn: Awaited<ReturnType<typeof platformStandIn>>;
  beforeAll(async () => {
    standIn = await platformStandIn();
    const env = {
      ...standIn.env,
      ENCRYPTION_KEYS: `k1:${randomBytes(32).toString('base64')}`,
      SYNC_CONCURRENCY: '8',
    };
    a = await startTestService({ runWorkers: true }, env);
    a.setNow(NOW);
    b = await createService(
      {
        ...loadConfig({ LOG_LEVEL: 'silent', ...env }),
        databaseUrl: a.service.ctx.config.databaseUrl,
        runWorkers: true,
      },
      { now: () => NOW },
    );
  }, 120_000);
  afterAll(async () => {
    await b?.stop();
    await a?.close();
    await standIn?.close();
  });

  it('syncs 200 connections, each exactly once, with both instances claiming and working', async () => {
    const rows = [];
    for (let i = 0; i < WORKSPACES; i++) {
      const ws = await createWorkspace(a.db, { name: `Brand ${i}`, plan: 'agency' });
      for (const platform of ['instagram', 'tiktok'] as const) {
        const id = newId('pc');
        rows.push({
          id,
          workspace_id: ws.id,
          platform,
          handle: 'acme',
          connected_at: new Date(NOW.getTime() - 2 * 86_400_000),
          last_sync_at: new Date(NOW.getTime() - 90_000_000),
          ...sealTokens(
            a.ctx.keyRing,
            {
              accessToken: `secret-${id}`,
              refreshToken: null,
              expiresAt: new Date(NOW.getTime() + 86_400_000),
              scopes: null,
            },
            { table: 'platform_connections', row: id },
          ),
        });
      }
    }
    await a.db.insertInto('platform_connections').values(rows).execute();
    const since = rows[0]!.last_sync_at;

    // Both instances tick at the same moment, twice each: every due row is claimed by exactly one.
    const claimed = await Promise.all([
      claimDueConnections(a.ctx),
      claimDueConnections(b.ctx),
      claimDueConnections(a.ctx),
      claimDueConnections(b.ctx),
    ]);
    expect(claimed.reduce((x, y) => x + y, 0)).toBe(200);

    await Promise.all([a.service.startWorkers(), b.startWorkers()]);
    const deadline = Date.now() + 150_000;
    for (;;) {
      const { rows: left } = await sql<{ n: string }>`
        SELECT count(*) AS n FROM platform_connections WHERE last_sync_at = ${since}`.execute(a.db);
      if (Number(left[0]!.n) === 0) break;
      if (Date.now() > deadline) throw new Error(`${left[0]!.n} connections still unsynced`);
      await new Promise((r) => setTimeout(r, 500));
    }
    // Each connection's profile was read once: one sync each.
    const profile = (platform: string, path: string) =>
      standIn.requests.filter((r) => r.platform === platform && r.path === path).length;
    expect(profile('instagram', '/instagram/graph/17841400000000001')).toBe(WORKSPACES);
    expect(profile('tiktok', '/tiktok/business/business/get/')).toBe(WORKSPACES);
    const { rows: jobs } = await sql<{ name: string; state: string; n: string }>`
      SELECT name, state, count(*) AS n FROM pgboss.job
      WHERE name IN (${syncJob('instagram').queue}, ${syncJob('tiktok').queue}) GROUP BY name, state ORDER BY name`.execute(
      a.db,
    );
    expect(jobs.map((j) => [j.name, j.state, Number(j.n)])).toEqual([
      [syncJob('instagram').queue, 'completed', WORKSPACES],
      [syncJob('tiktok').queue, 'completed', WORKSPACES],
    ]);
    const snapshots = await a.db
      .selectFrom('metric_snapshots')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(snapshots.n)).toBe(200 * 4); // 2025-03-01 .. 2025-03-04 per connection
  }, 200_000);
});
