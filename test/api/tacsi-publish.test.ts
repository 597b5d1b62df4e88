import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consumerSectors, loadCohortRows } from '../../src/tacsi/cohorts.ts';
import { tacsiCli } from '../../src/tacsi/cli.ts';
import { TACSI_QUEUES, runScheduledPublication } from '../../src/tacsi/jobs.ts';
import {
  cryptoRandomSource,
  getMethodology,
  seededRandomSource,
  type Methodology,
  type RandomSource,
} from '../../src/tacsi/privacy/index.ts';
import { publishCells, publishWeeklyPeriod } from '../../src/tacsi/publish.ts';
import { tacsiSandbox } from '../../src/tacsi/sandbox.ts';
import type { SandboxManifest } from '../../src/sandbox/manifest.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { seedTacsiFixture, type TacsiFixture } from './tacsi-fixture.ts';
import { addDays } from '../../src/core/days.ts';

// Ten full ISO weeks: Monday 2025-01-06 to Sunday 2025-03-16.
const FIRST_DAY = '2025-01-06';
const LAST_DAY = '2025-03-16';
const SECTORS = [
  { slug: 'alpha-goods', brands: 60, level: 40 },
  { slug: 'beta-foods', brands: 110, level: 60 },
  { slug: 'gamma', brands: 55, level: 50 },
  { slug: 'tiny-sector', brands: 20, level: 70 },
  { slug: 'b2b-tools', brands: 60, level: 30, consumer: false },
];

let t: TestService;
let fixture: TacsiFixture;
const logs: string[] = [];
const log = (line: string) => logs.push(line);

/** A crypto source that counts how many bytes publication drew. */
function countingSource(): RandomSource & { calls: number } {
  const inner = cryptoRandomSource();
  const source = {
    kind: 'crypto' as const,
    calls: 0,
    nextBytes(length: number) {
      source.calls += 1;
      return inner.nextBytes(length);
    },
  };
  return source;
}

async function cells(cadence?: 'weekly' | 'daily') {
  let q = t.db
    .selectFrom('tacsi_cells')
    .selectAll()
    .orderBy('sector')
    .orderBy('cadence')
    .orderBy('period_end');
  if (cadence) q = q.where('cadence', '=', cadence);
  return q.execute();
}

async function ledger() {
  return t.db.selectFrom('tacsi_privacy_ledger').selectAll().orderBy('id').execute();
}

const f32 = Math.fround;

/** The exact cohort mean the publisher perturbs: weekly (or daily) means of the float4 scores. */
function trueMean(sector: string | null, days: string[]): number {
  const members = fixture.workspaces.filter(
    (w) => w.accountType === 'brand' && (sector === null ? w.sector !== 'b2b-tools' : w.sector === sector),
  );
  const means = members.map((w) => {
    const byDay = fixture.scores.get(w.id)!;
    return days.reduce((s, d) => s + f32(byDay.get(d)!.score), 0) / days.length;
  });
  return means.reduce((s, x) => s + x, 0) / means.length;
}

const weekDays = (sunday: string) => Array.from({ length: 7 }, (_, i) => addDays(sunday, i - 6));

beforeAll(async () => {
  t = await startTestService();
  t.setNow(new Date('2025-03-17T06:00:00Z'));
});
afterAll(async () => t?.close());

