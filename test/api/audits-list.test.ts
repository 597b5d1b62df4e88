import { Value } from 'typebox/value';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/admin/keys.ts';
import { createSubscriber } from '../../src/admin/tacsi.ts';
import { setParent } from '../../src/admin/workspaces.ts';
import { AuditList } from '../../src/audits/schemas.ts';
import { expectProblem, startTestService, workspaceWithKey, type TestService } from '../helpers/service.ts';
import { insertFinishedAudits, runJob, seedMetrics } from './audits.fixtures.ts';

// GET /v1/audits (extension): a workspace's audits, newest first, with the tenant boundary and the
// agency-move ownership rule of GET /v1/audit/{id} (docs/adr/0065-audit-list-extension.md).
let t: TestService;
type Ws = Awaited<ReturnType<typeof workspaceWithKey>>;
let pro: Ws;
let agencyA: Ws;
let agencyB: Ws;
let client: Ws;
let otherPro: Ws;
const ids: Record<string, string> = {};

interface Item {
  audit_id: string;
  status: string;
  created_at: string;
  workspace_id: string;
}
const get = (key: string, url: string) => t.request({ method: 'GET', url, key });
async function list(key: string, query = ''): Promise<{ audits: Item[]; total: number }> {
  const res = await get(key, `/v1/audits${query}`);
  expect(res.statusCode, res.body).toBe(200);
  const body = res.json();
  expect(Value.Errors(AuditList, body)).toEqual([]);
  return body;
}
const listedIds = async (key: string, query = '') => (await list(key, query)).audits.map((a) => a.audit_id);

async function startAudit(key: string, workspaceId: string, run = true): Promise<string> {
  const res = await t.request({
    method: 'POST',
    url: '/v1/audit/run',
    key,
    payload: { workspace_id: workspaceId, lookback_days: 30 },
  });
  expect(res.statusCode, res.body).toBe(200);
  const id = res.json().audit_id as string;
  if (run) expect(await runJob(t.ctx, id)).toBe('completed');
  return id;
}

beforeAll(async () => {
  t = await startTestService();
  const instagram = { platforms: [{ platform: 'instagram' as const }] };
  pro = await workspaceWithKey(t.db, { name: 'Pro brand', plan: 'pro' }, instagram);
  otherPro = await workspaceWithKey(t.db, { name: 'Other brand', plan: 'pro' }, instagram);
  agencyA = await workspaceWithKey(t.db, { name: 'Agency A', plan: 'agency', accountType: 'agency' });
  agencyB = await workspaceWithKey(t.db, { name: 'Agency B', plan: 'agency', accountType: 'agency' });
  client = await workspaceWithKey(
    t.db,
    { name: 'Client', plan: 'pro', parentId: agencyA.workspace.id },
    instagram,
  );
  for (const w of [pro, otherPro, client])
    await seedMetrics(t.db, w.workspace.id, { platforms: ['instagram'] });
  // Older history for paging: 3 completed and 2 failed, each batch created at one instant (ties by id).
  await insertFinishedAudits(t.db, pro.workspace.id, 3, 'completed', new Date('2026-01-10T08:00:00Z'));
  await insertFinishedAudits(t.db, pro.workspace.id, 2, 'failed', new Date('2026-02-10T08:00:00Z'));
  ids.proDone = await startAudit(pro.key, pro.workspace.id);
  ids.proRunning = await startAudit(pro.key, pro.workspace.id, false);
  ids.other = await startAudit(otherPro.key, otherPro.workspace.id);
  ids.byAgencyA = await startAudit(agencyA.key, client.workspace.id);
  ids.byClient = await startAudit(client.key, client.workspace.id);
});
afterAll(async () => t?.close());

