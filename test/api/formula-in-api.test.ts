// The current formula (v3) in the service (docs/scoring.md "Formula v3 in the API"): the extension fields of the
// score, history that never mixes formulas, score.changed gated by the interval on the daily
// recompute of a sync, and `brandhealth scores recompute`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createWorkspace } from '../../src/admin/workspaces.ts';
import { connectPlatform } from '../../src/admin/platforms.ts';
import { METHODOLOGY_FORMULA } from '../../src/tacsi/cohorts.ts';
import { INDEX_FORMULA } from '../../src/scoring/daily-scores.ts';
import { runCli } from '../../src/cli/program.ts';
import { runSyncJob } from '../../src/platforms/sync-worker.ts';
import { startSimulator, type Simulator } from '../../simulator/server.ts';
import { addDays, utcDay } from '../../src/core/days.ts';
import { compositeGradeV2 } from '../../src/scoring/engine/index.ts';
import { connectThroughSimulator } from '../helpers/simulator-oauth.ts';
import { expectProblem, startTestService, workspaceWithKey, type TestService } from '../helpers/service.ts';
import { insertCompletedAudit, runJob, seedMetrics } from './audits.fixtures.ts';

let t: TestService;
let sim: Simulator;
const NOW = new Date();
const TODAY = utcDay(NOW);
// The simulated accounts start 20 days behind the service's today; each test day advances both.
const START = addDays(TODAY, -20);
const at = (day: string) => new Date(`${day}T06:00:00Z`);

beforeAll(async () => {
  sim = await startSimulator({ speed: 0, startDay: START });
  t = await startTestService({}, { SIMULATOR_URL: sim.url, PUBLIC_URL: 'http://brandhealth.test' });
});
afterAll(async () => {
  await t?.close();
  await sim?.close();
});

const get = (key: string, url: string) => t.request({ method: 'GET', url, key });

async function scoreEvents(workspaceId: string) {
  return t.db
    .selectFrom('events')
    .select('data')
    .where('workspace_id', '=', workspaceId)
    .where('type', '=', 'score.changed')
    .execute();
}

/** A real-time-scored client workspace under a new agency (whose key reads the client's score). */
async function realtimeClient(name: string) {
  const agency = await workspaceWithKey(t.db, {
    plan: 'agency',
    accountType: 'agency',
    realtimeScoring: true,
  });
  const client = await createWorkspace(t.db, {
    name,
    plan: 'pro',
    parentId: agency.workspace.id,
    realtimeScoring: true,
  });
  return { agency, client };
}

/** Runs CLI arguments on this service's context, as the admin socket does for `brandhealth`. */
async function cli(...argv: string[]) {
  let out = '';
  let err = '';
  const code = await runCli(argv, { out: (s) => (out += s), err: (s) => (err += s) }, (fn) => fn(t.ctx));
  return { code, out, err };
}

