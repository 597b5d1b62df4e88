import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, revokeApiKey } from '../../src/admin/keys.ts';
import { createWorkspace, setParent } from '../../src/admin/workspaces.ts';
import type { Workspace } from '../../src/infra/db/types.ts';
import { newId } from '../../src/infra/ids.ts';
import { insertScoreLog } from '../helpers/score-log.ts';
import { expectProblem, startTestService, workspaceWithKey, type TestService } from '../helpers/service.ts';
import type { Platform } from '../../src/core/catalog.ts';

let t: TestService;

// Two agencies with their clients, one independent brand, and score history for all of them.
let alpha: { workspace: Workspace; key: string };
let beta: { workspace: Workspace; key: string };
let brand: Workspace; // alpha's client
let creatorA: Workspace; // alpha's client, no audit yet
let creatorB: Workspace; // alpha's client, white-labeled
let betaCreator: Workspace; // beta's client
let loner: Workspace; // nobody's client
const logIds = new Map<string, string[]>(); // workspace id -> recordedAt of its rows

/** A finished audit as the audit engine stores it: its score and the grade it gave. */
async function audit(
  workspaceId: string,
  score: number,
  grade: string,
  completedAt: string,
  status: 'completed' | 'processing' = 'completed',
) {
  const when = new Date(completedAt);
  await t.db
    .insertInto('audits')
    .values({
      id: newId('aud'),
      workspace_id: workspaceId,
      status,
      platforms: ['instagram'],
      lookback_days: 90,
      estimated_completion: when,
      created_at: when,
      completed_at: status === 'completed' ? when : null,
      score: status === 'completed' ? score : null,
      grade: status === 'completed' ? grade : null,
      pillars: status === 'completed' ? JSON.stringify({}) : null,
      formula_version: 'v2',
    })
    .execute();
}

async function scoreLog(
  workspaceId: string,
  recordedAt: string,
  platform: Platform = 'instagram',
  overall = 70,
) {
  await insertScoreLog(t.db, workspaceId, recordedAt, platform, overall);
  logIds.set(workspaceId, [...(logIds.get(workspaceId) ?? []), recordedAt]);
}

beforeAll(async () => {
  t = await startTestService();
  alpha = await workspaceWithKey(t.db, { plan: 'agency', accountType: 'agency', name: 'Alpha Agency' });
  beta = await workspaceWithKey(t.db, { plan: 'agency', accountType: 'agency', name: 'Beta Agency' });
  brand = await createWorkspace(t.db, {
    name: 'Bravo Foods',
    plan: 'pro',
    parentId: alpha.workspace.id,
    orgType: 'company',
  });
  creatorA = await createWorkspace(t.db, {
    name: 'Ada Creates',
    plan: 'pro',
    parentId: alpha.workspace.id,
    accountType: 'creator',
  });
  creatorB = await createWorkspace(t.db, {
    name: 'Cy Streams',
    plan: 'pro',
    parentId: alpha.workspace.id,
    accountType: 'creator',
    isWhiteLabeled: true,
  });
  betaCreator = await createWorkspace(t.db, {
    name: 'Beta Creator',
    plan: 'pro',
    parentId: beta.workspace.id,
    accountType: 'creator',
  });
  loner = await createWorkspace(t.db, { name: 'Loner', plan: 'agency' });

  await audit(brand.id, 55, 'strong', '2030-01-01T10:00:00Z');
  await audit(brand.id, 82.4, 'elite', '2030-02-01T10:00:00Z'); // the latest
  await audit(brand.id, 40, 'weak', '2030-03-01T10:00:00Z', 'processing'); // not a stored score
  await audit(creatorB.id, 57, 'strong', '2030-01-20T08:00:00Z');
  await audit(betaCreator.id, 91, 'elite', '2030-01-15T08:00:00Z');
  await audit(loner.id, 77, 'elite', '2030-01-15T08:00:00Z');

  await scoreLog(alpha.workspace.id, '2030-01-05T00:00:00Z');
  await scoreLog(brand.id, '2030-01-10T00:00:00Z', 'instagram', 55);
  await scoreLog(brand.id, '2030-02-01T10:00:00Z', 'instagram', 82.4);
  await scoreLog(brand.id, '2030-02-01T10:00:00Z', 'tiktok', 80.1); // same instant: ties by id, newest id first
  await scoreLog(creatorB.id, '2030-01-20T08:00:00Z', 'youtube', 66);
  await scoreLog(betaCreator.id, '2030-01-15T08:00:00Z', 'tiktok', 91);
  await scoreLog(loner.id, '2030-01-15T08:00:00Z', 'twitter', 77);
});
afterAll(async () => t?.close());

