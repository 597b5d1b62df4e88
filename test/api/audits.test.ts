import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweepStaleAudits } from '../../src/audits/jobs.ts';
import { AUDIT_QUEUE } from '../../src/audits/policy.ts';
import { createSector, createWorkspace } from '../../src/admin/workspaces.ts';
import { createApiKey } from '../../src/admin/keys.ts';
import { connectPlatform } from '../../src/admin/platforms.ts';
import { expectProblem, startTestService, workspaceWithKey, type TestService } from '../helpers/service.ts';
import { insertFinishedAudits, runJob, seedMetrics } from './audits.fixtures.ts';
import { addDays } from '../../src/core/days.ts';
import { sealedAt } from '../../src/infra/crypto/sealed-columns.ts';

let t: TestService;
beforeAll(async () => {
  t = await startTestService({ allowLoopbackFetch: true });
});
afterAll(async () => t?.close());

const run = (key: string, payload?: object, headers: Record<string, string> = {}) =>
  t.request({ method: 'POST', url: '/v1/audit/run', key, headers, ...(payload ? { payload } : {}) });
const read = (key: string, id: string) => t.request({ method: 'GET', url: `/v1/audit/${id}`, key });

async function proWithMetrics(
  platforms: Array<'instagram' | 'tiktok' | 'youtube'> = ['instagram', 'youtube'],
) {
  const fixture = await workspaceWithKey(
    t.db,
    { plan: 'pro' },
    { platforms: platforms.map((platform) => ({ platform })) },
  );
  await seedMetrics(t.db, fixture.workspace.id, { platforms });
  return fixture;
}

describe('POST /v1/audit/run: errors', () => {
  it('401 without a key, 403 Plan Required on free, 403 Forbidden without write scope', async () => {
    expectProblem(
      await t.request({ method: 'POST', url: '/v1/audit/run', payload: {} }),
      401,
      'Unauthorized',
    );
    const free = await workspaceWithKey(t.db, { plan: 'free' }, { platforms: [{ platform: 'instagram' }] });
    // The problem names the plan that allows it, for a client to say so in its own words.
    expect(expectProblem(await run(free.key, {}), 403, 'Plan Required').required_plan).toBe('pro');
    const readOnly = await workspaceWithKey(t.db, { plan: 'pro' }, { scopes: ['read'] });
    expectProblem(await run(readOnly.key, {}), 403, 'Forbidden');
  });

  it('422 No Platforms Connected, even when platforms are named', async () => {
    const { key } = await workspaceWithKey(t.db, { plan: 'pro' });
    expectProblem(await run(key, {}), 422, 'No Platforms Connected');
    expectProblem(await run(key, { platforms: ['instagram'] }), 422, 'No Platforms Connected');
  });

  it('400 for lookback_days outside 1-365, bad platforms, non-https webhook_url and unknown fields', async () => {
    const { key } = await workspaceWithKey(t.db, { plan: 'pro' }, { platforms: [{ platform: 'instagram' }] });
    for (const lookback_days of [0, 366, 2.5, 'ninety']) {
      const body = expectProblem(await run(key, { lookback_days }), 400, 'Invalid Parameter');
      expect(body.errors[0].parameter).toBe('lookback_days');
    }
    let body = expectProblem(await run(key, { platforms: ['instagram', 'instagram'] }), 400);
    expect(body.detail).toContain('instagram more than once');
    body = expectProblem(await run(key, { platforms: ['myspace'] }), 400);
    expect(body.detail).toContain('"myspace"');
    body = expectProblem(
      await run(key, { platforms: ['instagram', 'tiktok', 'youtube'] }),
      400,
      'Platform Not Connected',
    );
    expect(body.detail).toContain('tiktok, youtube are not connected');
    expectProblem(await run(key, { platforms: [] }), 400);
    for (const webhook_url of [
      'http://example.com/hook',
      'not a url',
      'https://user:pw@example.com/',
      'https://10.0.0.7/hook',
      42,
    ]) {
      body = expectProblem(await run(key, { webhook_url }), 400, 'Invalid URL');
      expect(body.errors[0].parameter).toBe('webhook_url');
    }
    body = expectProblem(await run(key, { lookback: 30 }), 400);
    expect(body.errors[0].parameter).toBe('lookback');
    // In people's words, not the validator's ("must NOT have additional properties").
    expect(body.detail).toBe(
      'lookback is not a field this request accepts: remove it, or check its spelling against the API reference',
    );
    body = expectProblem(await run(key, { lookback_days: '30' }), 400);
    expect(body.detail).toBe('lookback_days must be a whole number');
    // None of these started an audit.
    const count = await t.db
      .selectFrom('audits')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirst();
    expect(Number(count!.n)).toBe(0);
  });

  it("404 for another tenant's workspace_id, and for an unknown one", async () => {
    const mine = await workspaceWithKey(t.db, { plan: 'pro' }, { platforms: [{ platform: 'instagram' }] });
    const other = await workspaceWithKey(t.db, { plan: 'pro' }, { platforms: [{ platform: 'instagram' }] });
    expectProblem(await run(mine.key, { workspace_id: other.workspace.id }), 404, 'Not Found');
    expectProblem(await run(mine.key, { workspace_id: 'ws_nope' }), 404, 'Not Found');
  });
});

