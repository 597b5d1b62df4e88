import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../src/admin/workspaces.ts';
import { connectPlatform } from '../../src/admin/platforms.ts';
import { loadSnapshots, loadSnapshotsForScoring } from '../../src/scoring/snapshots.ts';
import { expectProblem, startTestService, workspaceWithKey, type TestService } from '../helpers/service.ts';
import { runJob, seedMetrics } from './audits.fixtures.ts';
import { addDays } from '../../src/core/days.ts';
import { CURRENT_FORMULA, scoreCurrent } from '../../src/scoring/daily-scores.ts';
import type { DailySnapshot } from '../../src/core/metric-snapshot.ts';

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(async () => t?.close());

const get = (key: string, url: string) => t.request({ method: 'GET', url, key });

async function audited(
  plan: 'pro' | 'agency' = 'pro',
  extra: { realtimeScoring?: boolean; accountType?: 'agency' } = {},
) {
  const fixture = await workspaceWithKey(
    t.db,
    { plan, ...extra },
    { platforms: [{ platform: 'instagram' }] },
  );
  await seedMetrics(t.db, fixture.workspace.id, { platforms: ['instagram'] });
  const start = await t.request({ method: 'POST', url: '/v1/audit/run', key: fixture.key, payload: {} });
  await runJob(t.ctx, start.json().audit_id);
  return { ...fixture, auditId: start.json().audit_id as string };
}

describe('GET /v1/score', () => {
  it('401, 403 Plan Required, 404 No Score Available before any audit, 404 for another tenant', async () => {
    expectProblem(await t.request({ method: 'GET', url: '/v1/score' }), 401, 'Unauthorized');
    const free = await workspaceWithKey(t.db, { plan: 'free' });
    expectProblem(await get(free.key, '/v1/score'), 403, 'Plan Required');
    const pro = await workspaceWithKey(t.db, { plan: 'pro' }, { platforms: [{ platform: 'instagram' }] });
    expectProblem(await get(pro.key, '/v1/score'), 404, 'No Score Available');
    const other = await workspaceWithKey(t.db, { plan: 'pro' });
    expectProblem(await get(pro.key, `/v1/score?workspace_id=${other.workspace.id}`), 404, 'Not Found');
  });

  it("returns the latest completed audit's score; include_pillars toggles pillars; 'maybe' is 400", async () => {
    const { key, workspace, auditId } = await audited();
    const audit = (await get(key, `/v1/audit/${auditId}`)).json();
    const res = await get(key, '/v1/score');
    expect(res.statusCode).toBe(200);
    const score = res.json();
    expect(score).toMatchObject({
      score: audit.score,
      grade: audit.grade,
      formula_version: CURRENT_FORMULA,
      calculated_at: audit.completed_at,
      workspace_id: workspace.id,
      tier: 'pro',
      source: 'audit',
    });
    for (const [k, p] of Object.entries<any>(audit.pillars))
      expect(Math.round(score.pillars[k])).toBe(p.score);
    const bare = (await get(key, '/v1/score?include_pillars=false')).json();
    expect(bare.pillars).toBeUndefined();
    expect(bare.score).toBe(audit.score);
    const body = expectProblem(await get(key, '/v1/score?include_pillars=maybe'), 400, 'Invalid Parameter');
    expect(body.errors[0].parameter).toBe('include_pillars');
    // The workspace resource shows the same current score.
    expect((await get(key, '/v1/workspace')).json().current_core_score).toBe(audit.score);
  });

  it('calculates live for an Agency key on a realtime workspace, from current snapshots', async () => {
    const agency = await workspaceWithKey(t.db, {
      plan: 'agency',
      accountType: 'agency',
      realtimeScoring: true,
    });
    const client = await createWorkspace(t.db, {
      name: 'Live client',
      plan: 'pro',
      parentId: agency.workspace.id,
      realtimeScoring: true,
    });
    await connectPlatform(t.db, { workspaceId: client.id, platform: 'youtube', handle: '@live' });
    // No snapshots and no audit yet: nothing to show.
    expectProblem(await get(agency.key, `/v1/score?workspace_id=${client.id}`), 404, 'No Score Available');

    await seedMetrics(t.db, client.id, { platforms: ['youtube'], seed: 3 });
    const now = new Date();
    t.setNow(now);
    try {
      const live = (await get(agency.key, `/v1/score?workspace_id=${client.id}`)).json();
      expect(live).toMatchObject({
        source: 'realtime',
        workspace_id: client.id,
        tier: 'pro',
        calculated_at: now.toISOString(),
      });
      // New metrics move the live score at once, with no audit run.
      await seedMetrics(t.db, client.id, { platforms: ['youtube'], seed: 4, days: 60, followers: 3_000_000 });
      const moved = (await get(agency.key, `/v1/score?workspace_id=${client.id}`)).json();
      expect(moved.score).not.toBe(live.score);
      expect(moved.source).toBe('realtime');
    } finally {
      t.setNow(undefined);
    }
  });

  it("shows the live score as the workspace's current_core_score on a realtime Agency workspace", async () => {
    const { key, workspace, auditId } = await audited('agency', {
      realtimeScoring: true,
      accountType: 'agency',
    });
    const audit = (await get(key, `/v1/audit/${auditId}`)).json();
    // New metrics after the audit: the live calculation moves away from the audit's score.
    await seedMetrics(t.db, workspace.id, {
      platforms: ['instagram'],
      seed: 4,
      days: 60,
      followers: 3_000_000,
    });
    const score = (await get(key, '/v1/score')).json();
    expect(score.source).toBe('realtime');
    expect(score.score).not.toBe(audit.score);
    expect((await get(key, '/v1/workspace')).json().current_core_score).toBe(score.score);
  });

  it('serves the audit score, not a live one, to a Pro key or when realtime scoring is off', async () => {
    const pro = await audited('pro', { realtimeScoring: true });
    expect((await get(pro.key, '/v1/score')).json().source).toBe('audit');
    const agency = await audited('agency');
    expect((await get(agency.key, '/v1/score')).json()).toMatchObject({ source: 'audit', tier: 'agency' });
  });

  it("an agency key reads its client's audited score; the client's key cannot read the agency's", async () => {
    const agency = await audited('agency', { accountType: 'agency' });
    const client = await workspaceWithKey(
      t.db,
      { plan: 'pro', parentId: agency.workspace.id },
      { platforms: [{ platform: 'instagram' }] },
    );
    await seedMetrics(t.db, client.workspace.id, { platforms: ['instagram'] });
    const run = await t.request({
      method: 'POST',
      url: '/v1/audit/run',
      key: agency.key,
      payload: { workspace_id: client.workspace.id },
    });
    await runJob(t.ctx, run.json().audit_id);
    const clientAudit = (await get(agency.key, `/v1/audit/${run.json().audit_id}`)).json();
    const seen = (await get(agency.key, `/v1/score?workspace_id=${client.workspace.id}`)).json();
    expect(seen).toMatchObject({ workspace_id: client.workspace.id, score: clientAudit.score, tier: 'pro' });
    // Visibility runs parent -> child only: the audited agency is Not Found, not No Score Available.
    expectProblem(await get(client.key, `/v1/score?workspace_id=${agency.workspace.id}`), 404, 'Not Found');
  });

  it('loads the scoring snapshots in key order with the same rows and the same score', async () => {
    const ws = await createWorkspace(t.db, { name: 'Order', plan: 'pro' });
    await seedMetrics(t.db, ws.id, { platforms: ['youtube', 'instagram', 'tiktok'], days: 40 });
    const asOf = new Date().toISOString().slice(0, 10);
    const range = { from: addDays(asOf, -29), to: asOf };
    const byDay = await loadSnapshots(t.db, ws.id, range);
    const byKey = await loadSnapshotsForScoring(t.db, ws.id, range);
    expect(byKey).toHaveLength(90);
    const keyOrder = (a: DailySnapshot, b: DailySnapshot) =>
      a.platform.localeCompare(b.platform) || a.day.localeCompare(b.day);
    expect(byKey).toEqual([...byKey].sort(keyOrder));
    expect(byKey).toEqual([...byDay].sort(keyOrder));
    const input = { platforms: [], asOf, lookbackDays: 30 };
    expect(scoreCurrent({ ...input, snapshots: byKey })).toEqual(
      scoreCurrent({ ...input, snapshots: byDay }),
    );
  });
});

