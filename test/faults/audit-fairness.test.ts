import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

    const completedAt = async (id: string) =>
      (
        await t.db
          .selectFrom('audits')
          .select(['status', 'completed_at'])
          .where('id', '=', id)
          .executeTakeFirstOrThrow()
      ).completed_at;
    const otherDone = await until(
      'the other tenant’s audit to complete',
      () => completedAt(otherAudit).then((d) => d ?? undefined),
      {
        timeoutMs: 300_000,
        intervalMs: 100,
      },
    );
    const agencyDone = await t.db
      .selectFrom('audits')
      .select('completed_at')
      .where('id', 'in', agencyAudits)
      .where('completed_at', 'is not', null)
      .where('completed_at', '<', otherDone)
      .execute();
    console.info(
      `fairness: ${agencyDone.length} of ${CLIENTS} agency audits completed before the other tenant's`,
    );
    // The one running when it was queued, plus at most one that a worker had already fetched.
    expect(agencyDone.length).toBeLessThanOrEqual(2);

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
