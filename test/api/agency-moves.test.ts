import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setParent } from '../../src/admin/workspaces.ts';
import { advanceCampaign } from '../../src/campaigns/lifecycle.ts';
import { expectProblem, startTestService, workspaceWithKey, type TestService } from '../helpers/service.ts';
import { runJob, seedMetrics } from './audits.fixtures.ts';

// A client moved to another agency: its own work (its audits, its campaigns, its scores and
// metrics) goes with it; the work an agency did for it (campaigns, audits it started) stays that
// agency's, visible again if the client comes back (docs/adr/0002-agency-moves-whose-work-is-what.md).
let t: TestService;
let a: Awaited<ReturnType<typeof workspaceWithKey>>;
let b: Awaited<ReturnType<typeof workspaceWithKey>>;
let c: Awaited<ReturnType<typeof workspaceWithKey>>;
const ids: Record<string, string> = {};

const get = (key: string, url: string) => t.request({ method: 'GET', url, key });
const campaignNames = async (key: string) =>
  (
    (await get(key, `/v1/campaigns?workspace_id=${c.workspace.id}`)).json().campaigns as Array<{
      name: string;
    }>
  )
    .map((x) => x.name)
    .sort();

async function audit(key: string): Promise<string> {
  const res = await t.request({
    method: 'POST',
    url: '/v1/audit/run',
    key,
    payload: { workspace_id: c.workspace.id },
  });
  expect(res.statusCode, res.body).toBe(200);
  const id = res.json().audit_id;
  expect(await runJob(t.ctx, id)).toBe('completed');
  return id;
}

