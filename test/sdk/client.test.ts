import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/admin/keys.ts';
import { createSubscriber, grantEntitlement } from '../../src/admin/tacsi.ts';
import { createSector, createWorkspace } from '../../src/admin/workspaces.ts';
import {
  AuditTimeoutError,
  createBrandHealthClient,
  ProblemError,
  ScoreLogGapError,
  unwrap,
  type BrandHealthClient,
  type BrandHealthOptions,
} from '../../sdk/src/index.ts';
import { insertFinishedAudits } from '../api/audits.fixtures.ts';
import { insertSyntheticWeeklyCells } from '../api/tacsi-fixture.ts';
import { startTestService, workspaceWithKey, type TestService } from '../helpers/service.ts';
import { signedInPerson } from '../helpers/people.ts';

// The SDK against a live service from this repository (a real listener, real HTTP). Workers are
// off here, so an audit stays `processing`: the 425 handling and the waits' timeouts are exact.
let t: TestService;
let baseUrl: string;
/** Every request the SDK sent in this file, as it left the client. */
const sent: Request[] = [];

beforeAll(async () => {
  t = await startTestService();
  baseUrl = await t.listen();
});
afterAll(async () => t?.close());

function client(apiKey: string, options: Partial<BrandHealthOptions> = {}): BrandHealthClient {
  return createBrandHealthClient({
    apiKey,
    baseUrl,
    fetch: (request) => {
      sent.push(request.clone());
      return fetch(request);
    },
    ...options,
  });
}

function sentSince(mark: number): Request[] {
  return sent.slice(mark);
}

describe('typed calls and problem errors', () => {
  it('calls a typed path and returns its body', async () => {
    const { key, workspace } = await workspaceWithKey(t.db, { plan: 'pro', name: 'Typed Co' });
    const bh = client(key);
    const ws = unwrap(await bh.GET('/v1/workspace'));
    expect(ws).toMatchObject({ id: workspace.id, name: 'Typed Co' });
  });

  it('throws a ProblemError with status, type, title, detail and the request id', async () => {
    const bh = client('bh_test_nope_nope');
    const result = await bh.GET('/v1/workspace');
    expect(result.response.status).toBe(401);
    const error = (() => {
      try {
        unwrap(result);
      } catch (e) {
        return e;
      }
    })() as ProblemError;
    expect(error).toBeInstanceOf(ProblemError);
    expect(error).toMatchObject({ status: 401, title: 'Unauthorized', type: '/problems/unauthorized' });
    expect(error.detail).not.toBe('');
    expect(error.requestId).toBe(result.response.headers.get('x-request-id'));
    expect(error.message).toContain('401 Unauthorized');
  });

  it('keeps the parameter list of a 400 and the extension fields of a 402', async () => {
    const { key, workspace } = await workspaceWithKey(
      t.db,
      { plan: 'pro' },
      { platforms: [{ platform: 'instagram' }] },
    );
    const bh = client(key);
    const bad = await bh.GET('/v1/score/history', {
      params: { query: { start_date: 'last tuesday', granularity: 'weekly' } },
    });
    const invalid = ProblemError.from(bad.error, bad.response);
    expect(invalid.status).toBe(400);
    expect(invalid.errors.map((e) => e.parameter)).toEqual(['start_date']);

    await insertFinishedAudits(t.db, workspace.id, 10, 'completed', new Date());
    await expect(bh.runAudit({}, { timeoutMs: 1_000 })).rejects.toSatisfy((e: ProblemError) => {
      expect(e).toBeInstanceOf(ProblemError);
      expect(e.status).toBe(402);
      expect(e.extensions).toMatchObject({ audits_used: 10, audits_limit: 10 });
      expect(typeof e.extensions.resets_at).toBe('string');
      return true;
    });
  });
});