describe('GET /v1/score/history', () => {
  // 2025-03-03 is a Monday. Scores rise by one point a day from 40.0 on 2025-03-01.
  const from = '2025-03-01';
  let key = '';
  let workspaceId = '';
  beforeAll(async () => {
    const fixture = await workspaceWithKey(t.db, { plan: 'pro' });
    key = fixture.key;
    workspaceId = fixture.workspace.id;
    const rows = Array.from({ length: 50 }, (_, i) => ({
      workspace_id: workspaceId,
      day: addDays(from, i),
      score: 40 + i,
      presence: 40 + i,
      reach: 30,
      impact: 20,
      sentiment: 60,
      momentum: 50 - i / 2,
      formula_version: CURRENT_FORMULA,
    }));
    await t.db.insertInto('daily_scores').values(rows).execute();
  });

  it('daily: every stored day in range, inclusive, with a signed delta', async () => {
    const res = await get(
      key,
      `/v1/score/history?start_date=2025-03-05&end_date=2025-03-09&granularity=daily`,
    );
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.workspace_id).toBe(workspaceId);
    expect(body.granularity).toBe('daily');
    expect(body.data.map((p: any) => p.date)).toEqual([
      '2025-03-05',
      '2025-03-06',
      '2025-03-07',
      '2025-03-08',
      '2025-03-09',
    ]);
    expect(body.data[0]).toEqual({
      date: '2025-03-05',
      score: 44,
      pillars: { presence: 44, reach: 30, impact: 20, sentiment: 60, momentum: 48 },
    });
    expect(body.delta).toEqual({ score: '+4.0', period: '2025-03-05 to 2025-03-09' });
  });

  it('weekly (the default): the last stored day of each ISO week', async () => {
    const body = (await get(key, `/v1/score/history?start_date=2025-03-01&end_date=2025-03-20`)).json();
    expect(body.granularity).toBe('weekly');
    // Weeks: Sat 1-Sun 2 | Mon 3-Sun 9 | Mon 10-Sun 16 | Mon 17-Thu 20 (range end).
    expect(body.data.map((p: any) => [p.date, p.score])).toEqual([
      ['2025-03-02', 41],
      ['2025-03-09', 48],
      ['2025-03-16', 55],
      ['2025-03-20', 59],
    ]);
    expect(body.delta).toEqual({ score: '+18.0', period: '2025-03-02 to 2025-03-20' });
  });

  it('monthly: the last stored day of each month; date-time bounds are accepted', async () => {
    const body = (
      await get(
        key,
        `/v1/score/history?start_date=2025-02-01T00:00:00Z&end_date=2025-06-30T23:59:59%2B02:00&granularity=monthly`,
      )
    ).json();
    expect(body.data.map((p: any) => p.date)).toEqual(['2025-03-31', '2025-04-19']);
    expect(body.delta.score).toBe('+19.0');
  });

  it('a falling series has a negative delta', async () => {
    const fixture = await workspaceWithKey(t.db, { plan: 'pro' });
    await t.db
      .insertInto('daily_scores')
      .values(
        [70.5, 68.2].map((score, i) => ({
          workspace_id: fixture.workspace.id,
          day: addDays('2025-01-01', i),
          score,
          presence: 50,
          reach: 50,
          impact: 50,
          sentiment: 50,
          momentum: 50,
          formula_version: CURRENT_FORMULA,
        })),
      )
      .execute();
    const body = (
      await get(fixture.key, '/v1/score/history?start_date=2025-01-01&end_date=2025-01-31&granularity=daily')
    ).json();
    expect(body.delta).toEqual({ score: '-2.3', period: '2025-01-01 to 2025-01-02' });
  });

  it('400 Invalid Date Range, 400 for bad dates and granularity, 404 No Data, 401 and other tenants', async () => {
    expectProblem(
      await get(key, '/v1/score/history?start_date=2025-03-10&end_date=2025-03-10'),
      400,
      'Invalid Date Range',
    );
    expectProblem(
      await get(key, '/v1/score/history?start_date=2025-03-11&end_date=2025-03-10'),
      400,
      'Invalid Date Range',
    );
    for (const bad of ['2025-02-30', '03/01/2025', '2025-03-01T25:00:00Z', 'yesterday']) {
      const body = expectProblem(
        await get(key, `/v1/score/history?start_date=${encodeURIComponent(bad)}`),
        400,
        'Invalid Parameter',
      );
      expect(body.errors[0].parameter).toBe('start_date');
    }
    const body = expectProblem(
      await get(key, '/v1/score/history?granularity=hourly'),
      400,
      'Invalid Parameter',
    );
    expect(body.errors[0].parameter).toBe('granularity');
    expect(body.detail).toContain('daily, weekly, monthly');
    expectProblem(
      await get(key, '/v1/score/history?start_date=2024-01-01&end_date=2024-12-31'),
      404,
      'No Data',
    );
    // Defaults: today - 90 days .. today, where this workspace has no data.
    expectProblem(await get(key, '/v1/score/history'), 404, 'No Data');
    expectProblem(await t.request({ method: 'GET', url: '/v1/score/history' }), 401, 'Unauthorized');
    const other = await workspaceWithKey(t.db, { plan: 'pro' });
    expectProblem(
      await get(
        other.key,
        `/v1/score/history?workspace_id=${workspaceId}&start_date=2025-03-01&end_date=2025-03-20`,
      ),
      404,
      'Not Found',
    );
  });

  it('defaults start_date to 90 days before end_date, so end_date alone works', async () => {
    // 2025-05-31 minus 90 days is 2025-03-02: the first stored day, 2025-03-01, is outside.
    const res = await get(key, '/v1/score/history?end_date=2025-05-31&granularity=daily');
    expect(res.statusCode, res.body).toBe(200);
    const dates = res.json().data.map((p: any) => p.date);
    expect(dates[0]).toBe('2025-03-02');
    expect(dates.at(-1)).toBe('2025-04-19');
    // A date-time end counts from its UTC day.
    const at = await get(key, '/v1/score/history?end_date=2025-03-10T12:00:00Z&granularity=daily');
    expect(at.json().data.map((p: any) => p.date)).toEqual(
      Array.from({ length: 10 }, (_, i) => addDays(from, i)),
    );
  });

  it('defaults to the last 90 days, which includes today’s score after an audit', async () => {
    const { key: auditedKey } = await audited();
    const body = (await get(auditedKey, '/v1/score/history?granularity=daily')).json();
    const today = new Date().toISOString().slice(0, 10);
    expect(body.data.at(-1).date).toBe(today);
  });
});