describe('audit lifecycle', () => {
  it('starts with defaults, answers 425 while processing, then the completed result', async () => {
    const { key, workspace } = await proWithMetrics();
    const res = await run(key);
    expect(res.statusCode).toBe(200);
    const start = res.json();
    expect(start).toMatchObject({
      status: 'processing',
      workspace_id: workspace.id,
      platforms_included: ['instagram', 'youtube'],
      lookback_days: 90,
    });
    expect(start.audit_id).toMatch(/^aud_/);
    const eta = Date.parse(start.estimated_completion);
    expect(eta).toBeGreaterThan(Date.now());

    const early = expectProblem(await read(key, start.audit_id), 425, 'Too Early');
    const retryAfter = Number(early && (await read(key, start.audit_id)).headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(Math.ceil((eta - Date.now()) / 1000) + 1);

    // The job was enqueued with the audit.
    const jobs = await t.ctx.jobs.boss.findJobs(AUDIT_QUEUE, { data: { auditId: start.audit_id } });
    expect(jobs).toHaveLength(1);

    expect(await runJob(t.ctx, start.audit_id)).toBe('completed');
    const done = await read(key, start.audit_id);
    expect(done.statusCode).toBe(200);
    const audit = done.json();
    expect(audit).toMatchObject({
      audit_id: start.audit_id,
      status: 'completed',
      workspace_id: workspace.id,
    });
    expect(audit.score).toBeGreaterThanOrEqual(0);
    expect(audit.score).toBeLessThanOrEqual(100);
    expect(Object.keys(audit.pillars).sort()).toEqual([
      'impact',
      'momentum',
      'presence',
      'reach',
      'sentiment',
    ]);
    for (const p of Object.values<any>(audit.pillars)) {
      expect(Number.isInteger(p.score)).toBe(true);
      expect(p.change).toBe('+0.0');
      expect(['green', 'yellow', 'red']).toContain(p.grade);
      expect(p.value).toBeUndefined();
      // Formula v2 extension: each pillar's 90% interval holds its value.
      expect(p.interval.low).toBeLessThanOrEqual(p.interval.high);
    }
    expect(audit.formula_version).toBe('v3');
    expect(audit.interval.low).toBeLessThanOrEqual(audit.score);
    expect(audit.interval.high).toBeGreaterThanOrEqual(audit.score);
    expect(audit.stale).toBe(false);
    expect(audit.latest_data_day).toBe(new Date().toISOString().slice(0, 10));
    expect(Array.isArray(audit.authenticity_flags)).toBe(true);
    // Formula v2: exactly the pillars whose whole 90% interval lies below the median (50) are recommended.
    const below = Object.entries<any>(audit.pillars)
      .filter(([, p]) => p.interval.high < 50)
      .map(([k]) => k);
    expect(audit.recommendations.map((r: any) => r.pillar).sort()).toEqual(below.sort());
    expect(audit.recommendations.map((r: any) => r.priority)).toEqual(
      audit.recommendations.map((_: any, i: number) => i + 1),
    );
    expect(audit.industry_benchmark.your_score).toBe(audit.score);
    // No sector: no peer group, so no benchmark figures (docs/audits.md).
    expect(audit.industry_benchmark).toMatchObject({
      industry_average: null,
      percentile: null,
      basis: { status: 'no_sector' },
    });

    const logs = await t.db
      .selectFrom('score_log')
      .selectAll()
      .where('audit_id', '=', start.audit_id)
      .execute();
    expect(logs.map((l) => l.platform).sort()).toEqual(['instagram', 'youtube']);
    const today = new Date().toISOString().slice(0, 10);
    const daily = await t.db
      .selectFrom('daily_scores')
      .selectAll()
      .where('workspace_id', '=', workspace.id)
      .where('formula_version', '=', 'v3')
      .where('day', '=', today)
      .executeTakeFirst();
    expect(daily?.formula_version).toBe('v3');
    const events = await t.db
      .selectFrom('events')
      .selectAll()
      .where('workspace_id', '=', workspace.id)
      .execute();
    expect(events.map((e) => e.type)).toEqual(['audit.completed']);
    expect(events[0]!.data).toEqual({
      audit_id: start.audit_id,
      workspace_id: workspace.id,
      score: audit.score,
      grade: audit.grade,
      completed_at: audit.completed_at,
    });

    // A second run of the same job (a retry after a crash) changes nothing.
    expect(await runJob(t.ctx, start.audit_id)).toBe('already-finished');
    expect(
      await t.db.selectFrom('score_log').select('id').where('audit_id', '=', start.audit_id).execute(),
    ).toHaveLength(2);
  });

  it('measures pillar changes against the previous audit and emits score.changed when the score moves', async () => {
    const { key, workspace } = await proWithMetrics(['instagram']);
    const first = (await run(key)).json();
    await runJob(t.ctx, first.audit_id);
    const before = (await read(key, first.audit_id)).json();

    // A much better last 90 days: a far larger audience with more engagement and warmer talk (a seed
    // the manipulation screen does not flag: the new figures hold for the whole window).
    await seedMetrics(t.db, workspace.id, {
      platforms: ['instagram'],
      seed: 107,
      days: 90,
      followers: 2_000_000,
    });
    const second = (await run(key, { webhook_url: 'https://127.0.0.1:9/audit-hook' })).json();
    await runJob(t.ctx, second.audit_id);
    const after = (await read(key, second.audit_id)).json();
    for (const k of Object.keys(after.pillars)) {
      // change is measured on one-decimal values, score is rounded: they differ by less than 1.
      const change = after.pillars[k].change;
      expect(change).toMatch(/^[+-]\d+\.\d$/);
      expect(
        Math.abs(Number(change) - (after.pillars[k].score - before.pillars[k].score)),
      ).toBeLessThanOrEqual(1);
    }
    expect(Object.values<any>(after.pillars).some((p) => p.change !== '+0.0')).toBe(true);
    const events = await t.db
      .selectFrom('events')
      .select(['type', 'data'])
      .where('workspace_id', '=', workspace.id)
      .orderBy('created_at')
      .execute();
    // Formulas v2 and v3: a change is a move of at least 1.0 outside the previous score's 90% interval.
    const moved =
      Math.abs(after.score - before.score) >= 1 &&
      (after.score < before.interval.low || after.score > before.interval.high);
    expect(events.filter((e) => e.type === 'score.changed')).toHaveLength(moved ? 1 : 0);
    expect(moved).toBe(true);
    const changed = events.find((e) => e.type === 'score.changed')!.data as any;
    expect(changed).toMatchObject({
      previous_score: before.score,
      score: after.score,
      audit_id: second.audit_id,
    });
    // The one-off webhook_url rides along with the audit.completed fan-out job.
    const fanout = (await t.ctx.jobs.boss.findJobs<any>('webhooks.fanout')).filter((j) =>
      j.data.extra?.some((e: { url: string }) => e.url === 'https://127.0.0.1:9/audit-hook'),
    );
    expect(fanout).toHaveLength(1);
    // Its secret travels sealed, never in plaintext, and is the one the audit run returned.
    const { secret, auditId } = fanout[0]!.data.extra[0];
    expect(auditId).toBe(second.audit_id);
    expect(t.ctx.keyRing.open(secret, sealedAt('audits.webhook_secret', auditId))).toBe(
      second.webhook_secret,
    );
  });

  it('fails an audit with nothing to score, answers it as failed, and does not count it', async () => {
    const { key, workspace } = await workspaceWithKey(
      t.db,
      { plan: 'pro' },
      { platforms: [{ platform: 'tiktok' }] },
    );
    const start = (await run(key)).json();
    expect(await runJob(t.ctx, start.audit_id)).toBe('failed');
    const res = await read(key, start.audit_id);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      audit_id: start.audit_id,
      status: 'failed',
      workspace_id: workspace.id,
    });
    expect(res.json().failure_reason).toContain('No metric data for tiktok');
    const ws = (await t.request({ method: 'GET', url: '/v1/workspace', key })).json();
    expect(ws.audits_used).toBe(0);
    // And it no longer blocks a new audit.
    expect((await run(key)).statusCode).toBe(200);
  });

  it('retries transient errors and fails the audit only on the last attempt', async () => {
    const { key } = await proWithMetrics(['instagram']);
    const start = (await run(key)).json();
    const brokenJobs = Object.create(t.ctx.jobs);
    brokenJobs.enqueue = async () => {
      throw new Error('queue unavailable');
    };
    brokenJobs.onError = () => {};
    const broken = { ...t.ctx, jobs: brokenJobs };
    await expect(runJob(broken, start.audit_id, 0)).rejects.toThrow('queue unavailable');
    await expect(runJob(broken, start.audit_id, 2)).rejects.toThrow('queue unavailable');
    const row = await t.db
      .selectFrom('audits')
      .selectAll()
      .where('id', '=', start.audit_id)
      .executeTakeFirstOrThrow();
    expect(row.status).toBe('processing');
    expect(
      await t.db.selectFrom('score_log').select('id').where('audit_id', '=', start.audit_id).execute(),
    ).toHaveLength(0);
    expect(await runJob(broken, start.audit_id, 3)).toBe('failed');
    const res = (await read(key, start.audit_id)).json();
    expect(res.status).toBe('failed');
    expect(res.failure_reason).toContain('4 attempts');
  });

  it("GET answers 404 for unknown ids and for another tenant's audit", async () => {
    const a = await proWithMetrics(['instagram']);
    const b = await workspaceWithKey(t.db, { plan: 'pro' });
    const start = (await run(a.key)).json();
    expectProblem(await read(b.key, start.audit_id), 404, 'Not Found');
    expectProblem(await read(a.key, 'aud_unknown'), 404, 'Not Found');
    expectProblem(
      await t.request({ method: 'GET', url: `/v1/audit/${start.audit_id}` }),
      401,
      'Unauthorized',
    );
    const free = await workspaceWithKey(t.db, { plan: 'free' });
    expectProblem(await read(free.key, start.audit_id), 403, 'Plan Required');
  });

  it('lets an agency audit its client, but not another agency’s client', async () => {
    const agency = await workspaceWithKey(t.db, { plan: 'agency', accountType: 'agency' });
    const client = await createWorkspace(t.db, {
      name: 'Client',
      plan: 'pro',
      parentId: agency.workspace.id,
    });
    await connectPlatform(t.db, { workspaceId: client.id, platform: 'instagram', handle: '@client' });
    await seedMetrics(t.db, client.id, { platforms: ['instagram'] });
    const res = await run(agency.key, { workspace_id: client.id, lookback_days: 30 });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ workspace_id: client.id, lookback_days: 30 });
    const clientKey = await createApiKey(t.db, { workspaceId: client.id });
    expectProblem(await run(clientKey.key, { workspace_id: agency.workspace.id }), 404, 'Not Found');
  });
});

