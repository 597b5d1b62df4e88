// One ledger, every path (docs/privacy.md sections 1, 3 and 10): tacsi-m1 is closed from the cut-over
// day on whatever the path (scheduled catch-up, backfill, `tacsi publish`, a changed TACSI_M2_FROM);
// the cut-over is fixed by the first publication; every release records who it charged; a sector
// change back-dated over published periods is refused; the stored delta is against the previous
// published cell.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setSector } from '../../src/admin/workspaces.ts';
import { runCli } from '../../src/cli/program.ts';
import { DEFAULT_TACSI_M2_FROM } from '../../src/infra/config.ts';
import { runScheduledPublication } from '../../src/tacsi/jobs.ts';
import { backfill, publishCells } from '../../src/tacsi/publish.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { brandId, seedM2Fixture } from './tacsi-m2-fixture.ts';

// Cut-over on Monday 2025-02-03; scores from 2025-01-06 (four weeks before it) to 2025-03-02.
const CUT = '2025-02-03';
const FIRST_DAY = '2025-01-06';
const LAST_DAY = '2025-03-02';

let t: TestService;

beforeAll(async () => {
  t = await startTestService({ tacsiM2From: CUT });
  await seedM2Fixture(
    t.db,
    [
      { slug: 'north', brands: 60, level: 50 },
      { slug: 'south', brands: 60, level: 60 },
    ],
    FIRST_DAY,
    LAST_DAY,
  );
  // tacsi-m1 reads formula v1 scores: the same rows as v1.
  await sql`
    INSERT INTO daily_scores (workspace_id, day, score, presence, reach, impact, sentiment, momentum, formula_version)
    SELECT workspace_id, day, score, presence, reach, impact, sentiment, momentum, 'v1'
      FROM daily_scores WHERE formula_version = 'v2'`.execute(t.db);
  // Before the cut-over day, the archive is tacsi-m1: publish its first two weeks.
  t.setNow(new Date('2025-01-21T06:00:00Z'));
  const m1 = await publishCells(t.ctx, {
    cadence: 'weekly',
    periodEnds: ['2025-01-12', '2025-01-19'],
    log: () => {},
  });
  expect(m1.filter((o) => o.status === 'published').map((o) => o.sector)).toEqual([
    'north',
    'south',
    'headline',
    'north',
    'south',
    'headline',
  ]);
  t.setNow(new Date('2025-02-11T06:00:00Z'));
}, 120_000);
afterAll(async () => t?.close());

const cellCount = async (methodology: string) =>
  (await t.db.selectFrom('tacsi_cells').select('id').where('methodology_version', '=', methodology).execute())
    .length;

async function cli(argv: string[]): Promise<{ code: number; err: string }> {
  let err = '';
  const code = await runCli(argv, { out: () => {}, err: (s) => (err += s) }, (fn) => fn(t.ctx));
  return { code, err };
}

