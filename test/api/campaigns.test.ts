import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/admin/keys.ts';
import { createWorkspace } from '../../src/admin/workspaces.ts';
import { newId } from '../../src/infra/ids.ts';
import { expectProblem, startTestService, workspaceWithKey, type TestService } from '../helpers/service.ts';

let t: TestService;
const NOW = new Date('2030-01-15T12:00:00Z');

beforeAll(async () => {
  t = await startTestService();
  t.setNow(NOW);
});
afterAll(async () => t?.close());

async function agency(name = 'Agency') {
  return workspaceWithKey(t.db, { plan: 'agency', accountType: 'agency', name });
}

function create(key: string, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  return t.request({ method: 'POST', url: '/v1/campaigns', key, payload: body, headers });
}

function list(key: string, query = '') {
  return t.request({ method: 'GET', url: `/v1/campaigns${query}`, key });
}

async function completedAudit(workspaceId: string, score: number, completedAt: Date) {
  await t.db
    .insertInto('audits')
    .values({
      id: newId('aud'),
      workspace_id: workspaceId,
      status: 'completed',
      platforms: ['instagram'],
      lookback_days: 90,
      estimated_completion: completedAt,
      created_at: completedAt,
      completed_at: completedAt,
      score,
      pillars: JSON.stringify({}),
      formula_version: 'v1',
    })
    .execute();
}