describe('industry benchmark', () => {
  it('never computes from other workspaces’ stored scores: without a published cell it is null, with the reason', async () => {
    await createSector(t.db, 'bench-retail', 'Retail');
    const today = new Date().toISOString().slice(0, 10);
    // Peers with recent stored scores, which the old benchmark averaged exactly.
    for (const score of [5, 10, 95]) {
      const ws = await createWorkspace(t.db, { name: 'Peer', plan: 'pro', sector: 'bench-retail' });
      await t.db
        .insertInto('daily_scores')
        .values({
          workspace_id: ws.id,
          day: addDays(today, -1),
          score,
          presence: score,
          reach: score,
          impact: score,
          sentiment: score,
          momentum: score,
          formula_version: 'v1',
        })
        .execute();
    }
    const { key, workspace } = await workspaceWithKey(
      t.db,
      { plan: 'pro', sector: 'bench-retail' },
      { platforms: [{ platform: 'instagram' }] },
    );
    await seedMetrics(t.db, workspace.id, { platforms: ['instagram'] });
    const start = (await run(key)).json();
    await runJob(t.ctx, start.audit_id);
    const audit = (await read(key, start.audit_id)).json();
    // Derived from published TACSI statistics only (test/api/privacy-attacks.test.ts covers the published case).
    expect(audit.industry_benchmark).toMatchObject({
      your_score: audit.score,
      industry_average: null,
      percentile: null,
      basis: { status: 'not_published', sector: 'bench-retail' },
    });
  });
});