describe('TACSI publication', () => {
  it('the sandbox extension does nothing while daily_scores is empty', async () => {
    const lines: string[] = [];
    await tacsiSandbox.run(t.ctx, { tacsi: {} } as unknown as SandboxManifest, (l) => lines.push(l));
    expect(lines.join('\n')).toMatch(/no daily scores/);
    expect(await cells()).toHaveLength(0);
    fixture = await seedTacsiFixture(t.db, SECTORS, FIRST_DAY, LAST_DAY);
  });

  it('computes one row per consumer brand per ISO week (mean of its days) and per day', async () => {
    const consumer = await consumerSectors(t.db);
    expect(consumer).toEqual(['alpha-goods', 'beta-foods', 'gamma', 'tiny-sector']);
    const weekly = await loadCohortRows(t.db, 'weekly', '2025-01-12', '2025-01-19', consumer);
    const ends = new Set(weekly.map((r) => r.periodEnd));
    expect([...ends].sort()).toEqual(['2025-01-12', '2025-01-19']);
    const sectors = new Set(weekly.map((r) => r.sector));
    expect([...sectors].sort()).toEqual(['alpha-goods', 'beta-foods', 'gamma', 'tiny-sector']);
    // Every brand once per week; creators are never in a cohort.
    const brandsOf = (s: string) =>
      fixture.workspaces.filter((w) => w.sector === s && w.accountType === 'brand');
    for (const s of ['alpha-goods', 'beta-foods', 'gamma', 'tiny-sector']) {
      const rows = weekly.filter((r) => r.sector === s && r.periodEnd === '2025-01-19');
      expect(rows.map((r) => r.entity.entityId).sort()).toEqual(
        brandsOf(s)
          .map((w) => w.id)
          .sort(),
      );
    }
    const one = brandsOf('gamma')[3]!;
    const row = weekly.find((r) => r.entity.entityId === one.id && r.periodEnd === '2025-01-19')!;
    const days = weekDays('2025-01-19');
    const byDay = fixture.scores.get(one.id)!;
    expect(row.entity.indexValue).toBeCloseTo(days.reduce((s, d) => s + f32(byDay.get(d)!.score), 0) / 7, 9);
    expect(row.entity.pillars.impact).toBeCloseTo(
      days.reduce((s, d) => s + f32(byDay.get(d)!.impact), 0) / 7,
      9,
    );

    const daily = await loadCohortRows(t.db, 'daily', '2025-02-03', '2025-02-03', ['gamma']);
    expect(daily).toHaveLength(55);
    const dayRow = daily.find((r) => r.entity.entityId === one.id)!;
    expect(dayRow.entity.indexValue).toBe(f32(byDay.get('2025-02-03')!.score));
  });

  it('refuses a seeded random source, a non-Sunday week and a period that is not over', async () => {
    await expect(
      publishCells(t.ctx, { cadence: 'weekly', periodEnds: ['2025-01-12'], rng: seededRandomSource('x') }),
    ).rejects.toThrow(/cryptographic/);
    await expect(publishWeeklyPeriod(t.ctx, '2025-01-13')).rejects.toMatchObject({
      kind: 'invalid_parameter',
      details: { parameter: 'period_end' },
    });
    await expect(publishCells(t.ctx, { cadence: 'daily', periodEnds: ['2025-03-17'] })).rejects.toThrow(
      /not over/,
    );
    await expect(
      publishCells(t.ctx, { cadence: 'weekly', periodEnds: ['2025-01-12'], sectors: ['b2b-tools'] }),
    ).rejects.toThrow(/not a consumer sector/);
    expect(await cells()).toHaveLength(0);
  });

  it('publishes one weekly period for every consumer sector and the headline, except small cohorts', async () => {
    const outcomes = await publishWeeklyPeriod(t.ctx, '2025-01-12', { log });
    expect(outcomes.map((o) => [o.sector, o.status, o.cohortBand])).toEqual([
      ['alpha-goods', 'published', 'n >= 50'],
      ['beta-foods', 'published', 'n >= 100'],
      ['gamma', 'published', 'n >= 50'],
      ['tiny-sector', 'below_min_cohort', undefined],
      ['headline', 'published', 'n >= 100'],
    ]);
    const rows = await cells('weekly');
    expect(rows.map((r) => r.sector).sort()).toEqual(['alpha-goods', 'beta-foods', 'gamma', 'headline']);
    for (const r of rows) {
      expect(r.period_end).toBe('2025-01-12');
      expect(r.methodology_version).toBe('tacsi-m1');
      expect(r.delta).toBeNull();
      // Noise has scale 2; 25 points is over 12 scales (probability < 1e-5 per value).
      const truth = trueMean(r.sector === 'headline' ? null : r.sector, weekDays('2025-01-12'));
      expect(Math.abs(r.index_value - truth)).toBeLessThan(25);
      for (const v of [r.index_value, r.presence, r.reach, r.impact, r.sentiment, r.momentum]) {
        expect(Math.round(v * 100) / 100).toBe(v);
      }
    }
    const entries = await ledger();
    expect(entries).toHaveLength(4);
    for (const e of entries) {
      const cell = rows.find((r) => r.id === e.cell_id)!;
      expect(e).toMatchObject({
        sector: cell.sector,
        cadence: 'weekly',
        period_end: '2025-01-12',
        methodology_version: 'tacsi-m1',
        mechanism: 'discrete-laplace',
        epsilon: 6,
        noise_scale: 2,
      });
    }
  });

  it('re-running a published period is a no-op: no random draw, identical cells, unchanged ledger', async () => {
    const before = await cells();
    const ledgerBefore = await ledger();
    const rng = countingSource();
    const outcomes = await publishWeeklyPeriod(t.ctx, '2025-01-12', { rng, log });
    expect(outcomes.filter((o) => o.status === 'exists').map((o) => o.sector)).toEqual([
      'alpha-goods',
      'beta-foods',
      'gamma',
      'headline',
    ]);
    expect(outcomes.find((o) => o.sector === 'tiny-sector')?.status).toBe('below_min_cohort');
    expect(rng.calls).toBe(0);
    expect(await cells()).toEqual(before);
    expect(await ledger()).toEqual(ledgerBefore);
  });

  it('sets delta from the previous published cell of the series', async () => {
    await publishCells(t.ctx, { cadence: 'weekly', periodEnds: ['2025-01-19', '2025-01-26'], log });
    // A one-sector publication leaves the others untouched.
    await publishCells(t.ctx, { cadence: 'weekly', periodEnds: ['2025-02-02'], sectors: ['gamma'], log });
    const rows = await cells('weekly');
    for (const sector of ['alpha-goods', 'headline', 'gamma']) {
      const series = rows.filter((r) => r.sector === sector);
      expect(series.map((r) => r.period_end)).toEqual(
        sector === 'gamma'
          ? ['2025-01-12', '2025-01-19', '2025-01-26', '2025-02-02']
          : ['2025-01-12', '2025-01-19', '2025-01-26'],
      );
      expect(series[0]!.delta).toBeNull();
      for (let i = 1; i < series.length; i++) {
        expect(series[i]!.delta).toBeCloseTo(series[i]!.index_value - series[i - 1]!.index_value, 9);
        expect(Math.round(series[i]!.delta! * 100) / 100).toBe(series[i]!.delta);
      }
    }
  });

  it('publishes daily cells with a day value per entity', async () => {
    const outcomes = await publishCells(t.ctx, {
      cadence: 'daily',
      periodEnds: ['2025-02-03', '2025-02-04'],
      log,
    });
    expect(outcomes.filter((o) => o.status === 'published')).toHaveLength(8);
    const daily = await cells('daily');
    const gamma = daily.filter((r) => r.sector === 'gamma');
    expect(gamma.map((r) => r.period_end)).toEqual(['2025-02-03', '2025-02-04']);
    expect(Math.abs(gamma[0]!.index_value - trueMean('gamma', ['2025-02-03']))).toBeLessThan(25);
    expect(gamma[1]!.delta).toBeCloseTo(gamma[1]!.index_value - gamma[0]!.index_value, 9);
  });

  it('the scheduled weekly run publishes the week that ended on Sunday (and catches up the one before)', async () => {
    for (const name of Object.values(TACSI_QUEUES)) expect(await t.ctx.jobs.boss.getQueue(name)).toBeTruthy();
    t.setNow(new Date('2025-03-17T03:30:00Z'));
    const outcomes = await runScheduledPublication(t.ctx, 'weekly');
    expect([...new Set(outcomes.map((o) => o.periodEnd))]).toEqual(['2025-03-09', '2025-03-16']);
    expect(outcomes.filter((o) => o.status === 'published')).toHaveLength(8);
    const daily = await runScheduledPublication(t.ctx, 'daily');
    expect([...new Set(daily.map((o) => o.periodEnd))]).toEqual(['2025-03-14', '2025-03-15', '2025-03-16']);
    t.setNow(new Date('2025-03-17T06:00:00Z'));
  });

  it('the CLI publishes one sector period and fails on invalid input', async () => {
    const printed: unknown[] = [];
    const program = new Command('brandhealth').exitOverride();
    tacsiCli(program, (fn) => fn(t.ctx), { result: (value) => printed.push(value) });
    await program.parseAsync(
      ['tacsi', 'publish', '--sector', 'beta-foods', '--cadence', 'weekly', '--period-end', '2025-02-09'],
      {
        from: 'user',
      },
    );
    expect(printed[0]).toEqual([
      {
        sector: 'beta-foods',
        cadence: 'weekly',
        periodEnd: '2025-02-09',
        status: 'published',
        cohortBand: 'n >= 100',
      },
    ]);
    await expect(
      program.parseAsync(
        ['tacsi', 'publish', '--sector', 'beta-foods', '--cadence', 'weekly', '--period-end', '2025-02-10'],
        {
          from: 'user',
        },
      ),
    ).rejects.toMatchObject({
      kind: 'invalid_parameter',
      detail: '2025-02-10 is not a Sunday (weekly periods end on Sundays)',
    });
  });

  it('refuses a cell that would exceed the annual cap, logs it, and stores nothing for it', async () => {
    // A methodology whose cap allows exactly two cells (epsilon 6 each) per rolling year, used on
    // scores far (> 1 year) from every other publication of this file.
    const tight: Methodology = {
      ...getMethodology('tacsi-m1'),
      version: 'tacsi-test-tight',
      annualCapPerEntity: 12,
    };
    const days = ['2023-06-01', '2023-06-02', '2023-06-03'];
    const alpha = fixture.workspaces.filter((w) => w.sector === 'alpha-goods' && w.accountType === 'brand');
    await t.db
      .insertInto('daily_scores')
      .values(
        alpha.flatMap((w, i) =>
          days.map((day) => ({
            workspace_id: w.id,
            day,
            score: 40 + (i % 10),
            presence: 40,
            reach: 41,
            impact: 42,
            sentiment: 43,
            momentum: 44,
            formula_version: 'v1',
          })),
        ),
      )
      .execute();
    const ledgerBefore = (await ledger()).length;
    const first = await publishCells(t.ctx, {
      cadence: 'daily',
      periodEnds: days,
      sectors: ['alpha-goods'],
      methodology: tight,
      log,
    });
    expect(first.map((o) => [o.periodEnd, o.status])).toEqual([
      ['2023-06-01', 'published'],
      ['2023-06-02', 'published'],
      ['2023-06-03', 'cap_exceeded'],
    ]);
    expect(
      logs.some((l) => /refused daily cell alpha-goods 2023-06-03/.test(l) && /annual cap 12/.test(l)),
    ).toBe(true);
    // A backfill of an earlier day would push the window holding the two later cells over the cap.
    await t.db
      .insertInto('daily_scores')
      .values(
        alpha.map((w) => ({
          workspace_id: w.id,
          day: '2023-05-31',
          score: 40,
          presence: 40,
          reach: 40,
          impact: 40,
          sentiment: 40,
          momentum: 40,
          formula_version: 'v1',
        })),
      )
      .execute();
    const backfilled = await publishCells(t.ctx, {
      cadence: 'daily',
      periodEnds: ['2023-05-31'],
      sectors: ['alpha-goods'],
      methodology: tight,
      log,
    });
    expect(backfilled[0]!.status).toBe('cap_exceeded');
    const stored = (await cells('daily')).filter((r) => r.period_end < '2024-01-01');
    expect(stored.map((r) => r.period_end)).toEqual(['2023-06-01', '2023-06-02']);
    expect((await ledger()).length).toBe(ledgerBefore + 2);
  });

  it('does not re-release a period already charged under another methodology', async () => {
    const other: Methodology = { ...getMethodology('tacsi-m1'), version: 'tacsi-test-other' };
    const rng = countingSource();
    const outcomes = await publishCells(t.ctx, {
      cadence: 'weekly',
      periodEnds: ['2025-01-12'],
      sectors: ['gamma'],
      methodology: other,
      rng,
      log,
    });
    expect(outcomes[0]!.status).toBe('already_charged');
    expect(rng.calls).toBe(0);
  });

  it('the sandbox extension backfills every full week and the last 60 days under tacsi-m2, idempotently', async () => {
    const manifest = { tacsi: {} } as unknown as SandboxManifest;
    const lines: string[] = [];
    // The sandbox publishes into its own, new database: its cut-over (its first scored day) is fixed
    // by its first publication. Here the earlier tests' publications (which fixed another cut-over)
    // are cleared to stand for that...
    for (const table of [
      'tacsi_entity_charges',
      'tacsi_rho_ledger',
      'tacsi_privacy_ledger',
      'tacsi_histograms',
      'tacsi_cells',
      'tacsi_cutover',
    ] as const)
      await t.db.deleteFrom(table).execute();
    // ...and the 2023 scores the annual-cap tests added, which the sandbox's data does not have.
    await t.db.deleteFrom('daily_scores').where('day', '<', '2025-01-01').execute();
    await tacsiSandbox.run(t.ctx, manifest, (l) => lines.push(l));
    const all = await cells('weekly');
    expect((await cells()).filter((r) => r.methodology_version === 'tacsi-m1')).toHaveLength(0);
    const weeklyEnds = [...new Set(all.map((r) => r.period_end))].filter((e) => e >= '2025-01-12').sort();
    expect(weeklyEnds).toHaveLength(10);
    expect(weeklyEnds.at(-1)).toBe('2025-03-16');
    for (const end of weeklyEnds) {
      const sectors = all.filter((r) => r.period_end === end).map((r) => r.sector);
      expect(new Set(sectors).size).toBe(sectors.length);
      expect(sectors.sort()).toEqual(['alpha-goods', 'beta-foods', 'gamma', 'headline']);
    }
    expect(all.some((r) => r.methodology_version === 'tacsi-m2')).toBe(true);
    // No cohort here reaches 250 brands: tacsi-m2 publishes no daily cell.
    expect((await cells('daily')).filter((r) => r.methodology_version === 'tacsi-m2')).toEqual([]);
    expect((manifest.tacsi as Record<string, unknown>).publication).toEqual({
      weekly: { from: '2025-01-12', to: '2025-03-16' },
      daily: { from: '2025-01-16', to: '2025-03-16' },
    });

    const ledgerBefore = await ledger();
    const rng = countingSource();
    lines.length = 0;
    await tacsiSandbox.run(t.ctx, manifest, (l) => lines.push(l));
    expect(lines.join('\n')).toMatch(/ 0 tacsi-m2 cells published/);
    expect(await ledger()).toEqual(ledgerBefore);
    expect(rng.calls).toBe(0);
  });
});