function get(key: string, url: string) {
  return t.request({ method: 'GET', url, key });
}

describe('GET /v1/export/clients and /v1/export/creators', () => {
  it('lists the agency clients with their latest stored score, and nobody else', async () => {
    const res = await get(alpha.key, '/v1/export/clients');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.scope).toEqual({ workspaceId: alpha.workspace.id, workspaceName: 'Alpha Agency' });
    expect(body.count).toBe(3);
    expect(body.clients).toEqual([
      {
        workspaceId: creatorA.id,
        name: 'Ada Creates',
        type: 'creator',
        orgType: 'individual',
        isWhiteLabeled: false,
        coreScore: null,
        imprsScore: null,
        grade: null,
        scoredAt: null,
      },
      {
        workspaceId: brand.id,
        name: 'Bravo Foods',
        type: 'brand',
        orgType: 'company',
        isWhiteLabeled: false,
        coreScore: 82.4,
        imprsScore: 82.4,
        grade: 'elite',
        scoredAt: '2030-02-01T10:00:00.000Z',
      },
      {
        workspaceId: creatorB.id,
        name: 'Cy Streams',
        type: 'creator',
        orgType: 'individual',
        isWhiteLabeled: true,
        coreScore: 57,
        imprsScore: 57,
        grade: 'strong',
        scoredAt: '2030-01-20T08:00:00.000Z',
      },
    ]);
  });

  it('lists only creator clients in the creators export', async () => {
    const body = (await get(alpha.key, '/v1/export/creators')).json();
    expect(body.scope).toEqual({ workspaceId: alpha.workspace.id, workspaceName: 'Alpha Agency' });
    expect(body.count).toBe(2);
    expect(body.creators.map((c: any) => [c.workspaceId, c.accountType, c.grade])).toEqual([
      [creatorA.id, 'creator', null],
      [creatorB.id, 'creator', 'strong'],
    ]);
    expect(Object.keys(body.creators[1]).sort()).toEqual(
      ['accountType', 'coreScore', 'grade', 'imprsScore', 'name', 'scoredAt', 'workspaceId'].sort(),
    );
    const betaBody = (await get(beta.key, '/v1/export/creators')).json();
    expect(betaBody.creators.map((c: any) => c.workspaceId)).toEqual([betaCreator.id]);
  });

  it('shows a client key only its own (empty) hierarchy', async () => {
    const clientKey = await createApiKey(t.db, { workspaceId: loner.id }, { scopes: ['read'] });
    const body = (await get(clientKey.key, '/v1/export/clients')).json();
    expect(body).toEqual({ scope: { workspaceId: loner.id, workspaceName: 'Loner' }, count: 0, clients: [] });
  });
});