describe('score.changed on the daily recompute', () => {
  it('a stationary account synced daily for two weeks emits none; a real drop emits one', async () => {
    t.setNow(at(START));
    try {
      const { workspace, key } = await workspaceWithKey(t.db, { plan: 'agency' });
      const id = await connectThroughSimulator(t, {
        key,
        workspaceId: workspace.id,
        platform: 'instagram',
        login: 'stationary',
      });
      let round = 0;
      const sync = async () =>
        expect(await runSyncJob(t.ctx, { connectionId: id, round: `r${round++}`, attempt: 1 })).toBe(
          'synced',
        );
      await sync();
      const scores: number[] = [];
      for (let d = 1; d <= 14; d++) {
        sim.advanceDays(1);
        t.setNow(at(addDays(START, d)));
        await sync();
        const row = await t.db
          .selectFrom('daily_scores')
          .select(['score', 'score_low', 'score_high', 'formula_version'])
          .where('workspace_id', '=', workspace.id)
          .where('formula_version', '=', 'v3')
          .where('day', '=', addDays(START, d))
          .executeTakeFirstOrThrow();
        expect(row.formula_version).toBe('v3');
        // The latest day carries its interval: what the next sync compares against.
        expect(row.score_low).toBeLessThanOrEqual(row.score);
        expect(row.score_high).toBeGreaterThanOrEqual(row.score);
        scores.push(row.score);
      }
      // The score does move from day to day (new data), yet never beyond its own interval.
      expect(new Set(scores).size).toBeGreaterThan(1);
      expect(await scoreEvents(workspace.id)).toHaveLength(0);

      // A real move: a crisis over the last three weeks (days the next sync does not fetch again, so
      // the recompute reads them): likes collapse, comments x5 and 200 mentions a day, 80% negative.
      const today = addDays(START, 14);
      await sql`
        UPDATE metric_snapshots SET likes = likes / 10, saves = saves / 10, comments = comments * 5,
               mentions = mentions + 200,
               sentiment_negative = (4 * (comments * 5 + mentions + 200)) / 5,
               sentiment_positive = 0, sentiment_neutral = (comments * 5 + mentions + 200) / 5
         WHERE workspace_id = ${workspace.id} AND day BETWEEN ${addDays(today, -20)}::date AND ${addDays(today, -3)}::date
      `.execute(t.db);
      sim.advanceDays(1);
      t.setNow(at(addDays(today, 1)));
      await sync();
      const changed = await scoreEvents(workspace.id);
      expect(changed).toHaveLength(1);
      const data = changed[0]!.data as {
        change: string;
        score: number;
        previous_score: number;
        explanation: { summary: string; drivers: { points: number }[] } | null;
      };
      expect(Number(data.change)).toBeLessThanOrEqual(-1);
      expect(data.score).toBeLessThan(data.previous_score);
      // Explained from the drivers stored with the previous day's score.
      expect(data.explanation?.summary).toMatch(/^The score fell /);
      expect(data.explanation!.drivers[0]!.points).toBeLessThan(0);
    } finally {
      t.setNow(undefined);
    }
  }, 120_000);
});

