import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace, setParent } from '../../src/admin/workspaces.ts';
import type { Platform } from '../../src/core/catalog.ts';
import { utcDay } from '../../src/core/days.ts';
import type { Service } from '../../src/service.ts';
import { usingPostgres } from '../helpers/database.ts';
import { insertScoreLog } from '../helpers/score-log.ts';
import { settled } from '../helpers/settled.ts';
import { secondInstance, startTestService, workspaceWithKey, type TestService } from '../helpers/service.ts';
import { runJob, seedMetrics } from './audits.fixtures.ts';

/**
 * GET /v1/export/scores pages from memory (src/exports/export-cache.ts), dropped by the NOTIFY the
 * triggers of migration 0063 send in the transaction of every score_log or workspace change. Every
 * check reads through HTTP after a committed change: a missed invalidation shows as the old page.
 */
const NOW = new Date();

const ENV = {
  PUBLIC_URL: 'http://brandhealth.test',
  ENCRYPTION_KEYS: `k1:${randomBytes(32).toString('base64')}`,
  // The helper turns the cache off for the other tests (read-after-write on PostgreSQL): on here.
  EXPORT_CACHE_TTL_MS: '600000',
};
let t: TestService;
beforeAll(async () => {
  t = await startTestService({}, ENV);
  t.setNow(NOW);
});
afterAll(async () => t?.close());

const URL = '/v1/export/scores?limit=1000';
const get = (key: string, url = URL) => t.request({ method: 'GET', url, key });

/**
 * A page read back after a write: on PGlite the notification is handled during the writing query, so
 * the first read already sees the change; on PostgreSQL it travels over the listening connection.
 */
const settledPage = <T>(read: () => Promise<T>, done: (value: T) => boolean) =>
  settled(read, done, { firstReadOnly: !usingPostgres() });
const scoreLog = (workspaceId: string, recordedAt: string, platform?: Platform) =>
  insertScoreLog(t.db, workspaceId, recordedAt, platform);

type Page = {
  scope: { workspaceId: string; workspaceName: string; clientCount: number };
  count: number;
  scores: Array<{ workspaceId: string; workspaceName: string; recordedAt: string }>;
};
const page = async (key: string, url = URL): Promise<Page> => {
  const res = await get(key, url);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
};

async function agencyWithClient(name: string) {
  const agency = await workspaceWithKey(t.db, { plan: 'agency', accountType: 'agency', name });
  const client = await createWorkspace(t.db, {
    name: `${name} client`,
    plan: 'pro',
    parentId: agency.workspace.id,
  });
  return { ...agency, client };
}

