// Corrections as vintages (docs/tacsi.md "Vintages and corrections"): `tacsi correct` never updates a
// published cell; it publishes a new vintage with its reason and its own publishedAt, noised afresh
// and charged to the per-entity ledger (a derived cell is derived again); every feed serves the latest
// vintage, `asOf` before the correction still answers the old bytes, and GET /v1/tacsi/corrections
// lists it.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/admin/keys.ts';
import { createSubscriber, grantEntitlement } from '../../src/admin/tacsi.ts';
import type { EntitlementKind } from '../../src/infra/db/types.ts';
import { runCli } from '../../src/cli/program.ts';
import { addDays } from '../../src/core/days.ts';
import { correctCell } from '../../src/tacsi/correct.ts';
import { defineGaussianMethodology } from '../../src/tacsi/privacy/index.ts';
import { publishCells } from '../../src/tacsi/publish.ts';
import { expectProblem, startTestService, type TestService } from '../helpers/service.ts';
import { seedM2Fixture } from './tacsi-m2-fixture.ts';

const T1 = new Date('2025-01-21T03:30:00.000Z'); // the weeks ending 01-12 and 01-19 are published
const T2 = new Date('2025-01-22T10:00:00.000Z'); // a subscriber reads
const T3 = new Date('2025-01-23T09:00:00.000Z'); // retail's week 01-12 is corrected
const T4 = new Date('2025-01-23T12:00:00.000Z'); // big's day 01-08 is corrected
const T5 = new Date('2025-01-24T08:00:00.000Z'); // big's week 01-19 (derived) is corrected

let t: TestService;
const keys: Record<'retail' | 'bigDaily' | 'bigWeekly' | 'full' | 'none', string> = {
  retail: '',
  bigDaily: '',
  bigWeekly: '',
  full: '',
  none: '',
};

async function subscriberKey(grants: Array<{ kind: EntitlementKind; sector?: string }>): Promise<string> {
  const sub = await createSubscriber(t.db, 'Index buyer');
  for (const g of grants)
    await grantEntitlement(t.db, {
      subscriberId: sub,
      kind: g.kind,
      sector: g.sector,
      validFrom: '2020-01-01',
    });
  return (await createApiKey(t.db, { subscriberId: sub }, { scopes: ['read'] })).key;
}

beforeAll(async () => {
  t = await startTestService({ tacsiM2From: '2025-01-06' });
  // retail (70 brands) is below the daily minimum: its weeks are noised directly. big (252 brands)
  // has daily cells: its weeks are derived from them.
  await seedM2Fixture(
    t.db,
    [
      { slug: 'retail', brands: 70, level: 55 },
      { slug: 'big', brands: 252, level: 60 },
    ],
    '2025-01-06',
    '2025-01-26',
  );
  keys.retail = await subscriberKey([{ kind: 'sector_feed', sector: 'retail' }]);
  keys.bigDaily = await subscriberKey([
    { kind: 'sector_feed', sector: 'big' },
    { kind: 'daily_addon', sector: 'big' },
  ]);
  keys.bigWeekly = await subscriberKey([{ kind: 'sector_feed', sector: 'big' }]);
  keys.full = await subscriberKey([{ kind: 'full_database' }]);
  keys.none = await subscriberKey([]);
  t.setNow(T1);
  await publishCells(t.ctx, { cadence: 'weekly', periodEnds: ['2025-01-12', '2025-01-19'], log: () => {} });
}, 180_000);
afterAll(async () => t?.close());

const get = (url: string, key: string, headers: Record<string, string> = {}) =>
  t.request({ method: 'GET', url, key, headers });

async function cli(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(argv, { out: (s) => (out += s), err: (s) => (err += s) }, (fn) => fn(t.ctx));
  return { code, out, err };
}

const correct = (sector: string, periodEnd: string, reason: string, cadence = 'weekly') =>
  cli([
    'tacsi',
    'correct',
    '--sector',
    sector,
    '--cadence',
    cadence,
    '--period-end',
    periodEnd,
    '--reason',
    reason,
  ]);

interface Vintage {
  vintage: number;
  index_value: number;
  presence: number;
  reach: number;
  impact: number;
  sentiment: number;
  momentum: number;
  correction_reason: string | null;
  published_at: Date;
}