describe('tacsi-m1 is closed from the cut-over day on, on every path', () => {
  it('the scheduled weekly catch-up reports the week before the cut-over as closed and publishes nothing for it', async () => {
    const before = await cellCount('tacsi-m1');
    // Monday 2025-02-03 is the cut-over day: the job covers the weeks ending 01-26 and 02-02.
    t.setNow(new Date('2025-02-03T03:30:00Z'));
    const outcomes = await runScheduledPublication(t.ctx, 'weekly');
    expect(new Set(outcomes.map((o) => o.status))).toEqual(new Set(['closed']));
    expect(await cellCount('tacsi-m1')).toBe(before);
    const daily = await runScheduledPublication(t.ctx, 'daily');
    expect(new Set(daily.map((o) => o.status))).toEqual(new Set(['closed']));
    t.setNow(new Date('2025-02-11T06:00:00Z'));
  });

  it('a backfill reaching before the cut-over publishes tacsi-m2 only', async () => {
    const m1 = await cellCount('tacsi-m1');
    const outcomes = await backfill(t.ctx, { weeks: 5, days: 0, log: () => {} });
    const byPeriod = new Map<string, Set<string>>();
    for (const o of outcomes)
      byPeriod.set(o.periodEnd, (byPeriod.get(o.periodEnd) ?? new Set()).add(o.status));
    expect(byPeriod.get('2025-01-12')).toEqual(new Set(['closed']));
    expect(byPeriod.get('2025-01-26')).toEqual(new Set(['closed']));
    expect(byPeriod.get('2025-02-09')).toEqual(new Set(['published']));
    expect(await cellCount('tacsi-m1')).toBe(m1);
    expect(await cellCount('tacsi-m2')).toBeGreaterThan(0);
  });

  it('`tacsi publish --period-end` before the cut-over is a clear CLI error', async () => {
    const res = await cli([
      'tacsi',
      'publish',
      '--sector',
      'north',
      '--cadence',
      'weekly',
      '--period-end',
      '2025-01-26',
    ]);
    expect(res.code).toBe(1);
    expect(res.err).toContain('before the tacsi-m2 cut-over: tacsi-m1 is closed');
    const stored = await t.db
      .selectFrom('tacsi_cells')
      .select('id')
      .where('period_end', '=', '2025-01-26')
      .execute();
    expect(stored).toEqual([]);
  });

  it('the cut-over is fixed by the first publication: a different TACSI_M2_FROM is refused', async () => {
    const fixed = await t.db.selectFrom('tacsi_cutover').selectAll().execute();
    expect(fixed.map((r) => [r.methodology_version, r.periods_ending_on_or_after])).toEqual([
      ['tacsi-m2', CUT],
    ]);
    // Moving the cut-over later would route 2025-02-09 back to tacsi-m1; earlier, re-release m1 weeks.
    for (const moved of ['2025-03-01', '2025-01-13']) {
      const ctx = { ...t.ctx, config: { ...t.ctx.config, tacsiM2From: moved } };
      const attempt = publishCells(ctx, { cadence: 'weekly', periodEnds: ['2025-02-09'], log: () => {} });
      await expect(attempt).rejects.toMatchObject({ kind: 'conflict' });
      await expect(attempt).rejects.toThrow(`fixed at ${CUT}`);
    }
    const methodology = await t.db.selectFrom('tacsi_cutover').selectAll().execute();
    expect(methodology).toEqual(fixed);
    // TACSI_M2_FROM unset (its default) follows the stored cut-over: nothing moves, nothing is refused.
    const unset = { ...t.ctx, config: { ...t.ctx.config, tacsiM2From: DEFAULT_TACSI_M2_FROM } };
    const outcomes = await publishCells(unset, {
      cadence: 'weekly',
      periodEnds: ['2025-01-26', '2025-02-09'],
      log: () => {},
    });
    expect(outcomes.map((o) => `${o.periodEnd} ${o.status}`)).toEqual([
      '2025-01-26 closed',
      '2025-01-26 closed',
      '2025-01-26 closed',
      '2025-02-09 exists',
      '2025-02-09 exists',
      '2025-02-09 exists',
    ]);
  });
});