describe('GET /v1/export/scores from memory', () => {
  it('keeps the page in memory: a write that sends no notification is not seen', async () => {
    const a = await agencyWithClient('Cached');
    await scoreLog(a.client.id, '2030-01-01T00:00:00Z');
    // Triggers off for one transaction (an operator's bulk load could do the same): the cached page is
    // served, as JSON and as CSV, which shows that the cache answers and that the triggers are what
    // invalidate it. On PostgreSQL the insert's own NOTIFY may still be on its way when the first page
    // is cached, and empty the cache once at any point of a round; a trigger-less write sends none, so
    // the next round is free of it.
    const rounds: string[] = [];
    let served = false;
    for (let round = 1; round <= 3 && !served; round++) {
      const first = await get(a.key);
      expect(first.statusCode).toBe(200);
      expect(first.headers['content-type']).toBe('application/json; charset=utf-8');
      const cached = (first.json() as { scores: Array<{ overallScore: number }> }).scores[0]!.overallScore;
      const written = 10 + round;
      await t.db.transaction().execute(async (trx) => {
        await sql`SET LOCAL session_replication_role = replica`.execute(trx);
        await sql`UPDATE score_log SET overall_score = ${written} WHERE workspace_id = ${a.client.id}`.execute(
          trx,
        );
      });
      const second = await get(a.key);
      const csv = await t.request({ method: 'GET', url: URL, key: a.key, headers: { accept: 'text/csv' } });
      expect(csv.statusCode).toBe(200);
      served =
        cached !== written &&
        second.body === first.body &&
        csv.body.includes(`,${cached},`) &&
        !csv.body.includes(`,${written},`);
      rounds.push(`cached ${cached}, written ${written}:\n${second.body}\n${csv.body}`);
    }
    expect(served, rounds.join('\n')).toBe(true);
  });

  it('shows a new score_log row at once, written directly or by an audit', async () => {
    const a = await agencyWithClient('Fresh');
    await scoreLog(a.client.id, '2030-01-01T00:00:00Z');
    expect((await page(a.key)).count).toBe(1);
    expect((await page(a.key)).count).toBe(1);

    await scoreLog(a.client.id, '2030-01-02T00:00:00Z', 'tiktok');
    const direct = await settledPage(
      () => page(a.key),
      (p) => p.count === 2,
    );
    expect(direct.scores.map((s) => s.recordedAt)).toEqual([
      '2030-01-02T00:00:00.000Z',
      '2030-01-01T00:00:00.000Z',
    ]);
    // Another (limit, since) of the same owner is invalidated with it.
    expect((await page(a.key, `${URL}&since=2030-01-02`)).count).toBe(1);

    // An audit of the agency itself writes its score-log rows in its completion transaction.
    const { workspace, key } = await workspaceWithKey(
      t.db,
      { plan: 'agency', accountType: 'agency', name: 'Audited' },
      { platforms: [{ platform: 'youtube' }] },
    );
    await seedMetrics(t.db, workspace.id, { platforms: ['youtube'], asOf: utcDay(NOW) });
    expect((await page(key)).count).toBe(0);
    const run = await t.request({ method: 'POST', url: '/v1/audit/run', key, payload: {} });
    expect(run.statusCode, run.body).toBe(200);
    expect(await runJob(t.ctx, run.json().audit_id)).toBe('completed');
    const audited = await settledPage(
      () => page(key),
      (p) => p.count > 0,
    );
    expect(audited.scores[0]).toMatchObject({ workspaceId: workspace.id, workspaceName: 'Audited' });
  });

  it("never serves one tenant's page to another; follows renames, new clients, moves and deletions", async () => {
    const x = await agencyWithClient('Xeno');
    const y = await agencyWithClient('Yarrow');
    await scoreLog(x.client.id, '2030-01-01T00:00:00Z');
    await scoreLog(y.client.id, '2030-01-03T00:00:00Z');
    const clientKey = (await workspaceWithKey(t.db, { plan: 'agency', parentId: x.workspace.id })).key;

    // The same (limit, since) cached for X: Y and X's client each get their own page.
    const seenByX = await page(x.key);
    expect(await page(x.key)).toEqual(seenByX);
    const seenByY = await page(y.key);
    expect(seenByY.scope.workspaceId).toBe(y.workspace.id);
    expect(JSON.stringify(seenByY)).not.toContain(x.client.id);
    expect(JSON.stringify(await page(clientKey))).not.toContain(x.client.id);
    expect(seenByX.scores.map((s) => s.workspaceId)).toEqual([x.client.id]);

    // Renamed client: its rows carry the new name.
    await t.db
      .updateTable('workspaces')
      .set({ name: 'Xeno renamed' })
      .where('id', '=', x.client.id)
      .execute();
    expect(
      (
        await settledPage(
          () => page(x.key),
          (p) => p.scores[0]?.workspaceName === 'Xeno renamed',
        )
      ).scores[0]!.workspaceName,
    ).toBe('Xeno renamed');

    // A new client counts at once, before it has any score.
    const before = (await page(x.key)).scope.clientCount;
    const newcomer = await createWorkspace(t.db, { name: 'New', plan: 'pro', parentId: x.workspace.id });
    expect(
      (
        await settledPage(
          () => page(x.key),
          (p) => p.scope.clientCount === before + 1,
        )
      ).scope.clientCount,
    ).toBe(before + 1);

    // The client moves to Y: X loses its rows, Y gains them.
    await setParent(t.db, x.client.id, y.workspace.id);
    const xAfter = await settledPage(
      () => page(x.key),
      (p) => p.count === 0,
    );
    expect(xAfter.scores).toEqual([]);
    const yAfter = await settledPage(
      () => page(y.key),
      (p) => p.count === 2,
    );
    expect(yAfter.scores.map((s) => s.workspaceId)).toEqual([y.client.id, x.client.id]);

    // Deleted: its rows go with it (ON DELETE CASCADE), and Y's page follows.
    await t.db.deleteFrom('workspaces').where('id', '=', x.client.id).execute();
    const yDeleted = await settledPage(
      () => page(y.key),
      (p) => p.count === 1,
    );
    expect(yDeleted.scores.map((s) => s.workspaceId)).toEqual([y.client.id]);
    await t.db.deleteFrom('workspaces').where('id', '=', newcomer.id).execute();
  });
});

// Two instances on one PostgreSQL database (PGlite is one process's database: nothing to share).
describe.skipIf(!usingPostgres())('GET /v1/export/scores cached on two instances', () => {
  let b: Service;
  beforeAll(async () => {
    b = await secondInstance(t, ENV, () => NOW);
  }, 60_000);
  afterAll(async () => b?.stop());

  it("a score_log row written through A reaches B's cached page before its TTL", async () => {
    const a = await agencyWithClient('Shared');
    await scoreLog(a.client.id, '2030-01-01T00:00:00Z');
    const onB = async (): Promise<Page> =>
      (await b.app.inject({ method: 'GET', url: URL, headers: { authorization: `Bearer ${a.key}` } })).json();
    expect((await onB()).count).toBe(1);
    expect((await onB()).count).toBe(1);
    await scoreLog(a.client.id, '2030-01-02T00:00:00Z');
    const answer = await settled(onB, (page) => page.count === 2);
    expect(answer.count).toBe(2);
  });
});