describe('POST /v1/campaigns', () => {
  it('creates a draft with the standard Arc split 3, 3, 2, 2 over 10 weeks', async () => {
    const { workspace, key } = await agency();
    const res = await create(key, { name: '  Spring launch ', start_date: '2030-02-01', duration_weeks: 10 });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({
      name: 'Spring launch',
      status: 'draft',
      workspace_id: workspace.id,
      start_date: '2030-02-01',
      duration_weeks: 10,
      objective: null,
      phases: [
        { name: 'Foundation', weeks: [1, 2, 3], status: 'upcoming' },
        { name: 'Build', weeks: [4, 5, 6], status: 'upcoming' },
        { name: 'Peak', weeks: [7, 8], status: 'upcoming' },
        { name: 'Echo', weeks: [9, 10], status: 'upcoming' },
      ],
    });
    expect(body.id).toMatch(/^cmp_/);
    expect(body.created_at).toBe(NOW.toISOString());
    expect(body.cancelled_at).toBeUndefined();
  });

  it('divides the default duration and other lengths so the weeks always add up', async () => {
    const { key } = await agency();
    const cases: Array<[number | undefined, number[]]> = [
      [undefined, [3, 3, 3, 3]],
      [13, [4, 3, 3, 3]],
      [1, [1]],
      [2, [1, 1]],
      [3, [1, 1, 1]],
      [104, [26, 26, 26, 26]],
    ];
    for (const [duration, split] of cases) {
      const res = await create(key, {
        name: `d${duration}`,
        start_date: '2030-03-01',
        ...(duration ? { duration_weeks: duration } : {}),
      });
      expect(res.statusCode).toBe(200);
      const phases = res.json().phases as Array<{ name: string; weeks: number[] }>;
      expect(phases.map((p) => p.weeks.length)).toEqual(split);
      expect(phases.map((p) => p.name)).toEqual(
        ['Foundation', 'Build', 'Peak', 'Echo'].slice(0, split.length),
      );
      expect(phases.flatMap((p) => p.weeks)).toEqual(Array.from({ length: duration ?? 12 }, (_, i) => i + 1));
    }
  });

  it('accepts custom phases whose weeks add up to duration_weeks', async () => {
    const { key } = await agency();
    const res = await create(key, {
      name: 'Custom',
      objective: 'Grow reach',
      start_date: '2030-03-01T08:30:00Z',
      duration_weeks: 6,
      phases: [
        { name: ' Tease ', weeks: 2 },
        { name: 'Launch', weeks: 3 },
        { name: 'Afterglow', weeks: 1 },
      ],
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      objective: 'Grow reach',
      start_date: '2030-03-01',
      phases: [
        { name: 'Tease', weeks: [1, 2] },
        { name: 'Launch', weeks: [3, 4, 5] },
        { name: 'Afterglow', weeks: [6] },
      ],
    });
  });

  it('rejects phases that do not fit, naming phases in the problem', async () => {
    const { key } = await agency();
    const base = { name: 'Bad phases', start_date: '2030-03-01' };
    const mismatch = expectProblem(
      await create(key, {
        ...base,
        duration_weeks: 6,
        phases: [
          { name: 'A', weeks: 2 },
          { name: 'B', weeks: 3 },
        ],
      }),
      400,
      'Invalid Parameter',
    );
    expect(mismatch.errors[0].parameter).toBe('phases');
    expect(mismatch.detail).toContain('add up to 5 but duration_weeks is 6');
    // Without duration_weeks the spec's default of 12 applies, and the detail says so.
    expect(
      expectProblem(await create(key, { ...base, phases: [{ name: 'A', weeks: 2 }] }), 400).detail,
    ).toContain('duration_weeks is 12');
    const duplicate = expectProblem(
      await create(key, {
        ...base,
        duration_weeks: 2,
        phases: [
          { name: 'Peak', weeks: 1 },
          { name: 'peak ', weeks: 1 },
        ],
      }),
      400,
    );
    expect(duplicate.detail).toContain('used twice');
    const blank = expectProblem(
      await create(key, { ...base, duration_weeks: 1, phases: [{ name: '  ', weeks: 1 }] }),
      400,
    );
    expect(blank.errors[0].parameter).toBe('phases');
    const tooMany = Array.from({ length: 13 }, (_, i) => ({ name: `P${i}`, weeks: 1 }));
    expect(
      expectProblem(await create(key, { ...base, duration_weeks: 13, phases: tooMany }), 400).errors[0]
        .parameter,
    ).toBe('phases');
    expect(
      expectProblem(await create(key, { ...base, duration_weeks: 1, phases: [{ name: 'A', weeks: 0 }] }), 400)
        .errors[0].parameter,
    ).toBe('phases.0.weeks');
    expect(expectProblem(await create(key, { ...base, phases: [] }), 400).errors[0].parameter).toBe('phases');
    expect(
      expectProblem(
        await create(key, { ...base, duration_weeks: 1, phases: [{ name: 'A', weeks: 1, x: 1 }] }),
        400,
      ).errors[0].parameter,
    ).toBe('phases.0.x');
    const long = 'x'.repeat(101);
    expect(
      expectProblem(
        await create(key, { ...base, duration_weeks: 1, phases: [{ name: long, weeks: 1 }] }),
        400,
      ).detail,
    ).toContain('1-100 characters');
    const stored = await t.db.selectFrom('campaigns').select('id').where('name', '=', 'Bad phases').execute();
    expect(stored).toEqual([]);
  });

  it('answers 400 Invalid Dates unless the start date is a day after today (UTC)', async () => {
    const { key } = await agency();
    for (const start of [
      '2030-01-15',
      '2030-01-14',
      '2029-06-01T00:00:00Z',
      '2030-01-15T23:00:00Z',
      '2030-01-16T00:30:00+02:00',
    ]) {
      const problem = expectProblem(
        await create(key, { name: 'Too soon', start_date: start }),
        400,
        'Invalid Dates',
      );
      expect(problem.errors[0].parameter).toBe('start_date');
      expect(problem.detail).toContain('2030-01-16');
    }
    for (const start of ['2030-02-30', 'next week', '2030-1-20', '2030-01-20T25:00:00Z', '', '20300120']) {
      const problem = expectProblem(
        await create(key, { name: 'Malformed', start_date: start }),
        400,
        'Invalid Dates',
      );
      expect(problem.errors[0].parameter).toBe('start_date');
      expect(problem.detail).toContain('start_date');
    }
    // A missing field is the plain 400 naming it; a wrong one is the spec's Invalid Dates.
    expect(
      expectProblem(await create(key, { name: 'Missing' }), 400, 'Invalid Parameter').errors[0].parameter,
    ).toBe('start_date');
    expect(
      expectProblem(await create(key, { name: 'Number', start_date: 20300120 }), 400).errors[0].parameter,
    ).toBe('start_date');
    const tomorrow = await create(key, { name: 'Tomorrow', start_date: '2030-01-16' });
    expect(tomorrow.statusCode).toBe(200);
    const offset = await create(key, { name: 'Offset', start_date: '2030-01-16T01:30:00+01:00' });
    expect(offset.json().start_date).toBe('2030-01-16');
  });

  it('validates name, objective, duration_weeks and unknown fields', async () => {
    const { key } = await agency();
    const ok = { start_date: '2030-03-01' };
    expect(expectProblem(await create(key, { ...ok, name: '   ' }), 400).errors[0].parameter).toBe('name');
    expect(expectProblem(await create(key, { ...ok, name: 'x'.repeat(201) }), 400).errors[0].parameter).toBe(
      'name',
    );
    expect((await create(key, { ...ok, name: 'x'.repeat(200) })).statusCode).toBe(200);
    expect(expectProblem(await create(key, ok), 400).errors[0].parameter).toBe('name');
    expect(
      expectProblem(await create(key, { ...ok, name: 'o', objective: 'x'.repeat(2001) }), 400).errors[0]
        .parameter,
    ).toBe('objective');
    for (const duration of [0, 105, 2.5, 'twelve']) {
      expect(
        expectProblem(await create(key, { ...ok, name: 'd', duration_weeks: duration }), 400).errors[0]
          .parameter,
      ).toBe('duration_weeks');
    }
    expect(
      expectProblem(await create(key, { ...ok, name: 'u', status: 'active' }), 400).errors[0].parameter,
    ).toBe('status');
  });

  it('checks the key, the plan, the scope and the tenant', async () => {
    const { workspace: own, key } = await agency('Own');
    const { workspace: other } = await agency('Other');
    const client = await createWorkspace(t.db, { name: 'Client', plan: 'agency', parentId: own.id });
    const body = { name: 'Tenancy', start_date: '2030-03-01' };

    expectProblem(await create('', body), 401, 'Unauthorized');
    expectProblem(await create('bh_live_nope_nope', body), 401, 'Unauthorized');
    const pro = await workspaceWithKey(t.db, { plan: 'pro' });
    expectProblem(await create(pro.key, body), 403, 'Plan Required');
    expectProblem(await list(pro.key), 403, 'Plan Required');
    const readOnly = await createApiKey(t.db, { workspaceId: own.id }, { scopes: ['read'] });
    expectProblem(await create(readOnly.key, body), 403, 'Forbidden');
    expect((await list(readOnly.key)).statusCode).toBe(200);

    expectProblem(await create(key, { ...body, workspace_id: other.id }), 404, 'Not Found');
    expectProblem(await list(key, `?workspace_id=${other.id}`), 404, 'Not Found');
    expectProblem(await create(key, { ...body, workspace_id: 'ws_does_not_exist' }), 404, 'Not Found');

    // An agency manages its clients' campaigns; the client's list holds them, the agency's does not.
    const forClient = await create(key, { ...body, workspace_id: client.id });
    expect(forClient.json().workspace_id).toBe(client.id);
    expect((await list(key, `?workspace_id=${client.id}`)).json().campaigns.map((c: any) => c.id)).toEqual([
      forClient.json().id,
    ]);
    expect((await list(key)).json().total).toBe(0);
  });

  it('replays an Idempotency-Key and refuses it for another body', async () => {
    const { workspace, key } = await agency();
    const body = { name: 'Once', start_date: '2030-03-01' };
    const headers = { 'idempotency-key': 'create-once-1' };
    const [first, second] = await Promise.all([create(key, body, headers), create(key, body, headers)]);
    const statuses = [first.statusCode, second.statusCode].sort();
    // Concurrent duplicates: one creates, the other replays or is told to retry (409).
    expect(statuses[0]).toBe(200);
    expect([200, 409]).toContain(statuses[1]);
    const replay = await create(key, body, headers);
    expect(replay.statusCode).toBe(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    const created = [first, second].find(
      (r) => r.statusCode === 200 && r.headers['idempotent-replayed'] === undefined,
    )!;
    expect(replay.json().id).toBe(created.json().id);
    const rows = await t.db
      .selectFrom('campaigns')
      .select('id')
      .where('workspace_id', '=', workspace.id)
      .execute();
    expect(rows).toHaveLength(1);
    expectProblem(await create(key, { ...body, name: 'Other' }, headers), 422, 'Idempotency Key Reused');
  });
});

describe('GET /v1/campaigns', () => {
  it('lists newest first with ties broken by id, paginates and filters', async () => {
    const { workspace, key } = await agency();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      // Three campaigns share one created_at: the tie is broken by id, descending.
      t.setNow(new Date(NOW.getTime() + Math.min(i, 2) * 60_000));
      ids.push((await create(key, { name: `C${i}`, start_date: '2030-03-01' })).json().id);
    }
    t.setNow(NOW);
    const tied = ids.slice(2).sort().reverse();
    const expected = [...tied, ids[1]!, ids[0]!];

    const all = (await list(key)).json();
    expect(all).toMatchObject({ total: 5, limit: 20, offset: 0 });
    expect(all.campaigns.map((c: any) => c.id)).toEqual(expected);
    const page = (await list(key, '?limit=2&offset=2')).json();
    expect(page).toMatchObject({ total: 5, limit: 2, offset: 2 });
    expect(page.campaigns.map((c: any) => c.id)).toEqual(expected.slice(2, 4));
    expect((await list(key, '?offset=10')).json()).toMatchObject({ total: 5, campaigns: [] });

    await t.db.updateTable('campaigns').set({ status: 'active' }).where('id', '=', ids[0]!).execute();
    await t.db
      .updateTable('campaign_phases')
      .set({ status: 'active' })
      .where('campaign_id', '=', ids[0]!)
      .where('position', '=', 0)
      .execute();
    const drafts = (await list(key, '?status=draft')).json();
    expect(drafts.total).toBe(4);
    expect(drafts.campaigns.every((c: any) => c.status === 'draft')).toBe(true);
    expect((await list(key, '?status=active')).json().campaigns.map((c: any) => c.id)).toEqual([ids[0]]);
    expect((await list(key, '?status=completed')).json()).toMatchObject({ total: 0, campaigns: [] });
    expect(workspace.id).toBeTruthy();
  });

  it('answers 400 naming the parameter for invalid status, limit and offset', async () => {
    const { key } = await agency();
    for (const [query, parameter] of [
      ['?status=running', 'status'],
      ['?status=', 'status'],
      ['?limit=0', 'limit'],
      ['?limit=101', 'limit'],
      ['?limit=ten', 'limit'],
      ['?offset=-1', 'offset'],
      ['?offset=1.5', 'offset'],
      ['?page=2', 'page'],
    ]) {
      expect(expectProblem(await list(key, query), 400).errors[0].parameter).toBe(parameter);
    }
  });

  it('reports the current phase, its progress and the scores of a draft', async () => {
    const { workspace, key } = await agency();
    await create(key, { name: 'Scoreless', start_date: '2030-03-01' });
    expect((await list(key)).json().campaigns[0]).toMatchObject({
      status: 'draft',
      current_phase: 'foundation',
      phase_progress: 0,
      score_at_start: null,
      score_current: null,
      score_delta: null,
      start_date: '2030-03-01',
    });
    await completedAudit(workspace.id, 90, new Date('2030-01-08T09:00:00Z'));
    // The current score is the latest completed audit's.
    await completedAudit(workspace.id, 58.4, new Date('2030-01-10T09:00:00Z'));
    expect((await list(key)).json().campaigns[0]).toMatchObject({
      score_at_start: 58.4,
      score_current: 58.4,
      score_delta: '+0.0',
    });
  });

  it('cancels drafts (an extension) and lists them only with status=cancelled', async () => {
    const { key } = await agency();
    const { key: otherKey } = await agency('Someone else');
    const kept = (await create(key, { name: 'Kept', start_date: '2030-03-01' })).json();
    const dropped = (await create(key, { name: 'Dropped', start_date: '2030-03-01' })).json();

    expectProblem(
      await t.request({ method: 'POST', url: `/v1/campaigns/${dropped.id}/cancel`, key: otherKey }),
      404,
    );
    const cancelled = await t.request({ method: 'POST', url: `/v1/campaigns/${dropped.id}/cancel`, key });
    expect(cancelled.statusCode).toBe(200);
    expect(cancelled.json()).toMatchObject({
      id: dropped.id,
      status: 'cancelled',
      cancelled_at: NOW.toISOString(),
    });
    const again = await t.request({ method: 'POST', url: `/v1/campaigns/${dropped.id}/cancel`, key });
    expect(again.json()).toMatchObject({ status: 'cancelled', cancelled_at: NOW.toISOString() });

    expect((await list(key)).json()).toMatchObject({ total: 1, campaigns: [{ id: kept.id }] });
    expect((await list(key, '?status=cancelled')).json()).toMatchObject({
      total: 1,
      campaigns: [{ id: dropped.id, status: 'cancelled', current_phase: 'foundation', phase_progress: 0 }],
    });
    expectProblem(await t.request({ method: 'POST', url: '/v1/campaigns/cmp_unknown/cancel', key }), 404);

    await t.db.updateTable('campaigns').set({ status: 'completed' }).where('id', '=', kept.id).execute();
    expectProblem(
      await t.request({ method: 'POST', url: `/v1/campaigns/${kept.id}/cancel`, key }),
      409,
      'Campaign Completed',
    );
  });

  it('documents the endpoints in the OpenAPI document', async () => {
    const doc = (await t.request({ method: 'GET', url: '/openapi.json' })).json();
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/v1/campaigns', '/v1/campaigns/{campaign_id}/cancel']),
    );
    const item = doc.components.schemas.CampaignListItem;
    expect(item.properties.score_at_start.anyOf).toEqual(expect.arrayContaining([{ type: 'null' }]));
  });
});