describe('idempotency keys', () => {
  it('sends a fresh Idempotency-Key with every POST, and the caller’s when given', async () => {
    const { key } = await workspaceWithKey(t.db, { plan: 'agency' });
    const bh = client(key);
    const body = { name: 'Launch', start_date: '2031-03-02', duration_weeks: 4 };
    const mark = sent.length;
    unwrap(await bh.POST('/v1/campaigns', { body }));
    unwrap(await bh.POST('/v1/campaigns', { body: { ...body, name: 'Launch 2' } }));
    const keys = sentSince(mark).map((r) => r.headers.get('idempotency-key'));
    expect(keys).toHaveLength(2);
    for (const k of keys) expect(k).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[0]).not.toBe(keys[1]);

    // The same caller key twice: the service replays the first answer instead of creating twice.
    const headers = { 'Idempotency-Key': 'order-4711' };
    const first = await bh.POST('/v1/campaigns', { body: { ...body, name: 'Once' }, headers });
    const again = await bh.POST('/v1/campaigns', { body: { ...body, name: 'Once' }, headers });
    const created = unwrap(first);
    expect(created).toMatchObject({ name: 'Once', status: 'draft' });
    expect(unwrap(again).id).toBe(created.id);
    expect(await t.db.selectFrom('campaigns').select('id').where('name', '=', 'Once').execute()).toHaveLength(
      1,
    );
    expect(again.response.headers.get('idempotent-replayed')).toBe('true');
    expect(sent.at(-1)!.headers.get('idempotency-key')).toBe('order-4711');
  });

  it("without a key, a session's client: cookie, CSRF on changes, the workspace header, no Idempotency-Key", async () => {
    const { workspace } = await workspaceWithKey(t.db, { plan: 'agency' });
    const person = await signedInPerson(t, { workspaceId: workspace.id, role: 'member' });
    const session = (csrf: boolean) =>
      createBrandHealthClient({
        baseUrl,
        headers: { cookie: `bh_session=${person.cookie}`, 'X-Workspace-Id': workspace.id },
        requestHeaders: (method): Record<string, string> =>
          csrf && method !== 'GET' ? { 'X-CSRF-Token': person.csrf } : {},
        idempotencyKeys: false,
        fetch: (request) => {
          sent.push(request.clone());
          return fetch(request);
        },
      });
    const mark = sent.length;
    const bh = session(true);
    expect(unwrap(await bh.GET('/v1/workspace')).id).toBe(workspace.id);
    const body = { name: 'By a person', start_date: '2031-03-02', duration_weeks: 4 };
    expect(unwrap(await bh.POST('/v1/campaigns', { body }))).toMatchObject({ name: 'By a person' });
    const requests = sentSince(mark);
    expect(requests.map((r) => r.headers.get('authorization'))).toEqual([null, null]);
    expect(requests.map((r) => r.headers.get('idempotency-key'))).toEqual([null, null]);
    expect(requests.map((r) => r.headers.get('x-csrf-token'))).toEqual([null, person.csrf]);
    // Without the CSRF token the service refuses the change.
    const refused = await session(false).POST('/v1/campaigns', { body });
    expect(refused.response.status).toBe(403);
  });
});