describe('GET /v1/export/scores', () => {
  it('returns the score log of the agency and its clients, newest first, labelled by workspace', async () => {
    const body = (await get(alpha.key, '/v1/export/scores')).json();
    expect(body.scope).toEqual({
      workspaceId: alpha.workspace.id,
      workspaceName: 'Alpha Agency',
      clientCount: 3,
    });
    expect(body.count).toBe(5);
    const recorded = body.scores.map((s: any) => s.recordedAt);
    expect(recorded).toEqual([...recorded].sort().reverse());
    // The two rows of the same instant: the later insert (higher id) first.
    expect(body.scores.slice(0, 2).map((s: any) => s.platform)).toEqual(['tiktok', 'instagram']);
    expect(new Set(body.scores.map((s: any) => s.workspaceId))).toEqual(
      new Set([alpha.workspace.id, brand.id, creatorB.id]),
    );
    expect(body.scores[0]).toEqual({
      workspaceId: brand.id,
      workspaceName: 'Bravo Foods',
      platform: 'tiktok',
      tier: 'micro',
      followerCount: 12000,
      overallScore: 80.1,
      grade: 'strong',
      part1Score: 68,
      part2Score: 72.5,
      formulaVersion: 'v1',
      recordedAt: '2030-02-01T10:00:00.000Z',
    });
  });

  it('applies limit (1-1000, default 500) and since (inclusive)', async () => {
    const two = (await get(alpha.key, '/v1/export/scores?limit=2')).json();
    expect(two.count).toBe(2);
    expect(two.scores.map((s: any) => s.recordedAt)).toEqual([
      '2030-02-01T10:00:00.000Z',
      '2030-02-01T10:00:00.000Z',
    ]);

    const since = (await get(alpha.key, '/v1/export/scores?since=2030-01-20T08:00:00Z')).json();
    expect(since.scores.map((s: any) => s.recordedAt)).toEqual([
      '2030-02-01T10:00:00.000Z',
      '2030-02-01T10:00:00.000Z',
      '2030-01-20T08:00:00.000Z',
    ]);
    const sinceDate = (await get(alpha.key, '/v1/export/scores?since=2030-01-10')).json();
    expect(sinceDate.count).toBe(4);
    const offset = (
      await get(alpha.key, `/v1/export/scores?since=${encodeURIComponent('2030-01-20T09:00:00+01:00')}`)
    ).json();
    expect(offset.count).toBe(3);
    expect((await get(alpha.key, '/v1/export/scores?since=2031-01-01')).json()).toMatchObject({
      count: 0,
      scores: [],
    });
    expect((await get(alpha.key, '/v1/export/scores?limit=1000')).json().count).toBe(5);

    for (const [query, parameter] of [
      ['limit=0', 'limit'],
      ['limit=1001', 'limit'],
      ['limit=abc', 'limit'],
      ['limit=2.5', 'limit'],
      ['since=yesterday', 'since'],
      ['since=2030-13-01', 'since'],
      ['since=2030-02-30', 'since'],
      ['since=', 'since'],
    ]) {
      const problem = expectProblem(await get(alpha.key, `/v1/export/scores?${query}`), 400);
      expect(problem.errors[0].parameter, query).toBe(parameter);
    }
  });
  it('sends the JSON PostgreSQL builds, identical to the rows as the driver reads them', async () => {
    // An agency of its own, with awkward values: real scores with no exact binary form, microsecond
    // timestamps (truncated to milliseconds, as Date does), a big follower count, a name to escape.
    const gamma = await workspaceWithKey(t.db, {
      plan: 'agency',
      accountType: 'agency',
      name: 'Gamma "G" \\ Ω',
    });
    const client = await createWorkspace(t.db, {
      name: 'Tab\tNew\nline \u0001 ünïcode 🎉',
      plan: 'pro',
      parentId: gamma.workspace.id,
    });
    const values = [
      [gamma.workspace.id, 63.4, 33.33, 0.1, '2030-03-01 10:00:00.123987+00', 0],
      [client.id, 99.95, 100, 0, '2030-03-01 10:00:00.029+00', 9_007_199_254_740_991],
      [client.id, 12.345678, 50.5, 66.6, '2030-03-01 09:59:59.999999+00', 1],
      [client.id, 70, 1e-3, 7.7, '1999-12-31 23:59:59+00', 42],
    ] as const;
    for (const [workspaceId, overall, part1, part2, at, followers] of values) {
      await t.db
        .insertInto('score_log')
        .values({
          workspace_id: workspaceId,
          platform: 'facebook',
          tier: 'nano',
          follower_count: followers,
          overall_score: overall,
          grade: 'weak',
          part1_score: part1,
          part2_score: part2,
          formula_version: 'v2',
          recorded_at: sql<Date>`${at}::timestamptz`,
        })
        .execute();
    }
    const rows = await t.db
      .selectFrom('score_log as s')
      .innerJoin('workspaces as w', 'w.id', 's.workspace_id')
      .selectAll('s')
      .select('w.name')
      .where('s.workspace_id', 'in', [gamma.workspace.id, client.id])
      .orderBy('s.recorded_at', 'desc')
      .orderBy('s.id', 'desc')
      .execute();
    const expected = {
      scope: { workspaceId: gamma.workspace.id, workspaceName: 'Gamma "G" \\ Ω', clientCount: 1 },
      count: 4,
      scores: rows.map((r) => ({
        workspaceId: r.workspace_id,
        workspaceName: r.name,
        platform: r.platform,
        tier: r.tier,
        followerCount: r.follower_count,
        overallScore: r.overall_score,
        grade: r.grade,
        part1Score: r.part1_score,
        part2Score: r.part2_score,
        formulaVersion: r.formula_version,
        recordedAt: r.recorded_at.toISOString(),
      })),
    };
    const res = await get(gamma.key, '/v1/export/scores');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.body).toBe(JSON.stringify(expected));
    expect(res.json().scores.map((s: any) => [s.overallScore, s.recordedAt])).toEqual([
      [63.4, '2030-03-01T10:00:00.123Z'],
      [99.95, '2030-03-01T10:00:00.029Z'],
      [12.345678, '2030-03-01T09:59:59.999Z'],
      [70, '1999-12-31T23:59:59.000Z'],
    ]);
    expect((await get(gamma.key, '/v1/export/scores?limit=1&since=2030-03-01T10:00:00.1Z')).body).toBe(
      JSON.stringify({ ...expected, count: 1, scores: expected.scores.slice(0, 1) }),
    );
  });
});