describe('GET /v1/score under the current formula (v3)', () => {
  it('a live score carries formula v3, 90% intervals, stale with the latest data day, and the flags', async () => {
    const { agency, client } = await realtimeClient('Live v2');
    await connectPlatform(t.db, { workspaceId: client.id, platform: 'youtube', handle: '@livev2' });
    await seedMetrics(t.db, client.id, { platforms: ['youtube'], seed: 5, asOf: TODAY });
    t.setNow(at(TODAY));
    try {
      const live = (await get(agency.key, `/v1/score?workspace_id=${client.id}`)).json();
      expect(live).toMatchObject({
        formula_version: 'v3',
        source: 'realtime',
        stale: false,
        latest_data_day: TODAY,
        authenticity_flags: expect.any(Array),
        lookback_days: 90,
      });
      // The legend the dashboard shows: the engine's own bands, best first, each starting where its
      // grade starts, with the median and the hysteresis.
      expect(live.grading).toMatchObject({ median: 50, hysteresis: 3 });
      expect(live.grading.grades.map((b: { grade: string }) => b.grade)).toEqual([
        'elite',
        'strong',
        'moderate',
        'weak',
        'critical',
      ]);
      for (const band of live.grading.grades as { grade: string; min: number | null }[]) {
        if (band.min === null) continue;
        expect(compositeGradeV2(band.min)).toBe(band.grade);
        expect(compositeGradeV2(band.min - 0.1)).not.toBe(band.grade);
      }
      expect(live.interval.low).toBeLessThanOrEqual(live.score);
      expect(live.interval.high).toBeGreaterThanOrEqual(live.score);
      // The grades the interval spans, read from the served bands: where the grade itself is uncertain.
      const bandOf = (x: number) =>
        (live.grading.grades as { grade: string; min: number | null }[]).find(
          (b) => b.min === null || x >= b.min,
        )!.grade;
      expect(live.grade_range).toEqual({ low: bandOf(live.interval.low), high: bandOf(live.interval.high) });
      for (const [k, v] of Object.entries<number>(live.pillars)) {
        expect(live.pillar_intervals[k].low).toBeLessThanOrEqual(v);
        expect(live.pillar_intervals[k].high).toBeGreaterThanOrEqual(v);
      }
      const bare = (
        await get(agency.key, `/v1/score?workspace_id=${client.id}&include_pillars=false`)
      ).json();
      expect(bare.pillar_intervals).toBeUndefined();
      expect(bare.interval).toEqual(live.interval);

      // Three days without data is still fresh; four is stale, and says since when.
      t.setNow(at(addDays(TODAY, 3)));
      expect((await get(agency.key, `/v1/score?workspace_id=${client.id}`)).json().stale).toBe(false);
      t.setNow(at(addDays(TODAY, 4)));
      const stale = (await get(agency.key, `/v1/score?workspace_id=${client.id}`)).json();
      expect(stale).toMatchObject({ stale: true, latest_data_day: TODAY });
    } finally {
      t.setNow(undefined);
    }
  });

  it('a bought follower jump is flagged, and the response documents every extension field', async () => {
    const { agency, client } = await realtimeClient('Bought');
    await connectPlatform(t.db, { workspaceId: client.id, platform: 'instagram', handle: '@bought' });
    await seedMetrics(t.db, client.id, {
      platforms: ['instagram'],
      seed: 11,
      asOf: TODAY,
      followers: 50_000,
    });
    const jump = addDays(TODAY, -10);
    await sql`UPDATE metric_snapshots SET followers = followers * 3
               WHERE workspace_id = ${client.id} AND day >= ${jump}::date`.execute(t.db);
    t.setNow(at(TODAY));
    try {
      const live = (await get(agency.key, `/v1/score?workspace_id=${client.id}`)).json();
      expect(live.authenticity_flags).toContainEqual(
        expect.objectContaining({ code: 'follower_spike', platform: 'instagram', day: jump }),
      );
    } finally {
      t.setNow(undefined);
    }
    const spec = (await t.request({ method: 'GET', url: '/openapi.json' })).json();
    // The Score resource and the audit result are named components.
    expect(JSON.stringify(spec.paths['/v1/score'].get.responses['200'])).toContain(
      '#/components/schemas/Score"',
    );
    const score = JSON.stringify(spec.components.schemas.Score);
    for (const field of ['interval', 'pillar_intervals', 'stale', 'latest_data_day', 'authenticity_flags'])
      expect(score).toContain(`"${field}"`);
    const audit = JSON.stringify(spec.components.schemas.CompletedAudit);
    for (const field of ['interval', 'stale', 'latest_data_day', 'authenticity_flags'])
      expect(audit).toContain(`"${field}"`);
  });
});