const vintages = async (sector: string, cadence: string, periodEnd: string): Promise<Vintage[]> =>
  (
    await sql<Vintage>`
      SELECT vintage, index_value, presence, reach, impact, sentiment, momentum, correction_reason, published_at
        FROM tacsi_cells WHERE sector = ${sector} AND cadence = ${cadence} AND period_end = ${periodEnd}::date
       ORDER BY vintage`.execute(t.db)
  ).rows;

/** The ledger releases of one cell slot, by vintage, with the entities each charged. */
const releases = async (scope: string, kind: string, periodEnd: string) =>
  (
    await sql<{ vintage: number; rho_units: string; entities: string[] | null }>`
      SELECT l.vintage, l.rho_units::text AS rho_units,
             array(SELECT workspace_id FROM tacsi_entity_charges c WHERE c.ledger_id = l.id ORDER BY 1) AS entities
        FROM tacsi_rho_ledger l
       WHERE l.scope = ${scope} AND l.kind = ${kind} AND l.period_end = ${periodEnd}::date
       ORDER BY l.vintage`.execute(t.db)
  ).rows;

const countCells = async () =>
  Number((await sql<{ n: string }>`SELECT count(*) AS n FROM tacsi_cells`.execute(t.db)).rows[0]!.n);
const countReleases = async () =>
  Number((await sql<{ n: string }>`SELECT count(*) AS n FROM tacsi_rho_ledger`.execute(t.db)).rows[0]!.n);

const REASON_1 = 'Two brands were scored under the wrong sector for that week.';
const REASON_2 = 'Scores of 2025-01-08 were re-ingested after a platform outage.';
const REASON_3 = 'The cohort of that week missed brands whose scores arrived late.';