describe('export tenancy and access', () => {
  const ENDPOINTS = ['/v1/export/clients', '/v1/export/creators', '/v1/export/scores'];

  it('never shows one agency the other agency or outsiders, whatever parameters it sends', async () => {
    const foreign = [beta.workspace.id, betaCreator.id, loner.id, 'Beta Agency', 'Beta Creator', 'Loner'];
    const queries = [
      '',
      `?workspace_id=${beta.workspace.id}`,
      `?workspaceId=${beta.workspace.id}`,
      `?parent_id=${beta.workspace.id}`,
      '?limit=1000',
      '?since=1970-01-01',
      '?scope=all',
    ];
    for (const url of ENDPOINTS) {
      for (const query of queries) {
        const res = await get(alpha.key, url + query);
        if (res.statusCode === 200) {
          for (const id of foreign) expect(res.body, `${url}${query}`).not.toContain(id);
        } else {
          // Exports take no workspace selector: any unknown parameter is refused, not ignored.
          const problem = expectProblem(res, 400, 'Invalid Parameter');
          expect(query).not.toBe('');
          expect(query).toContain(problem.errors[0].parameter);
        }
      }
      expect((await get(alpha.key, `${url}?workspace_id=${beta.workspace.id}`)).statusCode).toBe(400);
    }
  });

  it('drops a client moved to another agency from the first agency at once', async () => {
    const moving = await createWorkspace(t.db, {
      name: 'Mover',
      plan: 'pro',
      parentId: alpha.workspace.id,
      accountType: 'creator',
    });
    await audit(moving.id, 70, 'elite', '2030-01-25T00:00:00Z');
    await scoreLog(moving.id, '2030-01-25T00:00:00Z', 'facebook', 70);
    const seenBy = async (key: string) =>
      Promise.all(ENDPOINTS.map(async (url) => (await get(key, url)).body.includes(moving.id)));
    expect(await seenBy(alpha.key)).toEqual([true, true, true]);
    expect(await seenBy(beta.key)).toEqual([false, false, false]);

    await setParent(t.db, moving.id, beta.workspace.id);
    expect(await seenBy(alpha.key)).toEqual([false, false, false]);
    expect(await seenBy(beta.key)).toEqual([true, true, true]);
    expect((await get(alpha.key, '/v1/export/scores')).json().scope.clientCount).toBe(3);
    expect((await get(beta.key, '/v1/export/scores')).json().scope.clientCount).toBe(2);

    await setParent(t.db, moving.id, null);
    expect(await seenBy(beta.key)).toEqual([false, false, false]);
  });

  it('answers 403 Forbidden without the read scope or below the Agency plan', async () => {
    const writeOnly = await createApiKey(t.db, { workspaceId: alpha.workspace.id }, { scopes: ['write'] });
    const pro = await workspaceWithKey(t.db, { plan: 'pro', accountType: 'agency', name: 'Pro Agency' });
    await createWorkspace(t.db, { name: 'Pro client', plan: 'pro', parentId: pro.workspace.id });
    for (const url of ENDPOINTS) {
      expect(expectProblem(await get(writeOnly.key, url), 403, 'Forbidden').detail).toContain('read');
      expect(expectProblem(await get(pro.key, url), 403, 'Forbidden').detail).toContain('Agency');
    }
  });

  it('answers 401 for missing, malformed, revoked and expired keys', async () => {
    const revoked = await createApiKey(t.db, { workspaceId: alpha.workspace.id });
    await revokeApiKey(t.db, revoked.id, t.ctx.now());
    const expired = await createApiKey(
      t.db,
      { workspaceId: alpha.workspace.id },
      { expiresAt: new Date(Date.now() - 1000) },
    );
    for (const url of ENDPOINTS) {
      expectProblem(await t.request({ method: 'GET', url }), 401, 'Unauthorized');
      expectProblem(await get('not-a-key', url), 401, 'Unauthorized');
      expectProblem(await get(revoked.key, url), 401, 'Unauthorized');
      expectProblem(await get(expired.key, url), 401, 'Unauthorized');
    }
  });

  it('documents nullable scores in the OpenAPI schema', async () => {
    const doc = (await t.request({ method: 'GET', url: '/openapi.json' })).json();
    const client = doc.components.schemas.ExportClient;
    expect(client.properties.coreScore.anyOf).toEqual(expect.arrayContaining([{ type: 'null' }]));
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(ENDPOINTS));
  });
});