describe('GET /v1/score/history across the formula switch', () => {
  it('serves the current formula by default and v1 on request, never a mix', async () => {
    const { key, workspace } = await workspaceWithKey(t.db, { plan: 'pro' });
    const row = (day: string, score: number, formula: string) => ({
      workspace_id: workspace.id,
      day,
      score,
      presence: score,
      reach: score,
      impact: score,
      sentiment: score,
      momentum: score,
      formula_version: formula,
    });
    // v1 on 2025-04-01..20, v3 (recomputed) on 2025-04-11..30: ten days hold both.
    await t.db
      .insertInto('daily_scores')
      .values([
        ...Array.from({ length: 20 }, (_, i) => row(addDays('2025-04-01', i), 70, 'v1')),
        ...Array.from({ length: 20 }, (_, i) => row(addDays('2025-04-11', i), 50, 'v3')),
      ])
      .execute();
    const range = 'start_date=2025-04-01&end_date=2025-04-30';
    const current = (await get(key, `/v1/score/history?${range}&granularity=daily`)).json();
    expect(current.formula_version).toBe('v3');
    expect(current.data.map((p: any) => p.date)).toEqual(
      Array.from({ length: 20 }, (_, i) => addDays('2025-04-11', i)),
    );
    expect(new Set(current.data.map((p: any) => p.score))).toEqual(new Set([50]));
    const v1 = (await get(key, `/v1/score/history?${range}&granularity=daily&formula_version=v1`)).json();
    expect(v1.formula_version).toBe('v1');
    expect(v1.data.map((p: any) => p.date)).toEqual(
      Array.from({ length: 20 }, (_, i) => addDays('2025-04-01', i)),
    );
    expect(new Set(v1.data.map((p: any) => p.score))).toEqual(new Set([70]));
    // Weekly points close each week within one formula too.
    const weekly = (await get(key, `/v1/score/history?${range}&granularity=weekly`)).json();
    expect(weekly.data.every((p: any) => p.score === 50)).toBe(true);
    const bad = expectProblem(
      await get(key, `/v1/score/history?${range}&formula_version=v4`),
      400,
      'Invalid Parameter',
    );
    expect(bad.errors[0].parameter).toBe('formula_version');
    expectProblem(
      await get(key, '/v1/score/history?start_date=2025-04-01&end_date=2025-04-10&granularity=daily'),
      404,
      'No Data',
    );
  });
});

describe('brandhealth scores recompute', () => {
  it('recomputes under v3 (and the index formula v2) in batches, keeps v1 rows, is idempotent and resumes an interrupted run', async () => {
    const { key, workspace } = await workspaceWithKey(t.db, { plan: 'pro' });
    await seedMetrics(t.db, workspace.id, { platforms: ['instagram', 'tiktok'], days: 400, asOf: TODAY });
    const firstDay = addDays(TODAY, -399);
    await t.db
      .insertInto('daily_scores')
      .values({
        workspace_id: workspace.id,
        day: addDays(TODAY, -5),
        score: 71.5,
        presence: 70,
        reach: 70,
        impact: 70,
        sentiment: 70,
        momentum: 70,
        formula_version: 'v1',
      })
      .execute();
    t.setNow(at(TODAY));
    try {
      const first = await cli('--json', 'scores', 'recompute', '--workspace', workspace.id);
      expect(first.code, first.err).toBe(0);
      // Every day from the first snapshot through today, in 180-day batches.
      expect(JSON.parse(first.out)).toMatchObject({
        formulaVersion: 'v3',
        workspaces: 1,
        days: 400,
        batches: 3,
      });
      const stored = await t.db
        .selectFrom('daily_scores')
        .select(['formula_version', (eb) => eb.fn.countAll<number>().as('n')])
        .where('workspace_id', '=', workspace.id)
        .groupBy('formula_version')
        .orderBy('formula_version')
        .execute();
      // The index formula's rows (what TACSI's methodology reads) are written beside the current ones.
      expect(METHODOLOGY_FORMULA['tacsi-m2']).toBe(INDEX_FORMULA);
      expect(stored.map((r) => [r.formula_version, Number(r.n)])).toEqual([
        ['v1', 1],
        ['v2', 400],
        ['v3', 400],
      ]);
      const v1 = (
        await get(
          key,
          `/v1/score/history?start_date=${addDays(TODAY, -30)}&granularity=daily&formula_version=v1`,
        )
      ).json();
      expect(v1.data).toEqual([
        {
          date: addDays(TODAY, -5),
          score: 71.5,
          pillars: { presence: 70, reach: 70, impact: 70, sentiment: 70, momentum: 70 },
        },
      ]);
      const snapshot = await t.db
        .selectFrom('daily_scores')
        .selectAll()
        .where('workspace_id', '=', workspace.id)
        .where('formula_version', '=', 'v3')
        .orderBy('day')
        .execute();
      expect(snapshot[0]!.day).toBe(firstDay);

      // The same run again: nothing left to do.
      const again = await cli('--json', 'scores', 'recompute', '--workspace', workspace.id);
      expect(JSON.parse(again.out)).toMatchObject({ workspaces: 0, skipped: 1, days: 0 });

      // An interrupted run (its progress stopped at day 100) resumes after it; the result is the same rows.
      const mid = addDays(firstDay, 99);
      await t.db
        .updateTable('daily_score_recomputes')
        .set({ done_through: mid })
        .where('workspace_id', '=', workspace.id)
        .execute();
      await t.db
        .deleteFrom('daily_scores')
        .where('workspace_id', '=', workspace.id)
        .where('formula_version', '=', 'v3')
        .where('day', '>', mid)
        .execute();
      const resumed = await cli('--json', 'scores', 'recompute', '--workspace', workspace.id);
      expect(JSON.parse(resumed.out)).toMatchObject({ workspaces: 1, days: 300, batches: 2 });
      const after = await t.db
        .selectFrom('daily_scores')
        .selectAll()
        .where('workspace_id', '=', workspace.id)
        .where('formula_version', '=', 'v3')
        .orderBy('day')
        .execute();
      expect(after).toEqual(snapshot);

      // --from: another run, from that day on.
      const from = await cli(
        '--json',
        'scores',
        'recompute',
        '--workspace',
        workspace.id,
        '--from',
        addDays(TODAY, -9),
      );
      expect(JSON.parse(from.out)).toMatchObject({
        days: 10,
        batches: 1,
        runKey: `v3 from ${addDays(TODAY, -9)}`,
      });

      // Bad input: an unknown workspace (exit 1) and an impossible day (exit 2, usage).
      const unknown = await cli('scores', 'recompute', '--workspace', 'ws_nope');
      expect(unknown.code).toBe(1);
      expect(unknown.err).toContain('no workspace "ws_nope"');
      expect((await cli('scores', 'recompute', '--from', '2025-02-30')).code).toBe(2);
      expect((await cli('scores', 'recompute', '--from', addDays(TODAY, 1))).code).toBe(1);
    } finally {
      t.setNow(undefined);
    }
  }, 120_000);
});

