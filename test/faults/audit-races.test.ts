import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/admin/keys.ts';
import { createWorkspace } from '../../src/admin/workspaces.ts';
import { auditsUsed } from '../../src/workspaces/queries.ts';
import { insertFinishedAudits } from '../api/audits.fixtures.ts';
import { usingPostgres } from '../helpers/database.ts';
import { startTestService, workspaceWithKey, type TestService } from '../helpers/service.ts';
import { connectPlatform } from '../../src/admin/platforms.ts';
import { expectProblemJson, http, listenOnLoopback, problemOf, type HttpResult } from './support.ts';
import { PLAN_LIMITS } from '../../src/core/catalog.ts';

// 200 concurrent POST /v1/audit/run over real sockets. On PostgreSQL (the pool runs them in
// parallel) and on PGlite (one connection: the same code path, serialised).
const CONCURRENCY = 200;
const kinds = usingPostgres() ? (['postgres', 'pglite'] as const) : (['pglite'] as const);

function tally(results: HttpResult[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const r of results) counts[r.status] = (counts[r.status] ?? 0) + 1;
  return counts;
}

describe.each(kinds)('concurrent audit starts on %s', (kind) => {
  let t: TestService;
  let origin: string;
  beforeAll(async () => {
    // PGlite even when the suite runs on PostgreSQL: no databaseUrl means the embedded database.
    t = await startTestService(kind === 'pglite' ? { databaseUrl: null } : {}, { AUTH_CACHE_TTL_MS: '5000' });
    expect(t.ctx.database.kind).toBe(kind);
    origin = await listenOnLoopback(t.app);
  });
  afterAll(async () => t?.close());

  it('starts exactly one of 200 simultaneous runs on one workspace; the rest are 409 Audit In Progress', async () => {
    const { key, workspace } = await workspaceWithKey(
      t.db,
      { plan: 'enterprise' },
      { platforms: [{ platform: 'instagram' }, { platform: 'tiktok' }] },
    );
    const results = await Promise.all(
      Array.from({ length: CONCURRENCY }, () => http(origin, 'POST', '/v1/audit/run', { key, body: {} })),
    );
    expect(tally(results)).toEqual({ 200: 1, 409: CONCURRENCY - 1 });
    for (const r of results.filter((r) => r.status === 409)) {
      expectProblemJson(problemOf(r), 409, 'Audit In Progress');
    }
    const audits = await t.db
      .selectFrom('audits')
      .select('id')
      .where('workspace_id', '=', workspace.id)
      .execute();
    expect(audits.map((a) => a.id)).toEqual([results.find((r) => r.status === 200)!.json.audit_id]);
  });

  it('never lets 200 simultaneous runs pass the monthly quota, even while audits complete mid-burst', async () => {
    // A Pro client (10 audits a month) of an agency, with 7 used: 3 left. Runs come through the
    // client's own key and through the agency's key naming the client. While each burst is in
    // flight, whatever audit is processing gets completed at once: the one-running-audit rule
    // then stops nothing, and only the quota check under the workspace lock keeps the 4th out
    // (without the lock, two starts could both count 9 used before either commits).
    const agency = await workspaceWithKey(t.db, { plan: 'agency', accountType: 'agency' });
    const client = await createWorkspace(t.db, {
      name: 'Quota race client',
      plan: 'pro',
      parentId: agency.workspace.id,
    });
    await connectPlatform(t.db, {
      workspaceId: client.id,
      platform: 'instagram',
      handle: '@quota_race',
      followers: 5000,
    });
    const limit = PLAN_LIMITS.pro.auditsPerMonth!;
    await insertFinishedAudits(t.db, client.id, limit - 3, 'completed', new Date());

    // The completing transition of the audit job (status processing -> completed), without the
    // scoring before it, so it can land between any two of the burst's transactions.
    const completed = new Set<string>();
    let maxUsedSeen = 0;
    const completeProcessing = async () => {
      const done = await t.db
        .updateTable('audits')
        .set({ status: 'completed', completed_at: new Date(), score: 50, grade: 'moderate', pillars: '{}' })
        .where('workspace_id', '=', client.id)
        .where('status', '=', 'processing')
        .returning('id')
        .execute();
      for (const { id } of done) completed.add(id);
      maxUsedSeen = Math.max(maxUsedSeen, await auditsUsed(t.db, client.id, new Date()));
    };

    const all: HttpResult[] = [];
    for (let round = 0; round < 6; round++) {
      // Fresh keys per round keep the per-key rate limit out of the picture.
      const clientKey = (await createApiKey(t.db, { workspaceId: client.id })).key;
      const agencyKey = (await createApiKey(t.db, { workspaceId: agency.workspace.id })).key;
      let inFlight = true;
      const burst = Promise.all(
        Array.from({ length: CONCURRENCY }, (_, i) =>
          i % 2 === 0
            ? http(origin, 'POST', '/v1/audit/run', { key: clientKey, body: {} })
            : http(origin, 'POST', '/v1/audit/run', { key: agencyKey, body: { workspace_id: client.id } }),
        ),
      ).finally(() => (inFlight = false));
      const completer = (async () => {
        while (inFlight) {
          await completeProcessing();
          // PGlite answers without I/O: yield so the sockets (and timers) get their turn.
          await new Promise((r) => setImmediate(r));
        }
      })();
      const results = await burst;
      await completer;
      await completeProcessing();
      all.push(...results);
      const counts = tally(results);
      expect(
        Object.keys(counts).every((s) => ['200', '402', '409'].includes(s)),
        JSON.stringify(counts),
      ).toBe(true);
      if (!counts[200] && counts[402] === CONCURRENCY) break;
    }

    const counts = tally(all);
    expect(counts[200], JSON.stringify(counts)).toBe(3);
    expect(completed.size).toBe(3);
    expect(maxUsedSeen).toBeLessThanOrEqual(limit);
    expect(await auditsUsed(t.db, client.id, new Date())).toBe(limit);
    for (const r of all.filter((r) => r.status === 402)) {
      const body = r.json;
      expectProblemJson(problemOf(r), 402, 'Audit Limit Reached');
      expect(body).toMatchObject({ audits_used: limit, audits_limit: limit });
    }
    const ws = await http(origin, 'GET', '/v1/workspace', {
      key: (await createApiKey(t.db, { workspaceId: client.id })).key,
    });
    expect(ws.json).toMatchObject({ audits_used: limit, audits_limit: limit });
  });
});
