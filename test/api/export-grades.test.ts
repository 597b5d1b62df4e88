import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, workspaceWithKey, type TestService } from '../helpers/service.ts';
import { runJob, seedMetrics } from './audits.fixtures.ts';

// An agency's export grades each client the way the client's own audit does: the grade comes from the
// one scoring formula in force (docs/scoring.md "Grades"), never from cutoffs of another formula.
let t: TestService;
let agency: Awaited<ReturnType<typeof workspaceWithKey>>;
const audits = new Map<string, { score: number; grade: string }>();

const get = (key: string, url: string) => t.request({ method: 'GET', url, key });

beforeAll(async () => {
  t = await startTestService();
  agency = await workspaceWithKey(t.db, { name: 'Grading Agency', plan: 'agency', accountType: 'agency' });
  // Clients of different sizes and histories, so their scores spread over several grade bands.
  const clients = [
    { name: 'Small Shop', seed: 3, followers: 400, accountType: 'company' as const },
    { name: 'Mid Brand', seed: 11, followers: 20_000, accountType: 'company' as const },
    { name: 'Big Label', seed: 29, followers: 900_000, accountType: 'company' as const },
    { name: 'Ada Creates', seed: 41, followers: 5_000, accountType: 'creator' as const },
  ];
  for (const [i, client] of clients.entries()) {
    const c = await workspaceWithKey(
      t.db,
      {
        name: client.name,
        plan: 'pro',
        parentId: agency.workspace.id,
        ...(client.accountType === 'creator' ? { accountType: 'creator' as const } : {}),
      },
      { platforms: [{ platform: 'instagram', followers: client.followers }] },
    );
    await seedMetrics(t.db, c.workspace.id, {
      platforms: ['instagram'],
      seed: client.seed,
      followers: client.followers,
      days: 60 + i * 20,
    });
    const run = await t.request({ method: 'POST', url: '/v1/audit/run', key: c.key, payload: {} });
    expect(run.statusCode, run.body).toBe(200);
    const id = run.json().audit_id as string;
    expect(await runJob(t.ctx, id)).toBe('completed');
    const audit = (await get(c.key, `/v1/audit/${id}`)).json();
    audits.set(c.workspace.id, { score: audit.score, grade: audit.grade });
  }
});
afterAll(async () => t?.close());

describe('agency exports grade clients as their audits do', () => {
  it('/v1/export/clients and /v1/export/creators give each client its audit score and grade', async () => {
    const rows = [
      ...(await get(agency.key, '/v1/export/clients')).json().clients,
      ...(await get(agency.key, '/v1/export/creators')).json().creators,
    ] as Array<{ workspaceId: string; coreScore: number | null; grade: string | null }>;
    const seen = new Set<string>();
    for (const row of rows) {
      const audit = audits.get(row.workspaceId);
      if (!audit) continue;
      seen.add(row.workspaceId);
      expect({ id: row.workspaceId, score: row.coreScore, grade: row.grade }).toEqual({
        id: row.workspaceId,
        score: audit.score,
        grade: audit.grade,
      });
    }
    expect(seen.size).toBe(audits.size);
  });

  it('the CSV export carries the same grades', async () => {
    const res = await t.request({
      method: 'GET',
      url: '/v1/export/clients',
      key: agency.key,
      headers: { accept: 'text/csv' },
    });
    expect(res.statusCode, res.body).toBe(200);
    const [header, ...lines] = res.body.trim().split(/\r?\n/);
    const cols = header!.split(',');
    const id = cols.indexOf('workspaceId');
    const grade = cols.indexOf('grade');
    expect(id).toBeGreaterThanOrEqual(0);
    expect(grade).toBeGreaterThanOrEqual(0);
    for (const line of lines) {
      const cells = line.split(',');
      const audit = audits.get(cells[id]!);
      if (audit) expect(cells[grade]).toBe(audit.grade);
    }
  });
});