describe("an audit's stored daily score", () => {
  it('is the row the daily recompute writes for that day', async () => {
    const { key, workspace } = await workspaceWithKey(
      t.db,
      { plan: 'pro' },
      { platforms: [{ platform: 'instagram' }, { platform: 'tiktok' }] },
    );
    await seedMetrics(t.db, workspace.id, { platforms: ['instagram', 'tiktok'], seed: 21, asOf: TODAY });
    t.setNow(at(TODAY));
    try {
      const started = await t.request({ method: 'POST', url: '/v1/audit/run', key, payload: {} });
      expect(await runJob(t.ctx, started.json().audit_id)).toBe('completed');
      const audit = (await get(key, `/v1/audit/${started.json().audit_id}`)).json();
      expect(audit.grade_range).toEqual({
        low: compositeGradeV2(audit.interval.low),
        high: compositeGradeV2(audit.interval.high),
      });
      const row = () =>
        t.db
          .selectFrom('daily_scores')
          .selectAll()
          .where('workspace_id', '=', workspace.id)
          .where('formula_version', '=', 'v3')
          .where('day', '=', TODAY)
          .executeTakeFirstOrThrow();
      const written = await row();
      expect(written).toMatchObject({
        score: audit.score,
        score_low: audit.interval.low,
        score_high: audit.interval.high,
      });
      const recomputed = await cli(
        '--json',
        'scores',
        'recompute',
        '--workspace',
        workspace.id,
        '--from',
        TODAY,
      );
      expect(JSON.parse(recomputed.out)).toMatchObject({ days: 1 });
      expect(await row()).toEqual(written);
    } finally {
      t.setNow(undefined);
    }
  });
});

