import fs from 'node:fs';
import { sql, type Kysely } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/admin/keys.ts';
import { createSubscriber, grantEntitlement } from '../../src/admin/tacsi.ts';
import { addDays, utcDay } from '../../src/core/days.ts';
import { loadConfig } from '../../src/infra/config.ts';
import { openDatabase } from '../../src/infra/db/database.ts';
import type { DB } from '../../src/infra/db/types.ts';
import { createService } from '../../src/service.ts';
import { TACSI_QUEUES, tacsiPublicationJobs } from '../../src/tacsi/jobs.ts';
import { lastCompletedPeriodEnd } from '../../src/tacsi/periods.ts';
import { maxRollingRho, TACSI_M2 } from '../../src/tacsi/privacy/index.ts';
import { seedM2Fixture } from '../api/tacsi-m2-fixture.ts';
import { createDataDir, usingPostgres } from '../helpers/database.ts';
import { http, killService, spawnService, until, type ChildService } from './support.ts';

// kill -9 of the real service while a scheduled TACSI publication job is running, then a new process
// on the same data folder: the interrupted run is retried within seconds (a heartbeat declares the
// dead run lost after 10 s, the 5 s maintenance pass fails it, pg-boss retries it 5-10 s later), not
// after the 30-minute expiry, and the retry publishes every cell and charges every release once.
// Restart ~10 s (plus the test's own look at the folder) + heartbeat 10 s + maintenance 5 s + retry
// 5-10 s + the publication itself (~4 s): measured 19-21 s.
const RECOVERY_BOUND_MS = 60_000;
const SECTORS = Array.from({ length: 10 }, (_, i) => `kill-${i}`);
const BRANDS = 260; // over the 250-brand daily minimum: the weekly run publishes the week's daily cells first
// Due this long after it is sent: the service starts (~10 s) and is idle before a worker takes it.
const START_AFTER_S = 25;
// A /readyz slower than this means the database is held by the publication transaction.
const BUSY_MS = 1_500;
const weekly = tacsiPublicationJobs.find((j) => j.queue === TACSI_QUEUES.weekly)!;
const ENV_KEYS = `faults:${Buffer.alloc(32, 1).toString('base64')}`;

interface JobRow {
  id: string;
  state: string;
  retry_count: number;
  started_on: Date | null;
  completed_on: Date | null;
}

async function jobRows(db: Kysely<DB>): Promise<JobRow[]> {
  const { rows } = await sql<JobRow>`
    SELECT id, state, retry_count, started_on, completed_on
      FROM pgboss.job WHERE name = ${TACSI_QUEUES.weekly}`.execute(db);
  return rows;
}

/** Opens the data folder of a stopped service, runs `read`, closes it again. */
async function inspect<T>(dataDir: string, read: (db: Kysely<DB>) => Promise<T>): Promise<T> {
  const database = await openDatabase({ databaseUrl: null, dataDir });
  try {
    return await read(database.db);
  } finally {
    await database.close();
  }
}