describe('GET /v1/audits', () => {
  it('lists the workspace audits newest first, each status with its own fields set and the others null', async () => {
    const { audits, total } = await list(pro.key);
    expect(total).toBe(7);
    expect(audits.map((a) => a.audit_id).slice(0, 2)).toEqual([ids.proRunning, ids.proDone]);
    const order = audits.map((a) => `${a.created_at} ${a.audit_id}`);
    expect(order).toEqual([...order].sort().reverse());
    expect(new Set(audits.map((a) => a.workspace_id))).toEqual(new Set([pro.workspace.id]));

    const [running, done] = audits;
    expect(running).toMatchObject({
      status: 'processing',
      platforms_included: ['instagram'],
      lookback_days: 30,
      completed_at: null,
      failed_at: null,
      score: null,
      grade: null,
      failure_reason: null,
    });
    expect(
      Date.parse((running as unknown as { estimated_completion: string }).estimated_completion),
    ).toBeGreaterThan(0);
    // The completed one agrees with the audit resource, without its result.
    const full = (await get(pro.key, `/v1/audit/${ids.proDone}`)).json();
    expect(done).toEqual({
      audit_id: ids.proDone,
      status: 'completed',
      workspace_id: pro.workspace.id,
      created_at: expect.any(String),
      platforms_included: ['instagram'],
      lookback_days: 30,
      estimated_completion: null,
      completed_at: full.completed_at,
      failed_at: null,
      score: full.score,
      grade: full.grade,
      formula_version: full.formula_version,
      failure_reason: null,
    });
    const failed = audits.find((a) => a.status === 'failed')!;
    expect(failed).toMatchObject({ failure_reason: 'fixture', score: null, completed_at: null });
    expect((await get(pro.key, `/v1/audit/${failed.audit_id}`)).json().failed_at).toBe(
      (failed as unknown as { failed_at: string }).failed_at,
    );
  });

  it('pages with limit and offset and filters by status', async () => {
    const all = await listedIds(pro.key, '?limit=100');
    expect(all).toHaveLength(7);
    const pages = [
      ...(await listedIds(pro.key, '?limit=3')),
      ...(await listedIds(pro.key, '?limit=3&offset=3')),
      ...(await listedIds(pro.key, '?limit=3&offset=6')),
    ];
    expect(pages).toEqual(all);
    const past = await list(pro.key, '?offset=50');
    expect(past).toMatchObject({ audits: [], total: 7, limit: 20, offset: 50 });

    for (const [status, n] of [
      ['completed', 4],
      ['failed', 2],
      ['processing', 1],
    ] as const) {
      const page = await list(pro.key, `?status=${status}`);
      expect(page.total).toBe(n);
      expect(page.audits.map((a) => a.status)).toEqual(Array(n).fill(status));
    }
    expect((await list(pro.key, '?status=failed&limit=1&offset=1')).audits).toHaveLength(1);
  });

  it('answers bad parameters with 400 naming them', async () => {
    for (const [query, parameter] of [
      ['?limit=0', 'limit'],
      ['?limit=101', 'limit'],
      ['?limit=1.5', 'limit'],
      ['?offset=-1', 'offset'],
      ['?status=running', 'status'],
      ['?sort=asc', 'sort'],
    ] as const) {
      const body = expectProblem(await get(pro.key, `/v1/audits${query}`), 400);
      expect(
        body.errors?.map((e: { parameter: string }) => e.parameter),
        query,
      ).toContain(parameter);
    }
  });

  it('is a read-scope, Pro-and-above, workspace endpoint', async () => {
    const free = await workspaceWithKey(t.db, { plan: 'free' });
    expectProblem(await get(free.key, '/v1/audits'), 403, 'Plan Required');
    const writeOnly = await createApiKey(t.db, { workspaceId: pro.workspace.id }, { scopes: ['write'] });
    expectProblem(await get(writeOnly.key, '/v1/audits'), 403);
    const subscriber = await createApiKey(t.db, { subscriberId: await createSubscriber(t.db, 'Sub') });
    expectProblem(await get(subscriber.key, '/v1/audits'), 403, 'Forbidden');
    expectProblem(await t.request({ method: 'GET', url: '/v1/audits' }), 401);
  });
});

describe('GET /v1/audits in the OpenAPI document', () => {
  it('is operation listAudits with a named schema whose example is valid', async () => {
    const doc = (await t.request({ method: 'GET', url: '/openapi.json' })).json();
    const op = doc.paths['/v1/audits'].get;
    expect(op.operationId).toBe('listAudits');
    expect(op.description).toMatch(/newest first/);
    expect(JSON.stringify(op.responses['200'])).toContain('#/components/schemas/AuditList');
    const examples = doc.components.schemas.AuditList.examples;
    expect(examples.length).toBeGreaterThan(0);
    for (const example of examples) expect(Value.Errors(AuditList, example)).toEqual([]);
  });
});

describe('GET /v1/audits across tenants', () => {
  it("lists another tenant's workspace to nobody: 404 as for an unknown id", async () => {
    for (const [key, workspaceId] of [
      [pro.key, otherPro.workspace.id],
      [otherPro.key, pro.workspace.id],
      [agencyA.key, pro.workspace.id],
      [agencyB.key, client.workspace.id],
      [client.key, agencyA.workspace.id],
      [pro.key, 'ws_does_not_exist'],
    ] as const) {
      expectProblem(await get(key, `/v1/audits?workspace_id=${workspaceId}`), 404, 'Not Found');
    }
    expect(await listedIds(otherPro.key)).toEqual([ids.other]);
  });

  it("an agency lists a client's audits with workspace_id, and its own workspace by default", async () => {
    const both = [ids.byClient, ids.byAgencyA];
    expect(await listedIds(agencyA.key, `?workspace_id=${client.workspace.id}`)).toEqual(both);
    expect(await listedIds(client.key)).toEqual(both);
    expect(await listedIds(agencyA.key)).toEqual([]);
  });

  it("after a move, the client and its new agency list the client's own audits, never the old agency's", async () => {
    await setParent(t.db, client.workspace.id, agencyB.workspace.id);
    try {
      expect(await listedIds(client.key)).toEqual([ids.byClient]);
      expect(await listedIds(agencyB.key, `?workspace_id=${client.workspace.id}`)).toEqual([ids.byClient]);
      expect((await list(client.key, '?status=completed')).total).toBe(1);
      expectProblem(await get(agencyA.key, `/v1/audits?workspace_id=${client.workspace.id}`), 404);
      ids.byAgencyB = await startAudit(agencyB.key, client.workspace.id);
      expect(await listedIds(client.key)).toEqual([ids.byAgencyB, ids.byClient]);
    } finally {
      await setParent(t.db, client.workspace.id, agencyA.workspace.id);
    }
    // Back with the first agency: its audit is listed again, the second agency's is not.
    expect(await listedIds(agencyA.key, `?workspace_id=${client.workspace.id}`)).toEqual([
      ids.byClient,
      ids.byAgencyA,
    ]);
  });
});
