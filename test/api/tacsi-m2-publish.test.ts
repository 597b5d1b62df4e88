// tacsi-m2 publication through the real publisher and database: the schedule (daily only at n >= 250,
// weekly derived from daily or noised directly, the monthly histogram, the derived headline), the rho
// ledger written before release, the cut-over, the annual cap and sector changers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { setSector } from '../../src/admin/workspaces.ts';
import { newId } from '../../src/infra/ids.ts';
import { addDays } from '../../src/core/days.ts';
import {
  TACSI_M2,
  defineGaussianMethodology,
  deriveHeadline,
  releaseCharge,
  type NoiseTerm,
} from '../../src/tacsi/privacy/index.ts';
import { publishCells } from '../../src/tacsi/publish.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { brandId, seedM2Fixture } from './tacsi-m2-fixture.ts';

// Ten full ISO weeks, Monday 2025-01-06 to Sunday 2025-03-16, all after the test's cut-over.
const FIRST_DAY = '2025-01-06';
const LAST_DAY = '2025-03-16';
const WEEKS = Array.from({ length: 10 }, (_, i) => addDays('2025-01-12', 7 * i));
const SECTORS = [
  { slug: 'big-daily', brands: 260, level: 55 },
  { slug: 'mid-weekly', brands: 120, level: 62 },
  { slug: 'small-one', brands: 30, level: 50 },
  { slug: 'held-excl', brands: 60, level: 45 },
  { slug: 'b2b-tools', brands: 60, level: 30, consumer: false },
];

let t: TestService;
const logs: string[] = [];
const log = (line: string) => logs.push(line);

beforeAll(async () => {
  t = await startTestService({ tacsiM2From: FIRST_DAY });
  t.setNow(new Date('2025-03-20T12:00:00Z'));
  await seedM2Fixture(t.db, SECTORS, FIRST_DAY, LAST_DAY);
  const sub = newId('sub');
  await t.db.insertInto('tacsi_subscribers').values({ id: sub, name: 'Exclusive Holder' }).execute();
  await t.db
    .insertInto('tacsi_entitlements')
    .values({
      id: newId('ent'),
      subscriber_id: sub,
      kind: 'sector_feed',
      sector_slug: 'held-excl',
      exclusive: true,
      valid_from: '2024-01-01',
    })
    .execute();
}, 120_000);
afterAll(async () => t?.close());

const cellsOf = (sector: string, cadence: 'daily' | 'weekly') =>
  t.db
    .selectFrom('tacsi_cells')
    .selectAll()
    .where('sector', '=', sector)
    .where('cadence', '=', cadence)
    .orderBy('period_end')
    .execute();