describe('pagination', () => {
  it('campaigns: follows offset pages to the total, newest first, each once', async () => {
    const { key } = await workspaceWithKey(t.db, { plan: 'agency' });
    const bh = client(key);
    for (let i = 0; i < 7; i++) {
      unwrap(
        await bh.POST('/v1/campaigns', {
          body: { name: `C${i}`, start_date: '2031-03-02', duration_weeks: 4 },
        }),
      );
    }
    const mark = sent.length;
    const names: string[] = [];
    for await (const c of bh.campaigns({ pageSize: 3 })) names.push(c.name);
    expect(sentSince(mark)).toHaveLength(3);
    const onePage = unwrap(await bh.GET('/v1/campaigns', { params: { query: { limit: 100, offset: 0 } } }));
    expect(names).toEqual(onePage.campaigns.map((c) => c.name));
    expect(new Set(names)).toEqual(new Set(['C0', 'C1', 'C2', 'C3', 'C4', 'C5', 'C6']));
  });

  it('audits: follows offset pages newest first, and an audit started meanwhile repeats none', async () => {
    const { key, workspace } = await workspaceWithKey(t.db, { plan: 'pro' });
    const bh = client(key);
    await insertFinishedAudits(t.db, workspace.id, 3, 'completed', new Date('2026-03-01T00:00:00Z'));
    await insertFinishedAudits(t.db, workspace.id, 2, 'failed', new Date('2026-04-01T00:00:00Z'));
    const onePage = unwrap(await bh.GET('/v1/audits', { params: { query: { limit: 100, offset: 0 } } }));
    expect(onePage.total).toBe(5);
    const all = onePage.audits.map((a) => a.audit_id);

    const mark = sent.length;
    const ids: string[] = [];
    for await (const audit of bh.audits({ pageSize: 2 })) {
      ids.push(audit.audit_id);
      // After the first page, a newer audit shifts every offset by one.
      if (ids.length === 2) {
        await insertFinishedAudits(t.db, workspace.id, 1, 'completed', new Date('2026-05-01T00:00:00Z'));
      }
    }
    expect(ids).toEqual(all);
    expect(sentSince(mark).map((r) => new URL(r.url).search)).toEqual([
      '?limit=2&offset=0',
      '?limit=2&offset=2',
      '?limit=2&offset=4',
    ]);
    const failed: string[] = [];
    for await (const audit of bh.audits({ status: 'failed' })) failed.push(audit.status);
    expect(failed).toEqual(['failed', 'failed']);
  });

  it('TACSI history: follows the before cursor through the whole archive', async () => {
    await createSector(t.db, 'sdk-archive', 'SDK archive');
    const weeks = await insertSyntheticWeeklyCells(t.db, 'sdk-archive', '2025-03-16', 300);
    const subscriberId = await createSubscriber(t.db, 'SDK Research');
    await grantEntitlement(t.db, { subscriberId, kind: 'full_database', validFrom: '2024-01-01' });
    const { key } = await createApiKey(t.db, { subscriberId }, { scopes: ['read'] });
    const bh = client(key);
    const mark = sent.length;
    const ends: string[] = [];
    for await (const row of bh.tacsiHistory({ sector: 'sdk-archive' })) ends.push(row.periodEnd);
    expect(sentSince(mark)).toHaveLength(2); // 260 rows per page
    expect(ends).toEqual([...weeks].reverse());
  });

  describe('score-log export since', () => {
    let key: string;
    let clientId: string;
    const at = (iso: string) => new Date(iso);
    async function log(
      workspaceId: string,
      recordedAt: string,
      platform: 'instagram' | 'tiktok' = 'instagram',
    ) {
      await t.db
        .insertInto('score_log')
        .values({
          workspace_id: workspaceId,
          audit_id: null,
          platform,
          tier: 'micro',
          follower_count: 12_000,
          overall_score: 61.5,
          grade: 'moderate',
          part1_score: 60,
          part2_score: 62.5,
          formula_version: 'v1',
          recorded_at: at(recordedAt),
        })
        .execute();
    }
    beforeAll(async () => {
      const agency = await workspaceWithKey(t.db, {
        plan: 'agency',
        accountType: 'agency',
        name: 'SDK Agency',
      });
      key = agency.key;
      clientId = (
        await createWorkspace(t.db, { name: 'SDK Client', plan: 'pro', parentId: agency.workspace.id })
      ).id;
      await log(agency.workspace.id, '2030-01-01T00:00:00.000Z');
      await log(clientId, '2030-01-02T00:00:00.000Z');
      // Two rows at the same instant: the cursor lands on it, neither may be lost or repeated.
      await log(clientId, '2030-01-03T00:00:00.000Z', 'instagram');
      await log(clientId, '2030-01-03T00:00:00.000Z', 'tiktok');
      await log(clientId, '2030-01-04T00:00:00.000Z');
    });

    it('yields every row since the instant once, oldest first, across calls', async () => {
      const bh = client(key);
      const mark = sent.length;
      const rows: string[] = [];
      for await (const r of bh.scoreLog({ since: '2030-01-02', limit: 5 }))
        rows.push(`${r.recordedAt} ${r.platform}`);
      expect(rows).toEqual([
        '2030-01-02T00:00:00.000Z instagram',
        '2030-01-03T00:00:00.000Z instagram',
        '2030-01-03T00:00:00.000Z tiktok',
        '2030-01-04T00:00:00.000Z instagram',
      ]);
      // The second call (since the newest row) finds only the row it already had, and ends.
      expect(sentSince(mark).map((r) => new URL(r.url).searchParams.get('since'))).toEqual([
        '2030-01-02',
        '2030-01-04T00:00:00.000Z',
      ]);
    });

    it('refuses to skip rows when a call comes back full', async () => {
      const bh = client(key);
      const iterate = async () => {
        for await (const _ of bh.scoreLog({ since: new Date('2029-12-31T00:00:00Z'), limit: 2 })) void _;
      };
      await expect(iterate()).rejects.toBeInstanceOf(ScoreLogGapError);
    });

    it('follow: keeps polling and yields rows recorded later', async () => {
      const bh = client(key);
      const controller = new AbortController();
      const seen: string[] = [];
      const done = (async () => {
        for await (const r of bh.scoreLog({ since: '2030-01-04', follow: 50, signal: controller.signal })) {
          seen.push(r.recordedAt);
          if (seen.length === 1) await log(clientId, '2030-01-05T00:00:00.000Z');
          if (seen.length === 2) controller.abort();
        }
      })();
      await expect(done).rejects.toThrow();
      expect(seen).toEqual(['2030-01-04T00:00:00.000Z', '2030-01-05T00:00:00.000Z']);
    });
  });
});