async function campaign(key: string, name: string): Promise<string> {
  const res = await t.request({
    method: 'POST',
    url: '/v1/campaigns',
    key,
    payload: { workspace_id: c.workspace.id, name, objective: `${name} objective`, start_date: '2099-01-05' },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().id;
}

beforeAll(async () => {
  t = await startTestService();
  a = await workspaceWithKey(t.db, { name: 'Agency A', plan: 'agency', accountType: 'agency' });
  b = await workspaceWithKey(t.db, { name: 'Agency B', plan: 'agency', accountType: 'agency' });
  // The client is on an agency plan too, so its own key can make campaigns.
  c = await workspaceWithKey(
    t.db,
    { name: 'Client C', plan: 'agency', parentId: a.workspace.id },
    { platforms: [{ platform: 'instagram' }] },
  );
  await seedMetrics(t.db, c.workspace.id, { platforms: ['instagram'] });
  ids.auditByA = await audit(a.key);
  ids.auditByC = await audit(c.key);
  ids.campaignByA = await campaign(a.key, 'A launch plan');
  ids.campaignByC = await campaign(c.key, 'C own plan');
});
afterAll(async () => t?.close());

describe('a client moved to another agency', () => {
  it('before the move: the agency and the client see both agency and client work', async () => {
    for (const key of [a.key, c.key]) {
      expect(await campaignNames(key)).toEqual(['A launch plan', 'C own plan']);
      expect((await get(key, `/v1/audit/${ids.auditByA}`)).statusCode).toBe(200);
      expect((await get(key, `/v1/audit/${ids.auditByC}`)).statusCode).toBe(200);
    }
  });

  it("after the move: the new agency and the client see the client's own work, not the old agency's", async () => {
    await setParent(t.db, c.workspace.id, b.workspace.id);
    for (const key of [b.key, c.key]) {
      expect(await campaignNames(key)).toEqual(['C own plan']);
      expectProblem(await get(key, `/v1/audit/${ids.auditByA}`), 404);
      expect((await get(key, `/v1/audit/${ids.auditByC}`)).statusCode).toBe(200);
      expectProblem(
        await t.request({ method: 'POST', url: `/v1/campaigns/${ids.campaignByA}/cancel`, key }),
        404,
      );
    }
    // Scores and metrics are the client's: they follow it.
    const score = await get(b.key, `/v1/score?workspace_id=${c.workspace.id}`);
    expect(score.statusCode).toBe(200);
    const exported = (await get(b.key, '/v1/export/clients')).json();
    expect(JSON.stringify(exported)).toContain(c.workspace.id);
    // The old agency sees nothing of the client any more.
    expectProblem(await get(a.key, `/v1/campaigns?workspace_id=${c.workspace.id}`), 404);
    expectProblem(await get(a.key, `/v1/audit/${ids.auditByC}`), 404);
    // The new agency does its own work for the client.
    ids.campaignByB = await campaign(b.key, 'B relaunch');
    ids.auditByB = await audit(b.key);
    expect(await campaignNames(c.key)).toEqual(['B relaunch', 'C own plan']);
  });

  it("an old agency's campaign keeps its calendar but announces nothing to the new audience", async () => {
    const before = await t.db
      .selectFrom('events')
      .select('id')
      .where('type', '=', 'campaign.phase_changed')
      .execute();
    expect(await advanceCampaign(t.ctx, ids.campaignByA!, new Date('2099-01-06T00:00:00Z'))).toBe(1);
    expect(await advanceCampaign(t.ctx, ids.campaignByB!, new Date('2099-01-06T00:00:00Z'))).toBe(1);
    const events = await t.db
      .selectFrom('events')
      .select('data')
      .where('type', '=', 'campaign.phase_changed')
      .execute();
    const names = events.slice(before.length).map((e) => (e.data as { campaign_name: string }).campaign_name);
    expect(names).toEqual(['B relaunch']);
  });

  it("moved back: the first agency's work is visible again, the second agency's stays behind", async () => {
    await setParent(t.db, c.workspace.id, a.workspace.id);
    for (const key of [a.key, c.key]) {
      expect(await campaignNames(key)).toEqual(['A launch plan', 'C own plan']);
      expect((await get(key, `/v1/audit/${ids.auditByA}`)).statusCode).toBe(200);
      expectProblem(await get(key, `/v1/audit/${ids.auditByB}`), 404);
    }
    expectProblem(await get(b.key, `/v1/audit/${ids.auditByC}`), 404);
  });

  it('moved back: the exports and the current score leave out the audit the other agency ran', async () => {
    // The latest audit of the client is B's, which A cannot read (404 above); the latest A may
    // read is the client's own.
    const completed = async (id: string) =>
      (
        await t.db.selectFrom('audits').select('completed_at').where('id', '=', id).executeTakeFirstOrThrow()
      ).completed_at!.toISOString();
    const byB = await completed(ids.auditByB!);
    const visible = await completed(ids.auditByC!);
    expect(byB > visible).toBe(true);

    const clients = (await get(a.key, '/v1/export/clients')).json().clients as Array<Record<string, unknown>>;
    expect(clients.find((row) => row.workspaceId === c.workspace.id)?.scoredAt).toBe(visible);

    const scoreLog = (await get(a.key, '/v1/export/scores?limit=1000')).json().scores as Array<{
      workspaceId: string;
      recordedAt: string;
    }>;
    const logged = await t.db
      .selectFrom('score_log')
      .select(['audit_id', 'recorded_at'])
      .where('workspace_id', '=', c.workspace.id)
      .execute();
    const fromB = logged.filter((r) => r.audit_id === ids.auditByB).map((r) => r.recorded_at.toISOString());
    expect(fromB.length).toBeGreaterThan(0);
    const exported = scoreLog.filter((r) => r.workspaceId === c.workspace.id).map((r) => r.recordedAt);
    expect(exported.length).toBe(logged.length - fromB.length);
    for (const at of fromB) expect(exported).not.toContain(at);

    const score = (await get(a.key, `/v1/score?workspace_id=${c.workspace.id}`)).json();
    expect(score.calculated_at).not.toBe(byB);
  });
});