describe('tacsi-m2 schedule', () => {
  it('publishes daily cells only at n >= 250, derives their weeks, noises the other weeks directly', async () => {
    const outcomes = await publishCells(t.ctx, { cadence: 'weekly', periodEnds: WEEKS, log });
    expect(outcomes.filter((o) => o.status === 'published' && o.cadence === 'daily')).toHaveLength(70);

    const bigDaily = await cellsOf('big-daily', 'daily');
    expect(bigDaily).toHaveLength(70);
    expect(bigDaily.every((c) => c.methodology_version === 'tacsi-m2' && c.derivation === 'noised')).toBe(
      true,
    );
    expect(bigDaily.every((c) => c.band_floor === 250 && c.cohort_band === 'n >= 250')).toBe(true);
    const bigWeekly = await cellsOf('big-daily', 'weekly');
    expect(bigWeekly.map((c) => c.derivation)).toEqual(WEEKS.map(() => 'daily'));
    // A derived week is the exact mean of its seven published daily pillars on the grid.
    const week1 = bigDaily.filter((c) => c.period_end <= WEEKS[0]!);
    const mean = Math.round(week1.reduce((s, c) => s + c.presence * 100, 0) / 7 + 1e-9) / 100;
    expect(bigWeekly[0]!.presence).toBeCloseTo(mean, 10);
    expect(bigWeekly[0]!.moe_index_value!).toBeLessThanOrEqual(2.5);
    expect(bigDaily[0]!.moe_index_value!).toBeLessThanOrEqual(6);

    expect(await cellsOf('mid-weekly', 'daily')).toHaveLength(0);
    const midWeekly = await cellsOf('mid-weekly', 'weekly');
    expect(midWeekly.map((c) => c.derivation)).toEqual(WEEKS.map(() => 'noised'));
    expect(midWeekly.every((c) => c.band_floor === 100 && c.moe_index_value! <= 6)).toBe(true);
    expect(await cellsOf('small-one', 'weekly')).toHaveLength(0);
    expect(await cellsOf('b2b-tools', 'weekly')).toHaveLength(0);

    // indexValue is the fixed composite of the published pillars.
    for (const c of [...midWeekly, ...bigWeekly]) {
      const composite =
        (20 * c.presence + 20 * c.reach + 25 * c.impact + 20 * c.sentiment + 15 * c.momentum) / 100;
      expect(Math.abs(c.index_value - composite)).toBeLessThanOrEqual(0.005 + 1e-9);
    }
  });

  it('charges the ledger once per noised release, nothing for derived cells and the headline', async () => {
    const ledger = await t.db.selectFrom('tacsi_rho_ledger').selectAll().execute();
    const count = (scope: string, kind: string) =>
      ledger.filter((r) => r.scope === scope && r.kind === kind).length;
    expect(count('big-daily', 'daily')).toBe(70);
    expect(count('big-daily', 'weekly')).toBe(0);
    expect(count('mid-weekly', 'weekly')).toBe(10);
    expect(count('headline', 'weekly')).toBe(0);
    // Histograms with the last week ending in January (01-26) and February (02-23).
    for (const scope of ['big-daily', 'mid-weekly', 'held-excl']) expect(count(scope, 'histogram')).toBe(2);
    const histograms = await t.db
      .selectFrom('tacsi_histograms')
      .selectAll()
      .orderBy('sector')
      .orderBy('period_end')
      .execute();
    expect(histograms.map((h) => `${h.sector} ${h.period_end}`)).toEqual([
      'big-daily 2025-01-26',
      'big-daily 2025-02-23',
      'held-excl 2025-01-26',
      'held-excl 2025-02-23',
      'mid-weekly 2025-01-26',
      'mid-weekly 2025-02-23',
    ]);
    for (const h of histograms) expect(h.shares.reduce((s, x) => s + x, 0)).toBeCloseTo(1, 9);
    const daily = ledger.find((r) => r.kind === 'daily')!;
    expect(Number(daily.rho_units)).toBe(releaseCharge('daily', 'big-daily', '2025-01-06', TACSI_M2).rhoNano);
    expect(daily.rho).toBeCloseTo(10 / 1089, 8);
  });

  it('derives the headline from the non-exclusive published sector cells only', async () => {
    const headline = await cellsOf('headline', 'weekly');
    expect(headline).toHaveLength(10);
    for (const h of headline) {
      const parts = await t.db
        .selectFrom('tacsi_cells')
        .selectAll()
        .where('cadence', '=', 'weekly')
        .where('period_end', '=', h.period_end)
        .where('sector', 'in', ['big-daily', 'mid-weekly'])
        .execute();
      const expected = deriveHeadline(
        parts.map((p) => ({
          pillars: {
            presence: p.presence,
            reach: p.reach,
            impact: p.impact,
            sentiment: p.sentiment,
            momentum: p.momentum,
          },
          bandFloor: p.band_floor!,
          noise: p.noise as NoiseTerm[],
        })),
        TACSI_M2,
      )!;
      expect(h.index_value).toBe(expected.indexValue);
      expect(h.presence).toBe(expected.pillars.presence);
      expect(h.cohort_band).toBe('n >= 250');
      expect(h.derivation).toBe('sectors');
    }
  });

  it('is idempotent: a second run draws nothing and charges nothing', async () => {
    const before = await t.db
      .selectFrom('tacsi_rho_ledger')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    const outcomes = await publishCells(t.ctx, { cadence: 'weekly', periodEnds: WEEKS, log });
    expect(outcomes.filter((o) => o.status === 'published')).toEqual([]);
    expect(outcomes.filter((o) => o.sector === 'big-daily').every((o) => o.status === 'exists')).toBe(true);
    const daily = await publishCells(t.ctx, {
      cadence: 'daily',
      periodEnds: ['2025-03-16'],
      sectors: ['big-daily', 'mid-weekly', 'headline'],
      log,
    });
    expect(daily.map((o) => `${o.sector} ${o.status}`)).toEqual([
      'big-daily exists',
      'mid-weekly superseded',
      'headline not_offered',
    ]);
    const after = await t.db
      .selectFrom('tacsi_rho_ledger')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
  });
});