describe('the per-entity ledger', () => {
  it('records, for every release of either methodology, exactly the entities it charged', async () => {
    const rows = await t.db
      .selectFrom('tacsi_rho_ledger as l')
      .leftJoin('tacsi_entity_charges as c', 'c.ledger_id', 'l.id')
      .select(['l.id', 'l.scope', 'l.methodology_version', 'l.period_end', 'l.kind'])
      .select((eb) => eb.fn.count('c.workspace_id').as('n'))
      .groupBy(['l.id', 'l.scope', 'l.methodology_version', 'l.period_end', 'l.kind'])
      .execute();
    const m1 = rows.filter((r) => r.methodology_version === 'tacsi-m1');
    // Two weeks x (north, south, headline); the tacsi-m1 headline charged both sectors' brands.
    expect(m1).toHaveLength(6);
    for (const r of m1) expect(Number(r.n)).toBe(r.scope === 'headline' ? 120 : 60);
    const m2 = rows.filter((r) => r.methodology_version === 'tacsi-m2');
    expect(m2.length).toBeGreaterThan(0);
    for (const r of m2) expect(Number(r.n)).toBe(60);
    // Creators are in no cohort, so in no release.
    const creators = await t.db
      .selectFrom('tacsi_entity_charges')
      .select('workspace_id')
      .where('workspace_id', 'in', [brandId('north', 61), brandId('south', 61)])
      .execute();
    expect(creators).toEqual([]);
  });

  it('the stored delta is against the previous published cell, across two scheduled runs', async () => {
    // Monday 02-17: the job covers 02-09 (published by the backfill) and 02-16 (new).
    t.setNow(new Date('2025-02-17T03:30:00Z'));
    await runScheduledPublication(t.ctx, 'weekly');
    t.setNow(new Date('2025-02-24T03:30:00Z'));
    await runScheduledPublication(t.ctx, 'weekly');
    t.setNow(new Date('2025-02-11T06:00:00Z'));
    const north = await t.db
      .selectFrom('tacsi_cells')
      .select(['period_end', 'index_value', 'delta'])
      .where('sector', '=', 'north')
      .where('cadence', '=', 'weekly')
      .where('methodology_version', '=', 'tacsi-m2')
      .orderBy('period_end')
      .execute();
    expect(north.map((c) => c.period_end)).toEqual(['2025-02-09', '2025-02-16', '2025-02-23']);
    expect(north[0]!.delta).toBeNull();
    for (const i of [1, 2]) {
      expect(north[i]!.delta).toBeCloseTo(north[i]!.index_value - north[i - 1]!.index_value, 9);
    }
  });
});

describe('sector changes over published periods', () => {
  it('refuses `workspace set-sector --from` over a published period of either sector, with a clear CLI error', async () => {
    const mover = brandId('north', 1);
    // north and south are published through 2025-02-23: a move effective 2025-02-10 would rewrite
    // who was in those releases (the taxonomy split of the privacy review, E6).
    const res = await cli(['workspace', 'set-sector', mover, '--sector', 'south', '--from', '2025-02-10']);
    expect(res.code).toBe(1);
    expect(res.err).toContain('TACSI has already published');
    expect(res.err).toContain('from 2025-02-24 at the earliest');
    const history = await t.db
      .selectFrom('workspace_sector_history')
      .select(['sector_slug', 'valid_until'])
      .where('workspace_id', '=', mover)
      .execute();
    expect(history).toEqual([{ sector_slug: 'north', valid_until: null }]);
    // A new sector with nothing published is covered too: the old sector's releases count.
    await t.db.insertInto('sectors').values({ slug: 'east', name: 'East', is_consumer: true }).execute();
    await expect(setSector(t.db, mover, 'east', '2025-02-01')).rejects.toThrow("north's");
  });

  it('accepts a change effective after the last published period, and charges the mover in both series', async () => {
    const mover = brandId('north', 2);
    await setSector(t.db, mover, 'south', '2025-02-24');
    const history = await t.db
      .selectFrom('workspace_sector_history')
      .select(['sector_slug', 'valid_from', 'valid_until'])
      .where('workspace_id', '=', mover)
      .orderBy('valid_from')
      .execute();
    expect(history.map((h) => [h.sector_slug, h.valid_until])).toEqual([
      ['north', '2025-02-24'],
      ['south', null],
    ]);
    t.setNow(new Date('2025-03-04T06:00:00Z'));
    await publishCells(t.ctx, { cadence: 'weekly', periodEnds: ['2025-03-02'], log: () => {} });
    t.setNow(new Date('2025-02-11T06:00:00Z'));
    const charged = await t.db
      .selectFrom('tacsi_entity_charges as c')
      .innerJoin('tacsi_rho_ledger as l', 'l.id', 'c.ledger_id')
      .select(['l.scope', 'l.period_end', 'l.kind'])
      .where('c.workspace_id', '=', mover)
      .where('l.methodology_version', '=', 'tacsi-m2')
      .orderBy('l.period_end')
      .orderBy('l.kind')
      .execute();
    const weeks = charged.filter((c) => c.kind === 'weekly').map((c) => `${c.scope} ${c.period_end}`);
    expect(weeks).toEqual(['north 2025-02-09', 'north 2025-02-16', 'north 2025-02-23', 'south 2025-03-02']);
  });
});