describe('a correction is a new vintage', () => {
  it('of a noised weekly cell: charged afresh, served by every feed, and asOf before it answers the old bytes', async () => {
    t.setNow(T2);
    const before = await get('/v1/tacsi/history?sector=retail', keys.retail);
    const beforeCsv = await get('/v1/tacsi/history?sector=retail', keys.retail, { accept: 'text/csv' });
    const weeklyBefore = await get('/v1/tacsi/weekly?sector=retail', keys.retail);
    expect(before.statusCode).toBe(200);
    const old = before.json().rows as Array<Record<string, any>>;
    expect(old.map((r) => [r.periodEnd, r.vintage])).toEqual([
      ['2025-01-19', 1],
      ['2025-01-12', 1],
    ]);

    t.setNow(T3);
    const res = await correct('retail', '2025-01-12', REASON_1);
    expect(res.err).toBe('');
    expect(res.code).toBe(0);
    expect(res.out).toContain('retail weekly 2025-01-12: vintage 2');
    expect(res.out).toContain('headline weekly 2025-01-12: vintage 2');

    // Stored as a new row: the first vintage is untouched, the second has fresh noise and the reason.
    const [v1, v2] = await vintages('retail', 'weekly', '2025-01-12');
    expect(v1).toMatchObject({
      vintage: 1,
      correction_reason: null,
      index_value: old[1]!.indexValue,
      sentiment: old[1]!.pillars.sentiment,
    });
    expect(new Date(v1!.published_at).toISOString()).toBe(T1.toISOString());
    expect(v2).toMatchObject({ vintage: 2, correction_reason: REASON_1 });
    expect(new Date(v2!.published_at).toISOString()).toBe(T3.toISOString());
    // Same cohort, independent noise: the pillars are not the earlier draw (five grid values equal
    // by chance has negligible probability).
    const pillars = (v: Vintage) => [v.presence, v.reach, v.impact, v.sentiment, v.momentum];
    expect(pillars(v2!)).not.toEqual(pillars(v1!));

    // The ledger: a release of its own, the same rho, charged to the same 70 entities.
    const charged = await releases('retail', 'weekly', '2025-01-12');
    expect(charged.map((r) => r.vintage)).toEqual([1, 2]);
    expect(charged[1]!.rho_units).toBe(charged[0]!.rho_units);
    expect(charged[1]!.entities).toHaveLength(70);
    expect(charged[1]!.entities).toEqual(charged[0]!.entities);
    // The headline is derived again (no release of its own).
    expect((await vintages('headline', 'weekly', '2025-01-12')).map((v) => v.correction_reason)).toEqual([
      null,
      REASON_1,
    ]);
    expect(await releases('headline', 'weekly', '2025-01-12')).toEqual([]);

    // Every feed serves the new vintage.
    const now = await get('/v1/tacsi/history?sector=retail', keys.retail);
    const rows = now.json().rows as Array<Record<string, any>>;
    expect(rows[0]).toEqual(old[0]);
    expect(rows[1]).toMatchObject({
      periodEnd: '2025-01-12',
      vintage: 2,
      publishedAt: T3.toISOString(),
      indexValue: v2!.index_value,
      pillars: { sentiment: v2!.sentiment },
    });
    expect(now.headers.etag).not.toBe(before.headers.etag);
    const weekly = await get('/v1/tacsi/weekly?sector=retail', keys.retail);
    expect(weekly.headers.etag).not.toBe(weeklyBefore.headers.etag);
    expect(weekly.json().history[0]).toEqual(rows[1]);
    const pillar = (await get('/v1/tacsi/pillars?sector=retail&pillar=sentiment', keys.retail)).json();
    expect(pillar.series.find((p: { periodEnd: string }) => p.periodEnd === '2025-01-12').value).toBe(
      v2!.sentiment,
    );
    const archive = (await get('/v1/tacsi/archive?sector=retail&format=csv', keys.retail)).body
      .trimEnd()
      .split('\r\n');
    expect(archive[0]).toMatch(/,publishedAt,vintage$/);
    expect(archive.slice(1).map((l) => [l.split(',')[0], l.split(',').at(-1)])).toEqual([
      ['2025-01-12', '2'],
      ['2025-01-19', '1'],
    ]);

    // asOf before the correction: byte for byte what was served then (JSON, ETag, CSV).
    const asOf = await get(`/v1/tacsi/history?sector=retail&asOf=${T2.toISOString()}`, keys.retail);
    expect(asOf.body).toBe(before.body);
    expect(asOf.headers.etag).toBe(before.headers.etag);
    const asOfCsv = await get(`/v1/tacsi/history?sector=retail&asOf=${T2.toISOString()}`, keys.retail, {
      accept: 'text/csv',
    });
    expect(asOfCsv.body).toBe(beforeCsv.body);
    // asOf at the correction's instant includes it.
    expect((await get(`/v1/tacsi/history?sector=retail&asOf=${T3.toISOString()}`, keys.retail)).body).toBe(
      now.body,
    );

    // The corrections feed lists it with its reason, and nothing else.
    const feed = await get('/v1/tacsi/corrections?sector=retail', keys.retail);
    expect(feed.statusCode).toBe(200);
    expect(feed.json()).toEqual({
      sector: 'retail',
      count: 1,
      pageMax: 100,
      hasMore: false,
      nextCursor: null,
      corrections: [
        {
          sector: 'retail',
          feed: 'weekly',
          periodEnd: '2025-01-12',
          vintage: 2,
          reason: REASON_1,
          publishedAt: T3.toISOString(),
        },
      ],
    });
  });

  it('of a daily cell: charged, and the weekly cell derived from it is derived again (free)', async () => {
    t.setNow(T4);
    const weeklyBefore = (await vintages('big', 'weekly', '2025-01-12')).at(-1)!;
    const res = await correct('big', '2025-01-08', REASON_2, 'daily');
    expect(res.code).toBe(0);
    expect(res.out).toContain('big daily 2025-01-08: vintage 2');
    expect(res.out).toContain('big weekly 2025-01-12: vintage 2');
    expect(res.out).toContain('headline weekly 2025-01-12: vintage 3');

    const daily = await releases('big', 'daily', '2025-01-08');
    expect(daily.map((r) => r.vintage)).toEqual([1, 2]);
    expect(daily[1]!.entities).toHaveLength(252);
    // A weekly cell derived from daily cells is post-processing: never a release.
    expect(await releases('big', 'weekly', '2025-01-12')).toEqual([]);
    const weekly = await vintages('big', 'weekly', '2025-01-12');
    expect(weekly.map((v) => [v.vintage, v.correction_reason])).toEqual([
      [1, null],
      [2, REASON_2],
    ]);
    expect(weekly[0]!.index_value).toBe(weeklyBefore.index_value);

    const dailyFeed = (await get('/v1/tacsi/daily?sector=big', keys.bigDaily)).json();
    const day = dailyFeed.rows.find((r: { periodEnd: string }) => r.periodEnd === '2025-01-08');
    expect(day).toMatchObject({ vintage: 2, publishedAt: T4.toISOString() });
    expect(
      dailyFeed.rows
        .filter((r: { vintage: number }) => r.vintage !== 1)
        .map((r: { periodEnd: string }) => r.periodEnd),
    ).toEqual(['2025-01-08']);

    // A key with the daily feed sees both corrections; one without it, the weekly one only.
    const entries = (key: string) =>
      get('/v1/tacsi/corrections?sector=big', key).then((r) =>
        r.json().corrections.map((c: Record<string, unknown>) => [c.feed, c.periodEnd, c.vintage, c.reason]),
      );
    expect(await entries(keys.bigDaily)).toEqual([
      ['weekly', '2025-01-12', 2, REASON_2],
      ['daily', '2025-01-08', 2, REASON_2],
    ]);
    expect(await entries(keys.bigWeekly)).toEqual([['weekly', '2025-01-12', 2, REASON_2]]);
    const headline = (await get('/v1/tacsi/corrections?sector=headline', keys.full)).json();
    expect(
      headline.corrections.map((c: { vintage: number; reason: string }) => [c.vintage, c.reason]),
    ).toEqual([
      [3, REASON_2],
      [2, REASON_1],
    ]);
  });

  it('of a weekly cell derived from daily cells: its seven daily cells are corrected (each charged), then it is derived again', async () => {
    t.setNow(T5);
    const res = await correct('big', '2025-01-19', REASON_3);
    expect(res.code).toBe(0);
    for (let i = 0; i < 7; i++) {
      const day = addDays('2025-01-13', i);
      expect((await releases('big', 'daily', day)).map((r) => r.vintage)).toEqual([1, 2]);
    }
    expect(await releases('big', 'weekly', '2025-01-19')).toEqual([]);
    const history = (await get('/v1/tacsi/history?sector=big', keys.bigWeekly)).json().rows;
    expect(history.map((r: { periodEnd: string; vintage: number }) => [r.periodEnd, r.vintage])).toEqual([
      ['2025-01-19', 2],
      ['2025-01-12', 2],
    ]);
    const days = (await get('/v1/tacsi/daily?sector=big', keys.bigDaily)).json().rows;
    expect(
      days
        .filter((r: { periodEnd: string }) => r.periodEnd >= '2025-01-13')
        .map((r: { vintage: number; publishedAt: string }) => [r.vintage, r.publishedAt]),
    ).toEqual(Array.from({ length: 7 }, () => [2, T5.toISOString()]));
  });
});

