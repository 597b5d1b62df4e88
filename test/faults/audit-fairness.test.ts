import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUDIT_QUEUE, auditWorkers } from '../../src/audits/policy.ts';
import { createWorkspace } from '../../src/admin/workspaces.ts';
import { connectPlatform } from '../../src/admin/platforms.ts';
import { seedMetrics } from '../api/audits.fixtures.ts';
import { startTestService, workspaceWithKey, type TestService } from '../helpers/service.ts';
import { until } from './support.ts';

// An agency starts an audit for each of its 16 clients, then another tenant starts one. The queue
// is fair between tenants (each tenant's n-th waiting audit comes after every tenant's (n-1)-th),
// so the other tenant waits behind about one agency audit, not behind all of them as strict
// arrival order would make it.
const CLIENTS = 16;
const LOOKBACK_DAYS = 30;

let t: TestService;
beforeAll(async () => {
  t = await startTestService({ runWorkers: true });
  await t.service.startWorkers();
});
afterAll(async () => t?.close());

describe('audit queue fairness between tenants', () => {
  it("runs another tenant's audit after at most a couple of an agency's many queued ones", async () => {
    const agency = await workspaceWithKey(t.db, {
      plan: 'agency',
      accountType: 'agency',
      name: 'Busy Agency',
    });
    const clients: string[] = [];
    for (let i = 0; i < CLIENTS; i++) {
      const client = await createWorkspace(t.db, {
        name: `Client ${i}`,
        plan: 'pro',
        parentId: agency.workspace.id,
      });
      await connectPlatform(t.db, { workspaceId: client.id, platform: 'instagram', handle: `client${i}` });
      await seedMetrics(t.db, client.id, { platforms: ['instagram'], days: LOOKBACK_DAYS, seed: i + 1 });
      clients.push(client.id);
    }
    const other = await workspaceWithKey(
      t.db,
      { plan: 'pro', name: 'Other Tenant' },
      { platforms: [{ platform: 'instagram' }] },
    );
    await seedMetrics(t.db, other.workspace.id, { platforms: ['instagram'], days: LOOKBACK_DAYS, seed: 99 });

    const agencyAudits: string[] = [];
    for (const id of clients) {
      const res = await t.request({
        method: 'POST',
        url: '/v1/audit/run',
        key: agency.key,
        payload: { workspace_id: id, lookback_days: LOOKBACK_DAYS },
      });
      expect(res.statusCode, res.body).toBe(200);
      agencyAudits.push(res.json().audit_id);
    }
    const started = await t.request({
      method: 'POST',
      url: '/v1/audit/run',
      key: other.key,
      payload: { lookback_days: LOOKBACK_DAYS },
    });
    expect(started.statusCode, started.body).toBe(200);
    const otherAudit = started.json().audit_id as string;
    // After the start's transaction committed: from here on every worker's fetch sees its job.
    const committed = (await sql<{ now: Date }>`select clock_timestamp() as now`.execute(t.db)).rows[0]!.now;

    await until(
      'the other tenant’s audit to complete',
      async () =>
        (
          await t.db
            .selectFrom('audits')
            .select('completed_at')
            .where('id', '=', otherAudit)
            .executeTakeFirstOrThrow()
        ).completed_at ?? undefined,
      { timeoutMs: 300_000, intervalMs: 100 },
    );
    // The order workers took the jobs in (pg-boss's own record: started_on when a worker fetched it). Completion order would depend on how many
    // workers run (four on PostgreSQL): the others keep finishing agency audits meanwhile.
    const jobs = await sql<{ audit_id: string; started_on: Date | null }>`
      select data->>'auditId' as audit_id, started_on
      from pgboss.job where name = ${AUDIT_QUEUE}`.execute(t.db);
    const byAudit = new Map(jobs.rows.map((r) => [r.audit_id, r]));
    const otherJob = byAudit.get(otherAudit)!;
    expect(otherJob.started_on).not.toBeNull();
    const overtook = agencyAudits.filter((id) => {
      const started = byAudit.get(id)?.started_on;
      return started && started > committed && started < otherJob.started_on!;
    });
    const waitingBehind = agencyAudits.filter((id) => {
      const started = byAudit.get(id)?.started_on;
      return !started || started > otherJob.started_on!;
    });
    console.info(
      `fairness: ${overtook.length} agency audits started while the other tenant's waited; ${waitingBehind.length} of ${CLIENTS} after it`,
    );
    // Each worker fetches the highest-priority job it can lock (FOR UPDATE SKIP LOCKED), stamping
    // started_on with its transaction's start. So besides one agency audit of the same priority
    // queued before it, the workers whose fetches raced the one that took the other tenant's job can
    // carry an earlier stamp: at most one per other worker. Under arrival order every agency audit
    // still waiting would go first; the test means something only if many were.
    expect(overtook.length).toBeLessThanOrEqual(auditWorkers(t.ctx.database));
    expect(waitingBehind.length).toBeGreaterThanOrEqual(CLIENTS / 2);

    await until(
      'every agency audit to complete',
      async () => {
        const rows = await t.db
          .selectFrom('audits')
          .select('status')
          .where('id', 'in', agencyAudits)
          .execute();
        return rows.every((r) => r.status === 'completed') ? true : undefined;
      },
      { timeoutMs: 300_000, intervalMs: 250 },
    );
  }, 600_000);
});
