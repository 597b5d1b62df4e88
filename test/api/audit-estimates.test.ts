import { afterAll, beforeAll, expect, it } from 'vitest';
import { runAuditJob } from '../../src/audits/jobs.ts';
import { expectProblem, startTestService, workspaceWithKey, type TestService } from '../helpers/service.ts';
import { seedMetrics } from './audits.fixtures.ts';

// estimated_completion and the 425's Retry-After follow the durations the service measured
// lately, not a fixed formula (review item 15: audits took ~1 s and the estimate said 25 s).
let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(async () => t?.close());

async function startAudit() {
  const { workspace, key } = await workspaceWithKey(
    t.db,
    { plan: 'pro' },
    { platforms: [{ platform: 'instagram' }, { platform: 'youtube' }] },
  );
  await seedMetrics(t.db, workspace.id, { platforms: ['instagram', 'youtube'], seed: 7 });
  const res = await t.request({ method: 'POST', url: '/v1/audit/run', key, payload: {} });
  expect(res.statusCode, res.body).toBe(200);
  const body = res.json();
  return { key, id: body.audit_id as string, ahead: Date.parse(body.estimated_completion) - Date.now() };
}

const complete = (id: string) => runAuditJob(t.ctx, { data: { auditId: id }, retryCount: 0 });

it('estimates from measured durations: seconds after fast audits, longer after slow ones', async () => {
  // Audits that take about a second from start to completion (the clock moves on while they run).
  for (let i = 0; i < 3; i++) {
    const { id } = await startAudit();
    t.setNow(new Date(Date.now() + 1000));
    expect(await complete(id)).toBe('completed');
    t.setNow(undefined);
  }
  const fast = await startAudit();
  expect(fast.ahead).toBeGreaterThan(500);
  expect(fast.ahead).toBeLessThanOrEqual(4_000);
  const early = await t.request({ method: 'GET', url: `/v1/audit/${fast.id}`, key: fast.key });
  expectProblem(early, 425, 'Too Early');
  const retryAfter = early.headers['retry-after'];
  expect(String(retryAfter)).toMatch(/^\d+$/);
  expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
  expect(Number(retryAfter)).toBeLessThanOrEqual(4);

  // Audits queued ahead lengthen the estimate of the next one.
  // Eight ahead: more than the workers that run at once on PostgreSQL (4).
  const queued = [];
  for (let i = 0; i < 8; i++) queued.push(await startAudit());
  expect(queued.at(-1)!.ahead).toBeGreaterThan(fast.ahead + 1_000);
  for (const { id } of [fast, ...queued]) await complete(id);

  // Audits that took a minute each (the clock moves on while they run) lengthen it too.
  try {
    // Most of the last 20, so the median is a minute.
    for (let i = 0; i < 12; i++) {
      const { id } = await startAudit();
      t.setNow(new Date(Date.now() + 60_000));
      expect(await complete(id)).toBe('completed');
      t.setNow(undefined);
    }
  } finally {
    t.setNow(undefined);
  }
  const slow = await startAudit();
  expect(slow.ahead).toBeGreaterThan(30_000);
  expect(slow.ahead).toBeLessThanOrEqual(121_000);
});