describe('concurrency and quota', () => {
  it('20 parallel runs on one workspace: exactly one starts, the rest are 409 Audit In Progress', async () => {
    const { key, workspace } = await proWithMetrics(['instagram']);
    const results = await Promise.all(Array.from({ length: 20 }, () => run(key, {})));
    const codes = results.map((r) => r.statusCode).sort();
    expect(codes.filter((c) => c === 200)).toHaveLength(1);
    expect(codes.filter((c) => c === 409)).toHaveLength(19);
    for (const r of results.filter((x) => x.statusCode === 409)) expectProblem(r, 409, 'Audit In Progress');
    const rows = await t.db
      .selectFrom('audits')
      .select('id')
      .where('workspace_id', '=', workspace.id)
      .execute();
    expect(rows).toHaveLength(1);
  });

  it('never exceeds the monthly quota under parallel runs; failed audits do not count', async () => {
    const { key, workspace } = await proWithMetrics(['instagram']);
    const now = new Date();
    await insertFinishedAudits(t.db, workspace.id, 7, 'completed', now); // pro: 10 a month -> 3 left
    await insertFinishedAudits(t.db, workspace.id, 4, 'failed', now);
    const lastMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1) - 86_400_000);
    await insertFinishedAudits(t.db, workspace.id, 5, 'completed', lastMonth);

    let started = 0;
    for (let round = 0; round < 5; round++) {
      const results = await Promise.all(Array.from({ length: 6 }, () => run(key, {})));
      const ok = results.filter((r) => r.statusCode === 200);
      for (const r of results) expect([200, 402, 409]).toContain(r.statusCode);
      expect(ok.length).toBeLessThanOrEqual(1);
      if (round < 3) expect(ok).toHaveLength(1);
      else for (const r of results) expectProblem(r, 402, 'Audit Limit Reached');
      for (const r of ok) {
        started++;
        await runJob(t.ctx, r.json().audit_id);
      }
    }
    expect(started).toBe(3);
    const ws = (await t.request({ method: 'GET', url: '/v1/workspace', key })).json();
    expect(ws).toMatchObject({ audits_used: 10, audits_limit: 10 });
  });

  it('replays an Idempotency-Key and rejects its reuse with another body', async () => {
    const { key } = await proWithMetrics(['instagram']);
    const headers = { 'idempotency-key': 'audit-once-1' };
    const first = await run(key, { lookback_days: 60 }, headers);
    const again = await run(key, { lookback_days: 60 }, headers);
    expect(first.statusCode).toBe(200);
    expect(again.statusCode).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json().audit_id).toBe(first.json().audit_id);
    expectProblem(await run(key, { lookback_days: 30 }, headers), 422, 'Idempotency Key Reused');
    // A new key is a new request: the first audit is still running.
    expectProblem(
      await run(key, { lookback_days: 60 }, { 'idempotency-key': 'audit-once-2' }),
      409,
      'Audit In Progress',
    );
  });
});