describe('cut-over', () => {
  it('publishes periods before TACSI_M2_FROM under tacsi-m1 and later ones under tacsi-m2', async () => {
    const other = await startTestService({ tacsiM2From: '2025-01-20' });
    try {
      other.setNow(new Date('2025-01-30T00:00:00Z'));
      await seedM2Fixture(
        other.db,
        [{ slug: 'cut-sector', brands: 60, level: 50 }],
        '2025-01-06',
        '2025-01-26',
      );
      // The same days under formula v1, 30 points higher: each methodology must read only its own
      // formula (tacsi-m1: v1, tacsi-m2: v2), never a mix (docs/tacsi.md "Formula per methodology").
      await sql`
        INSERT INTO daily_scores (workspace_id, day, score, presence, reach, impact, sentiment, momentum, formula_version)
        SELECT workspace_id, day, least(100, score + 30), least(100, presence + 30), least(100, reach + 30),
               least(100, impact + 30), least(100, sentiment + 30), least(100, momentum + 30), 'v1'
          FROM daily_scores WHERE formula_version = 'v2'`.execute(other.db);
      // Before the cut-over day, periods before it are tacsi-m1.
      other.setNow(new Date('2025-01-14T00:00:00Z'));
      const early = await publishCells(other.ctx, {
        cadence: 'weekly',
        periodEnds: ['2025-01-12'],
        sectors: ['cut-sector'],
      });
      expect(early.map((o) => o.status)).toEqual(['published']);
      // From the cut-over day on, tacsi-m1 is closed: the week ending the day before the cut-over
      // (and 2025-01-12 again) is refused as closed, the later week is tacsi-m2.
      other.setNow(new Date('2025-01-30T00:00:00Z'));
      const later = await publishCells(other.ctx, {
        cadence: 'weekly',
        periodEnds: ['2025-01-12', '2025-01-19', '2025-01-26'],
        sectors: ['cut-sector'],
      });
      expect(later.map((o) => `${o.periodEnd} ${o.status}`)).toEqual([
        '2025-01-12 closed',
        '2025-01-19 closed',
        '2025-01-26 published',
      ]);
      const rows = await other.db
        .selectFrom('tacsi_cells')
        .select(['period_end', 'methodology_version'])
        .orderBy('period_end')
        .execute();
      expect(rows).toEqual([
        { period_end: '2025-01-12', methodology_version: 'tacsi-m1' },
        { period_end: '2025-01-26', methodology_version: 'tacsi-m2' },
      ]);
      const levels = await other.db
        .selectFrom('tacsi_cells')
        .select(['methodology_version', 'index_value'])
        .execute();
      // v1 near 80, v2 near 50: 70 separates them by many noise deviations (a 60-brand tacsi-m2 week is
      // noised directly and can land 10 points off; the tacsi-m1 Laplace noise is far smaller).
      for (const c of levels) {
        if (c.methodology_version === 'tacsi-m1') expect(c.index_value).toBeGreaterThan(70);
        else expect(c.index_value).toBeLessThan(70);
      }
      expect(await other.db.selectFrom('tacsi_privacy_ledger').select('period_end').execute()).toHaveLength(
        1,
      );
      // One ledger: the tacsi-m1 cell is charged there too (six statistics at epsilon 1: rho 3), with
      // each of its 60 entities.
      const ledger = await other.db
        .selectFrom('tacsi_rho_ledger')
        .select(['id', 'period_end', 'kind', 'methodology_version', 'rho'])
        .orderBy('period_end')
        .orderBy('kind')
        .execute();
      expect(ledger.map(({ id: _id, ...r }) => r)).toEqual([
        { period_end: '2025-01-12', kind: 'weekly', methodology_version: 'tacsi-m1', rho: 3 },
        {
          period_end: '2025-01-26',
          kind: 'histogram',
          methodology_version: 'tacsi-m2',
          rho: expect.closeTo(1 / 9, 8),
        },
        {
          period_end: '2025-01-26',
          kind: 'weekly',
          methodology_version: 'tacsi-m2',
          rho: expect.closeTo(10 / 169, 9),
        },
      ]);
      for (const row of ledger) {
        const charged = await other.db
          .selectFrom('tacsi_entity_charges')
          .select('workspace_id')
          .where('ledger_id', '=', row.id)
          .execute();
        expect(charged).toHaveLength(60);
      }
    } finally {
      await other.close();
    }
  }, 60_000);
});