describe.skipIf(usingPostgres())('kill -9 during a TACSI publication', () => {
  let dataDir: string | undefined;
  const children: ChildService[] = [];
  afterAll(async () => {
    for (const c of children) await killService(c, 'SIGKILL').catch(() => {});
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('retries the interrupted run within seconds and publishes each cell and charge once', async () => {
    const today = utcDay(new Date());
    const lastSunday = lastCompletedPeriodEnd('weekly', today);
    const firstDay = addDays(lastSunday, -13); // the Monday of the catch-up week
    const weeks = [addDays(lastSunday, -7), lastSunday]; // what a scheduled run publishes
    dataDir = await createDataDir('bh-tacsi-kill-');
    // The cut-over before the data: both weeks and their days are tacsi-m2.
    const env = { DATA_DIR: dataDir, TACSI_M2_FROM: firstDay };
    const seed = await createService({
      ...loadConfig({ ...env, LOG_LEVEL: 'silent', ENCRYPTION_KEYS: ENV_KEYS }),
      runWorkers: false,
    });
    await seedM2Fixture(
      seed.ctx.db,
      SECTORS.map((slug, i) => ({ slug, brands: BRANDS, level: 40 + 3 * i })),
      firstDay,
      lastSunday,
    );
    const subscriberId = await createSubscriber(seed.ctx.db, 'Kill subscriber');
    for (const sector of SECTORS) {
      await grantEntitlement(seed.ctx.db, { subscriberId, kind: 'sector_feed', sector, validFrom: firstDay });
    }
    const { key } = await createApiKey(seed.ctx.db, { subscriberId }, { scopes: ['read'] });
    // The scheduler's send: an empty payload (the last completed week and the one before).
    const jobId = await weekly.enqueue(seed.ctx, {}, { startAfter: START_AFTER_S });
    const dueAt = Date.now() + START_AFTER_S * 1000;
    expect(jobId).toBeTruthy();
    await seed.stop();

    // The first service starts and is ready before the job is due; a worker takes the job then. The
    // run holds PGlite's one connection in its publication transaction (and the event loop while it
    // draws), so /readyz (a database ping) stops answering: that is when it is killed. What the
    // database says afterwards is the proof that the run was active and had committed nothing.
    const first = await spawnService(env);
    children.push(first);
    expect(Date.now(), 'the service was ready before the job was due').toBeLessThan(dueAt - 1_000);
    await until(
      'the run to hold the database',
      async () => {
        const ready = await http(first.origin, 'GET', '/readyz', { timeoutMs: BUSY_MS }).catch(() => null);
        return ready === null ? true : undefined;
      },
      { timeoutMs: START_AFTER_S * 1000 + 30_000, intervalMs: 100 },
    );
    await killService(first, 'SIGKILL');
    const killedAt = Date.now();
    console.info(`tacsi kill -9: killed ${((killedAt - dueAt) / 1000).toFixed(1)} s after the job was due`);

    // What the dead process left: the run active (its heartbeat stopped), nothing published.
    await inspect(dataDir, async (db) => {
      const [job] = await jobRows(db);
      expect(job, 'the job row').toBeDefined();
      expect(job!.state, 'the run was active when the process died').toBe('active');
      expect(job!.retry_count).toBe(0);
      const cells = await db
        .selectFrom('tacsi_cells')
        .select(db.fn.countAll<number>().as('n'))
        .executeTakeFirst();
      expect(Number(cells!.n), 'no cell committed by the interrupted run').toBe(0);
    });

    const second = await spawnService(env);
    children.push(second);
    await until(
      'the retried run to publish both weeks of every sector',
      async () => {
        const res = await http(second.origin, 'GET', '/v1/tacsi/coverage', { key });
        const done =
          res.status === 200 &&
          res.json.sectors.length === SECTORS.length &&
          res.json.sectors.every((s: any) => s.weekly?.last === lastSunday && s.weekly?.count === 2);
        return done ? true : undefined;
      },
      { timeoutMs: RECOVERY_BOUND_MS + 30_000, intervalMs: 500 },
    );
    await new Promise((r) => setTimeout(r, 2_000)); // room for a duplicate run to show up
    await killService(second, 'SIGTERM');

    await inspect(dataDir, async (db) => {
      // One job, completed by its first retry, within the bound after the kill.
      const jobs = await jobRows(db);
      expect(jobs).toHaveLength(1);
      const job = jobs[0]!;
      expect(job.state).toBe('completed');
      expect(job.retry_count).toBe(1);
      const recoveredMs = new Date(job.completed_on!).getTime() - killedAt;
      console.info(
        `tacsi kill -9: the retried run completed ${(recoveredMs / 1000).toFixed(1)} s after the kill`,
      );
      expect(recoveredMs).toBeLessThan(RECOVERY_BOUND_MS);

      // Every cell once: 14 daily and 2 weekly per sector, 2 weekly headline cells.
      const cells = await db
        .selectFrom('tacsi_cells')
        .select(['sector', 'cadence', (eb) => sql<string>`${eb.ref('period_end')}::text`.as('period_end')])
        .execute();
      const keys = cells.map((c) => `${c.sector}|${c.cadence}|${c.period_end}`);
      expect(new Set(keys).size, 'no duplicate cell').toBe(keys.length);
      for (const sector of SECTORS) {
        for (let d = 0; d < 14; d++) expect(keys).toContain(`${sector}|daily|${addDays(firstDay, d)}`);
        for (const week of weeks) expect(keys).toContain(`${sector}|weekly|${week}`);
      }
      for (const week of weeks) expect(keys).toContain(`headline|weekly|${week}`);

      // Every release charged once: one ledger row per release, each member charged once for it.
      const releases = await sql<{
        scope: string;
        kind: string;
        period_end: string;
        n: string;
        members: string;
      }>`
        SELECT l.scope, l.kind, l.period_end::text AS period_end, count(DISTINCT l.id) AS n,
               (SELECT count(*) FROM tacsi_entity_charges c
                  JOIN tacsi_rho_ledger l2 ON l2.id = c.ledger_id
                 WHERE l2.scope = l.scope AND l2.kind = l.kind AND l2.period_end = l.period_end) AS members
          FROM tacsi_rho_ledger l
         GROUP BY l.scope, l.kind, l.period_end`.execute(db);
      expect(releases.rows.filter((r) => r.kind === 'daily')).toHaveLength(SECTORS.length * 14);
      for (const r of releases.rows) {
        expect(Number(r.n), `${r.scope} ${r.kind} ${r.period_end} released once`).toBe(1);
        expect(Number(r.members), `${r.scope} ${r.kind} ${r.period_end} charged once per member`).toBe(
          BRANDS,
        );
      }

      // The cap holds for every entity over every rolling year of its charges.
      const charges = await sql<{
        workspace_id: string;
        scope: string;
        kind: 'daily' | 'weekly' | 'histogram';
        period_end: string;
        rho_units: string;
      }>`
        SELECT c.workspace_id, l.scope, l.kind, l.period_end::text AS period_end, l.rho_units::text AS rho_units
          FROM tacsi_entity_charges c JOIN tacsi_rho_ledger l ON l.id = c.ledger_id`.execute(db);
      const byEntity = new Map<string, typeof charges.rows>();
      for (const c of charges.rows)
        byEntity.set(c.workspace_id, [...(byEntity.get(c.workspace_id) ?? []), c]);
      expect(byEntity.size).toBe(SECTORS.length * BRANDS);
      for (const [entity, list] of byEntity) {
        const worst = maxRollingRho(
          list.map((c) => ({
            entityScope: c.scope,
            kind: c.kind,
            periodEnd: c.period_end,
            rhoNano: Number(c.rho_units),
          })),
        );
        expect(worst.rhoNano, `${entity} within the annual cap`).toBeLessThanOrEqual(
          TACSI_M2.annualRhoCapNano,
        );
      }
    });
  }, 420_000);
});