describe('sweeper', () => {
  it('fails audits whose job is gone, and any audit an hour past its estimate; a late job then does nothing', async () => {
    const lost = await proWithMetrics(['instagram']);
    const start = (await run(lost.key)).json();
    const eta = new Date(start.estimated_completion);
    try {
      t.setNow(new Date(eta.getTime() + 10 * 60_000));
      expect(await sweepStaleAudits(t.ctx)).toEqual([]); // its job is still queued: leave it
      const [job] = await t.ctx.jobs.boss.findJobs(AUDIT_QUEUE, { data: { auditId: start.audit_id } });
      await t.ctx.jobs.boss.cancel(AUDIT_QUEUE, job!.id);
      expect(await sweepStaleAudits(t.ctx)).toEqual([start.audit_id]);
      const failed = (await read(lost.key, start.audit_id)).json();
      expect(failed).toMatchObject({ status: 'failed' });
      expect(failed.failure_reason).toContain('lost');

      t.setNow(undefined);
      const stuck = await proWithMetrics(['instagram']);
      const second = (await run(stuck.key)).json();
      t.setNow(new Date(Date.parse(second.estimated_completion) + 2 * 3600_000));
      expect(await sweepStaleAudits(t.ctx)).toContain(second.audit_id);
      expect(await runJob(t.ctx, second.audit_id)).toBe('already-finished');
      expect((await read(stuck.key, second.audit_id)).json().status).toBe('failed');
    } finally {
      t.setNow(undefined);
    }
  });
});