describe('a stored v1 audit', () => {
  it('reads back as stored, labelled v1: its own grade (not re-graded with v2 cutoffs) and no v2 extension fields', async () => {
    const { key, workspace } = await workspaceWithKey(t.db, { plan: 'pro' });
    const day = new Date(`${addDays(TODAY, -40)}T09:00:00Z`);
    const pillar = { score: 70, change: '+0.0', grade: 'green', value: 70 };
    await t.db
      .insertInto('audits')
      .values({
        id: `aud_v1_${workspace.id}`,
        workspace_id: workspace.id,
        status: 'completed',
        platforms: ['instagram'],
        lookback_days: 90,
        estimated_completion: day,
        created_at: day,
        completed_at: day,
        // 70.0 is strong under v1's cutoffs (strong >= 65) and would be elite under v2's (>= 60.5).
        score: 70,
        grade: 'strong',
        formula_version: 'v1',
        pillars: JSON.stringify(
          Object.fromEntries(
            ['presence', 'reach', 'impact', 'sentiment', 'momentum'].map((k) => [k, pillar]),
          ),
        ),
        recommendations: '[]',
        industry_benchmark: JSON.stringify({ your_score: 70, industry_average: 60, percentile: 80 }),
      })
      .execute();
    const audit = (await get(key, `/v1/audit/aud_v1_${workspace.id}`)).json();
    expect(audit).toMatchObject({ status: 'completed', formula_version: 'v1', score: 70, grade: 'strong' });
    expect(audit.pillars.presence).toMatchObject({ score: 70, grade: 'green' });
    for (const field of ['interval', 'stale', 'latest_data_day', 'authenticity_flags'])
      expect(audit, field).not.toHaveProperty(field);
    expect(audit.pillars.presence).not.toHaveProperty('interval');
    const list = (await get(key, `/v1/audits?workspace_id=${workspace.id}`)).json();
    expect(list.audits).toEqual([
      expect.objectContaining({
        audit_id: `aud_v1_${workspace.id}`,
        formula_version: 'v1',
        score: 70,
        grade: 'strong',
      }),
    ]);
  });
});

describe('a crisis under formula v3', () => {
  it('fires score.changed at once with the crisis signal, keeps the advice on sentiment, and fires once', async () => {
    const { key, workspace } = await workspaceWithKey(
      t.db,
      { plan: 'pro' },
      { platforms: [{ platform: 'instagram' }] },
    );
    await seedMetrics(t.db, workspace.id, { platforms: ['instagram'], seed: 21, asOf: TODAY });
    // The previous audit: calm, with an interval over the whole scale, so only a crisis can fire the event.
    const yesterday = at(addDays(TODAY, -1));
    await insertCompletedAudit(
      t.db,
      {
        id: 'aud_calm_before_the_crisis',
        workspaceId: workspace.id,
        at: yesterday,
        score: 50,
        grade: 'moderate',
      },
      {
        score_low: 0,
        score_high: 100,
        formula_version: 'v3',
        crisis: JSON.stringify({
          active: false,
          negative_share: 0.05,
          baseline_negative_share: 0.05,
          volume_ratio: 1,
          since: null,
        }),
        baseline_version: '2025.1',
      },
    );
    // The last five days: complaints pour in on top of the usual talk.
    await t.db
      .updateTable('metric_snapshots')
      .set((eb) => ({ sentiment_negative: eb('sentiment_negative', '+', 40) }))
      .where('workspace_id', '=', workspace.id)
      .where('day', '>', addDays(TODAY, -5))
      .execute();
    t.setNow(at(TODAY));
    try {
      const audit = async () => {
        const started = await t.request({ method: 'POST', url: '/v1/audit/run', key, payload: {} });
        expect(started.statusCode, started.body).toBe(200);
        expect(await runJob(t.ctx, started.json().audit_id)).toBe('completed');
        return (await get(key, `/v1/audit/${started.json().audit_id}`)).json();
      };
      const first = await audit();
      expect(first.formula_version).toBe('v3');
      expect(first.crisis).toMatchObject({ active: true });
      expect(first.crisis.since >= addDays(TODAY, -6)).toBe(true);
      expect(first.crisis.negative_share).toBeGreaterThan(first.crisis.baseline_negative_share);
      expect(first.baseline).toMatchObject({ version: '2025.1', reference: 'modelled' });
      // The advice names sentiment first while the crisis runs.
      expect(first.recommendations[0].pillar).toBe('sentiment');
      const events = await scoreEvents(workspace.id);
      expect(events).toHaveLength(1);
      expect(events[0]!.data).toMatchObject({
        previous_score: 50,
        crisis: { active: true, since: first.crisis.since },
      });
      const score = (await get(key, '/v1/score')).json();
      expect(score).toMatchObject({ formula_version: 'v3', crisis: { active: true } });

      // The same crisis the next audit: no second event for it (it already fired when it started).
      const second = await audit();
      expect(second.crisis.active).toBe(true);
      const moved =
        Math.abs(second.score - first.score) >= 1 &&
        (second.score < first.interval.low || second.score > first.interval.high);
      expect(moved).toBe(false);
      expect(await scoreEvents(workspace.id)).toHaveLength(1);
    } finally {
      t.setNow(undefined);
    }
  });
});