describe('publication after a correction', () => {
  it('is still a no-op for the corrected periods: nothing drawn, no vintage added', async () => {
    t.setNow(T5);
    const cells = await countCells();
    const ledger = await countReleases();
    const outcomes = await publishCells(t.ctx, {
      cadence: 'weekly',
      periodEnds: ['2025-01-12', '2025-01-19'],
      log: () => {},
    });
    expect(new Set(outcomes.map((o) => o.status))).toEqual(new Set(['exists']));
    expect(await countCells()).toBe(cells);
    expect(await countReleases()).toBe(ledger);
  });
});

describe('refusals', () => {
  it('refuses, with a clear CLI error and nothing stored: no reason, an unpublished cell, a closed tacsi-m1 period, a daily headline', async () => {
    t.setNow(T5);
    const cells = await countCells();
    const ledger = await countReleases();
    const cases: Array<[string[], string]> = [
      [['retail', '2025-01-12', '   '], 'a correction needs a reason'],
      [['retail', '2025-01-26', REASON_1], 'the weekly cell retail 2025-01-26 is not published'],
      [['retail', '2025-01-05', REASON_1], 'tacsi-m1 is closed'],
      [['headline', '2025-01-08', REASON_1, 'daily'], 'no daily headline'],
      [['nowhere', '2025-01-12', REASON_1], 'nowhere is not a consumer sector'],
      [['retail', '2025-01-13', REASON_1], 'is not a Sunday'],
    ];
    for (const [[sector, periodEnd, reason, cadence], message] of cases) {
      const res = await correct(sector!, periodEnd!, reason!, cadence);
      expect(res.code, message).toBe(1);
      expect(res.err).toContain(message);
    }
    const missing = await cli(['tacsi', 'correct', '--sector', 'retail', '--period-end', '2025-01-12']);
    expect(missing.code).not.toBe(0);
    expect(missing.err).toContain('--reason');
    expect(await countCells()).toBe(cells);
    expect(await countReleases()).toBe(ledger);
  });

  it('refuses a correction its entities cannot afford under the annual cap, before drawing anything', async () => {
    // The same methodology with a cap the published releases already use up.
    const tight = defineGaussianMethodology({
      version: 'tacsi-m2',
      noiseMultipliers: { daily: [33, 2], weekly: [13, 2], histogram: [3, 1] },
      annualRhoCap: [1, 100],
      delta: 1e-10,
    });
    const cells = await countCells();
    const ledger = await countReleases();
    const attempt = correctCell(t.ctx, {
      sector: 'retail',
      cadence: 'weekly',
      periodEnd: '2025-01-19',
      reason: REASON_1,
      methodology: tight,
    });
    await expect(attempt).rejects.toMatchObject({ kind: 'conflict' });
    await expect(attempt).rejects.toThrow(
      /would take its entities to rho [\d.]+ .*over the annual cap 0\.01/,
    );
    expect(await countCells()).toBe(cells);
    expect(await countReleases()).toBe(ledger);
  });
});