describe('retries and audit waits (the audit stays processing: no workers)', () => {
  let key: string;
  let auditId: string;
  beforeAll(async () => {
    const ws = await workspaceWithKey(t.db, { plan: 'pro' }, { platforms: [{ platform: 'instagram' }] });
    key = ws.key;
    const started = await client(key).POST('/v1/audit/run', { body: {} });
    auditId = unwrap(started).audit_id;
  });

  it('retries a 425 after its Retry-After, then gives the answer back', async () => {
    // An overdue audit asks for 2 s; the clock is moved past its estimate.
    t.setNow(new Date(Date.now() + 3_600_000));
    try {
      const bh = client(key, { retry: { retries: 1 } });
      const mark = sent.length;
      const started = performance.now();
      const result = await bh.GET('/v1/audit/{audit_id}', { params: { path: { audit_id: auditId } } });
      const elapsed = performance.now() - started;
      expect(result.response.status).toBe(425);
      const retryAfter = Number(result.response.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(sentSince(mark)).toHaveLength(2);
      expect(elapsed).toBeGreaterThanOrEqual(retryAfter * 1000 - 50);
    } finally {
      t.setNow(undefined);
    }
  });

  it('does not sleep on a Retry-After longer than maxWaitMs', async () => {
    const bh = client(key, { retry: { maxWaitMs: 100 } });
    const mark = sent.length;
    const result = await bh.GET('/v1/audit/{audit_id}', { params: { path: { audit_id: auditId } } });
    expect(result.response.status).toBe(425);
    expect(sentSince(mark)).toHaveLength(1);
    expect(ProblemError.from(result.error, result.response).retryAfterSeconds).toBeGreaterThan(0.1);
  });

  it('waitForAudit: times out with AuditTimeoutError, and stops at once when aborted', async () => {
    const bh = client(key);
    await expect(bh.waitForAudit(auditId, { timeoutMs: 300 })).rejects.toSatisfy(
      (e) => e instanceof AuditTimeoutError && e.auditId === auditId,
    );
    const controller = new AbortController();
    const waiting = bh.waitForAudit(auditId, { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('user gave up')), 100);
    await expect(waiting).rejects.toThrow('user gave up');
  });

  it('waitForAudit: an unknown audit is a 404 problem, not a wait', async () => {
    await expect(client(key).waitForAudit('aud_unknown', { timeoutMs: 5_000 })).rejects.toSatisfy(
      (e) => e instanceof ProblemError && e.status === 404,
    );
  });
});