describe("a sector's benchmark industry", () => {
  it('is set with the sector, judges its brands against the industry where a figure is published, and is stored with the score', async () => {
    // Refused in words: an industry the benchmarks do not have.
    const bad = await cli(
      'sector',
      'create',
      'esports',
      '--name',
      'Esports',
      '--benchmark-industry',
      'gaming',
    );
    expect(bad.code).not.toBe(0);
    expect(bad.err).toMatch(/benchmark industry "gaming" must be all or one of alcohol, fashion/);
    const made = await cli(
      'sector',
      'create',
      'pro-sports',
      '--name',
      'Pro sports',
      '--benchmark-industry',
      'sports-teams',
      '--json',
    );
    expect(made.code, made.err).toBe(0);
    expect(JSON.parse(made.out)).toMatchObject({ slug: 'pro-sports', benchmark_industry: 'sports-teams' });
    // Saved again without the option: the sector keeps its industry.
    const again = await cli('sector', 'create', 'pro-sports', '--name', 'Pro sports', '--json');
    expect(JSON.parse(again.out)).toMatchObject({ benchmark_industry: 'sports-teams' });

    const audit = async (sector: string | null) => {
      const { key, workspace } = await workspaceWithKey(
        t.db,
        { plan: 'pro', sector },
        { platforms: [{ platform: 'tiktok' }] },
      );
      await seedMetrics(t.db, workspace.id, { platforms: ['tiktok'], seed: 31, asOf: TODAY });
      const started = await t.request({ method: 'POST', url: '/v1/audit/run', key, payload: {} });
      expect(await runJob(t.ctx, started.json().audit_id)).toBe('completed');
      return (await get(key, `/v1/audit/${started.json().audit_id}`)).json();
    };
    t.setNow(at(TODAY));
    try {
      const sports = await audit('pro-sports');
      const all = await audit(null);
      expect(sports.baseline).toMatchObject({ version: '2025.1', industry: 'sports-teams' });
      expect(all.baseline).toMatchObject({ version: '2025.1', industry: 'all' });
      // The same account against Sports Teams' engagement per view on TikTok (2.7x all industries'):
      // its impact is judged lower.
      expect(sports.pillars.impact.score).toBeLessThan(all.pillars.impact.score);
      const stored = await t.db
        .selectFrom('audits')
        .select('baseline_version')
        .where('id', '=', sports.audit_id)
        .executeTakeFirstOrThrow();
      expect(stored.baseline_version).toBe('2025.1/sports-teams');
    } finally {
      t.setNow(undefined);
    }
  });
});