describe('GET /v1/tacsi/corrections', () => {
  it('denies exactly as the other feeds: unlicensed, another sector, an unknown one, a sector-less key', async () => {
    const body = (res: { json: () => Record<string, unknown> }) => ({ ...res.json(), request_id: null });
    const denial = await get('/v1/tacsi/corrections?sector=retail', keys.none);
    expectProblem(denial, 403);
    for (const [url, key] of [
      ['/v1/tacsi/corrections?sector=big', keys.retail],
      ['/v1/tacsi/corrections?sector=nowhere', keys.retail],
      ['/v1/tacsi/corrections?sector=headline', keys.retail],
    ] as const) {
      const res = await get(url, key);
      expect(res.statusCode).toBe(403);
      expect(body(res)).toEqual(body(denial));
    }
    // The same denial as the history feed's.
    const history = await get('/v1/tacsi/history?sector=retail', keys.none);
    expect({ ...body(history), instance: null }).toEqual({ ...body(denial), instance: null });
    expectProblem(await get('/v1/tacsi/corrections?sector=retail&cursor=not-a-cursor', keys.retail), 400);
  });

  it('pages newest first with a cursor, every correction once', async () => {
    // 101 corrections of the headline (each derived again, free), one second apart.
    for (let i = 0; i < 101; i++) {
      t.setNow(new Date(T5.getTime() + (i + 1) * 1000));
      await correctCell(t.ctx, {
        sector: 'headline',
        cadence: 'weekly',
        periodEnd: '2025-01-19',
        reason: `Headline check ${i}`,
      });
    }
    const first = (await get('/v1/tacsi/corrections?sector=headline', keys.full)).json();
    expect(first).toMatchObject({ count: 100, pageMax: 100, hasMore: true });
    const second = (
      await get(`/v1/tacsi/corrections?sector=headline&cursor=${first.nextCursor}`, keys.full)
    ).json();
    expect(second).toMatchObject({ hasMore: false, nextCursor: null });
    const all = [...first.corrections, ...second.corrections];
    const stored = (
      await sql<{ period_end: string; vintage: number }>`
        SELECT period_end, vintage FROM tacsi_cells WHERE sector = 'headline' AND vintage > 1
         ORDER BY published_at DESC, period_end DESC, vintage DESC`.execute(t.db)
    ).rows;
    expect(all.map((c: { periodEnd: string; vintage: number }) => [c.periodEnd, c.vintage])).toEqual(
      stored.map((r) => [r.period_end, r.vintage]),
    );
    expect(all[0]).toMatchObject({ reason: 'Headline check 100', vintage: 103 });
  }, 120_000);
});