describe('annual cap', () => {
  // The same methodology with a small cap, so a short fixture reaches it: weekly cells cost 10/169
  // (0.0592) each, histograms 1/9; a cap of 0.15 admits two weekly cells and refuses the third.
  const tight = defineGaussianMethodology({
    version: 'tacsi-m2',
    noiseMultipliers: { daily: [33, 2], weekly: [13, 2], histogram: [3, 1] },
    annualRhoCap: [3, 20],
    delta: 1e-10,
  });

  it('refuses a release beyond the cap before drawing, and charges a sector changer in both series', async () => {
    const other = await startTestService({ tacsiM2From: '2025-01-06' });
    try {
      other.setNow(new Date('2025-03-20T00:00:00Z'));
      await seedM2Fixture(
        other.db,
        [
          { slug: 'from-sector', brands: 60, level: 50 },
          { slug: 'to-sector', brands: 60, level: 60 },
        ],
        '2025-01-06',
        '2025-02-02',
      );
      // Weeks 1-2 of from-sector: two weekly cells (0.118 each of its entities).
      const w = ['2025-01-12', '2025-01-19', '2025-01-26', '2025-02-02'];
      const first = await publishCells(other.ctx, {
        cadence: 'weekly',
        periodEnds: w.slice(0, 2),
        sectors: ['from-sector'],
        methodology: tight,
        log,
      });
      expect(first.map((o) => o.status)).toEqual(['published', 'published']);
      // A third release of the sector would take every member to 0.178 > 0.15: refused, nothing stored.
      const refused = await publishCells(other.ctx, {
        cadence: 'weekly',
        periodEnds: [w[2]!],
        sectors: ['from-sector'],
        methodology: tight,
        log,
      });
      expect(refused.map((o) => o.status)).toEqual(['cap_exceeded']);
      expect(logs.some((l) => l.includes('refused weekly release from-sector 2025-01-26'))).toBe(true);
      expect(
        await other.db.selectFrom('tacsi_cells').select('id').where('period_end', '=', w[2]!).execute(),
      ).toHaveLength(0);

      // One brand moves to to-sector on 2025-01-20, after being in two from-sector releases.
      const mover = brandId('from-sector', 1);
      await setSector(other.db, mover, 'to-sector', '2025-01-20');
      const history = await other.db
        .selectFrom('workspace_sector_history')
        .selectAll()
        .where('workspace_id', '=', mover)
        .orderBy('valid_from')
        .execute();
      expect(history.map((h) => [h.sector_slug, h.valid_until])).toEqual([
        ['from-sector', '2025-01-20'],
        ['to-sector', null],
      ]);
      // to-sector's first release: its own members are at 0, the mover at 0.118 + 0.059 > 0.15? No:
      // 0.177 > 0.15, so the mover is left out, while the release goes ahead for everyone else.
      const moved = await publishCells(other.ctx, {
        cadence: 'weekly',
        periodEnds: [w[2]!],
        sectors: ['to-sector'],
        methodology: tight,
        log,
      });
      expect(moved).toMatchObject([{ sector: 'to-sector', status: 'published', excluded: 1 }]);
      // The next week: the sector is still under the cap; the mover (now also charged to-sector's
      // 01-26 release, which overlapped its membership) stays out.
      const stay = await publishCells(other.ctx, {
        cadence: 'weekly',
        periodEnds: [w[3]!],
        sectors: ['to-sector'],
        methodology: tight,
        log,
      });
      expect(stay).toMatchObject([{ sector: 'to-sector', status: 'published', excluded: 1 }]);
    } finally {
      await other.close();
    }
  }, 60_000);
});

describe('weekly cells derived only from a complete week of daily cells', () => {
  it('noises a week with a day below 250 directly, keeping its published daily cells', async () => {
    const other = await startTestService({ tacsiM2From: '2025-01-06' });
    try {
      other.setNow(new Date('2025-01-22T00:00:00Z'));
      await seedM2Fixture(other.db, [{ slug: 'edge', brands: 252, level: 55 }], '2025-01-06', '2025-01-19');
      // Five brands have no score on the second week's Saturday and Sunday: n = 247 < 250 those days.
      await other.db
        .deleteFrom('daily_scores')
        .where(
          'workspace_id',
          'in',
          [1, 2, 3, 4, 5].map((i) => brandId('edge', i)),
        )
        .where('day', 'in', ['2025-01-18', '2025-01-19'])
        .execute();
      const outcomes = await publishCells(other.ctx, {
        cadence: 'weekly',
        periodEnds: ['2025-01-12', '2025-01-19'],
        sectors: ['edge'],
        log,
      });
      const weekly = outcomes.filter((o) => o.cadence === 'weekly');
      // The complete week is derived (the mean of seven daily means, rho 0); the other one would be the
      // mean of five daily means, a different estimand from the week's entity means: noised directly.
      expect(weekly.map((o) => `${o.periodEnd} ${o.derivation}`)).toEqual([
        '2025-01-12 daily',
        '2025-01-19 noised',
      ]);
      expect(outcomes.filter((o) => o.cadence === 'daily' && o.status === 'published')).toHaveLength(12);
      const ledger = await other.db
        .selectFrom('tacsi_rho_ledger')
        .select(['kind', 'period_end'])
        .where('kind', '=', 'weekly')
        .execute();
      expect(ledger).toEqual([{ kind: 'weekly', period_end: '2025-01-19' }]);
    } finally {
      await other.close();
    }
  }, 60_000);
});
