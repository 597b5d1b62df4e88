import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, expect, it } from 'vitest';
import { completeAudit } from '../../src/audits/complete.ts';
import { AUDIT_QUEUE } from '../../src/audits/policy.ts';
import { loadConfig, type Config } from '../../src/infra/config.ts';
import { createService, type Service } from '../../src/service.ts';
import { createTestDatabase, usingPostgres, type TestDatabase } from '../helpers/database.ts';
import { workspaceWithKey } from '../helpers/service.ts';
import { seedMetrics } from './audits.fixtures.ts';

// A service restart in the middle of audits: one only enqueued, one whose worker committed the
// result but died before acknowledging the job, one whose worker died mid-attempt. A new
// service on the same database finishes each exactly once.
let testDb: TestDatabase | undefined;
let dataDir = 'memory://';
const services: Service[] = [];
afterAll(async () => {
  for (const s of services) await s.stop().catch(() => {});
  await testDb?.drop();
  if (dataDir !== 'memory://') fs.rmSync(dataDir, { recursive: true, force: true });
});

it('completes every interrupted audit exactly once after a restart', async () => {
  testDb = await createTestDatabase();
  if (!usingPostgres()) dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bh-audit-restart-'));
  const config: Config = {
    ...loadConfig({ LOG_LEVEL: 'silent', AUTH_CACHE_TTL_MS: '0' }),
    databaseUrl: testDb.databaseUrl,
    dataDir,
    runWorkers: false,
  };

  const first = await createService(config, { dataDir });
  services.push(first);
  const audits: string[] = [];
  for (let i = 0; i < 3; i++) {
    const { workspace, key } = await workspaceWithKey(
      first.ctx.db,
      { plan: 'pro' },
      {
        platforms: [{ platform: 'instagram' }, { platform: 'tiktok' }],
      },
    );
    await seedMetrics(first.ctx.db, workspace.id, { platforms: ['instagram', 'tiktok'], seed: i + 1 });
    const res = await first.app.inject({
      method: 'POST',
      url: '/v1/audit/run',
      headers: { authorization: `Bearer ${key}` },
      payload: {},
    });
    expect(res.statusCode).toBe(200);
    audits.push(res.json().audit_id);
  }
  const [queued, committed, inFlight] = audits as [string, string, string];
  // committed: the worker wrote the result, then died before completing its job.
  expect(await completeAudit(first.ctx, committed)).toBe('completed');
  // inFlight: a worker took the job (active) and died.
  const taken = await first.ctx.jobs.boss.findJobs(AUDIT_QUEUE, { data: { auditId: inFlight } });
  await sql`UPDATE pgboss.job SET state = 'active', started_on = now() - interval '1 hour', retry_count = 1 WHERE id = ${taken[0]!.id}::uuid`.execute(
    first.ctx.db,
  );
  await first.stop();

  const second = await createService({ ...config, runWorkers: true }, { dataDir });
  services.push(second);
  // The expired attempt goes back to the queue at the next maintenance pass; run it now and drop its back-off.
  await second.ctx.jobs.boss.supervise(AUDIT_QUEUE);
  await sql`UPDATE pgboss.job SET start_after = now() WHERE name = ${AUDIT_QUEUE} AND state = 'retry'`.execute(
    second.ctx.db,
  );
  await second.startWorkers();

  const deadline = Date.now() + 25_000;
  let rows: Array<{ id: string; status: string }> = [];
  while (Date.now() < deadline) {
    rows = await second.ctx.db
      .selectFrom('audits')
      .select(['id', 'status'])
      .where('id', 'in', audits)
      .execute();
    if (rows.every((r) => r.status === 'completed')) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  expect(rows.map((r) => r.status)).toEqual(['completed', 'completed', 'completed']);
  for (const id of [queued, committed, inFlight]) {
    const logs = await second.ctx.db
      .selectFrom('score_log')
      .select('platform')
      .where('audit_id', '=', id)
      .execute();
    expect(logs.map((l) => l.platform).sort()).toEqual(['instagram', 'tiktok']);
  }
  const events = await second.ctx.db
    .selectFrom('events')
    .select((eb) => [eb.fn.countAll<number>().as('n')])
    .where('type', '=', 'audit.completed')
    .executeTakeFirstOrThrow();
  expect(Number(events.n)).toBe(3);
  // Every audit job ends completed: none is left to fail or run again.
  const jobs = await second.ctx.jobs.boss.findJobs(AUDIT_QUEUE, {});
  const deadline2 = Date.now() + 10_000;
  let states = jobs.map((j) => j.state);
  while (states.some((s) => s !== 'completed') && Date.now() < deadline2) {
    await new Promise((r) => setTimeout(r, 200));
    states = (await second.ctx.jobs.boss.findJobs(AUDIT_QUEUE, {})).map((j) => j.state);
  }
  expect(states).toEqual(['completed', 'completed', 'completed']);
}, 60_000);
