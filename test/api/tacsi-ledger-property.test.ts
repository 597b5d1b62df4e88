// Property: whatever the sequence of sector changes (back-dated or not), backfills, scheduled runs and
// one-off publications, no entity's recorded charges exceed the annual rho cap in any rolling year, and
// what the per-entity ledger says each entity was charged agrees with the membership history.
// A small cap (0.3: about five weekly releases) makes the cap bind within a short fixture; a 250-brand
// sector publishes daily cells, and moving brands out of it mixes daily and weekly releases.
import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setSector } from '../../src/admin/workspaces.ts';
import { DomainError } from '../../src/core/errors.ts';
import { addDays } from '../../src/core/days.ts';
import { runScheduledPublication } from '../../src/tacsi/jobs.ts';
import { lastCompletedPeriodEnd } from '../../src/tacsi/periods.ts';
import { defineGaussianMethodology, maxRollingRho } from '../../src/tacsi/privacy/index.ts';
import { backfill, publishCells } from '../../src/tacsi/publish.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { brandId, seedM2Fixture } from './tacsi-m2-fixture.ts';

const CUT = '2025-01-06';
const LAST_DAY = '2025-04-27';
const START = new Date('2025-01-21T06:00:00Z');
const SECTORS = [
  { slug: 'big', brands: 252, level: 55 },
  { slug: 'mid', brands: 60, level: 60 },
  { slug: 'low', brands: 55, level: 45 },
];
const TARGETS = ['big', 'mid', 'low', null] as const;
/** The brands the property may move: a few of each sector. */
const MOVABLE = SECTORS.flatMap((s) => [1, 2, 3].map((i) => brandId(s.slug, i)));

const tight = defineGaussianMethodology({
  version: 'tacsi-m2',
  noiseMultipliers: { daily: [33, 2], weekly: [13, 2], histogram: [3, 1] },
  annualRhoCap: [3, 10],
  delta: 1e-10,
});
const CAP_NANO = tight.annualRhoCapNano;

type Op =
  | { op: 'advance'; days: number }
  | { op: 'move'; brand: number; target: number; back: number }
  | { op: 'publish'; cadence: 'weekly' | 'daily'; back: number }
  | { op: 'backfill'; weeks: number; days: number }
  | { op: 'scheduled'; cadence: 'weekly' | 'daily' };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ op: fc.constant('advance' as const), days: fc.integer({ min: 1, max: 20 }) }),
  fc.record({
    op: fc.constant('move' as const),
    brand: fc.integer({ min: 0, max: MOVABLE.length - 1 }),
    target: fc.integer({ min: 0, max: TARGETS.length - 1 }),
    back: fc.integer({ min: 0, max: 30 }),
  }),
  fc.record({
    op: fc.constant('publish' as const),
    cadence: fc.constantFrom('weekly' as const, 'daily' as const),
    back: fc.integer({ min: 0, max: 4 }),
  }),
  fc.record({
    op: fc.constant('backfill' as const),
    weeks: fc.integer({ min: 0, max: 8 }),
    days: fc.integer({ min: 0, max: 20 }),
  }),
  fc.record({
    op: fc.constant('scheduled' as const),
    cadence: fc.constantFrom('weekly' as const, 'daily' as const),
  }),
);

let t: TestService;
let now = START;

beforeAll(async () => {
  t = await startTestService({ tacsiM2From: CUT });
  await seedM2Fixture(t.db, SECTORS, CUT, LAST_DAY);
}, 120_000);
afterAll(async () => t?.close());

/** Back to the seeded state: nothing published, every workspace in its original sector since always. */
async function reset(): Promise<void> {
  for (const table of [
    'tacsi_entity_charges',
    'tacsi_rho_ledger',
    'tacsi_privacy_ledger',
    'tacsi_histograms',
    'tacsi_cells',
    'tacsi_cutover',
  ] as const)
    await t.db.deleteFrom(table).execute();
  await sql`UPDATE workspaces SET sector_slug = substring(id FROM 4 FOR position('-b' IN id) - 4)
             WHERE id LIKE 'ws\\_%-b%'`.execute(t.db);
  await t.db.deleteFrom('workspace_sector_history').execute();
  await sql`INSERT INTO workspace_sector_history (workspace_id, sector_slug, valid_from)
            SELECT id, sector_slug, '-infinity'::date FROM workspaces WHERE sector_slug IS NOT NULL`.execute(
    t.db,
  );
  now = START;
  t.setNow(now);
}

const today = () => now.toISOString().slice(0, 10);

async function apply(o: Op): Promise<void> {
  const log = () => {};
  switch (o.op) {
    case 'advance': {
      const next = new Date(now.getTime() + o.days * 86_400_000);
      if (next.toISOString().slice(0, 10) <= addDays(LAST_DAY, 1)) now = next;
      t.setNow(now);
      return;
    }
    case 'move':
      try {
        await setSector(t.db, MOVABLE[o.brand]!, TARGETS[o.target]!, addDays(today(), -o.back));
      } catch (error) {
        // Refused: the change would rewrite a published period.
        if (!(error instanceof DomainError) || error.kind !== 'conflict') throw error;
        expect(error.message).toContain('TACSI has already published');
      }
      return;
    case 'publish': {
      const last = lastCompletedPeriodEnd(o.cadence, today());
      const end = addDays(last, -(o.cadence === 'weekly' ? 7 : 1) * o.back);
      if (end < CUT) return;
      await publishCells(t.ctx, { cadence: o.cadence, periodEnds: [end], methodology: tight, log });
      return;
    }
    case 'backfill':
      await backfill(t.ctx, { weeks: o.weeks, days: o.days, methodology: tight, log });
      return;
    case 'scheduled': {
      // The periods of a scheduled run (the latest and its catch-up), with the small cap.
      const last = lastCompletedPeriodEnd(o.cadence, today());
      const periodEnds =
        o.cadence === 'weekly' ? [addDays(last, -7), last] : [addDays(last, -2), addDays(last, -1), last];
      await publishCells(t.ctx, { cadence: o.cadence, periodEnds, methodology: tight, log });
      return;
    }
  }
}

interface ChargeRow {
  workspace_id: string;
  scope: string;
  kind: 'daily' | 'weekly' | 'histogram';
  period_start: string;
  period_end: string;
  rho_units: string;
}

async function checkLedger(): Promise<void> {
  const rows = (
    await sql<ChargeRow>`
      SELECT c.workspace_id, l.scope, l.kind, l.period_start::text AS period_start,
             l.period_end::text AS period_end, l.rho_units::text AS rho_units
        FROM tacsi_entity_charges c JOIN tacsi_rho_ledger l ON l.id = c.ledger_id`.execute(t.db)
  ).rows;
  const byEntity = new Map<string, ChargeRow[]>();
  for (const r of rows) byEntity.set(r.workspace_id, [...(byEntity.get(r.workspace_id) ?? []), r]);
  for (const [entity, charges] of byEntity) {
    const worst = maxRollingRho(
      charges.map((c) => ({
        entityScope: c.scope,
        kind: c.kind,
        periodEnd: c.period_end,
        rhoNano: Number(c.rho_units),
      })),
    );
    expect(worst.rhoNano, `${entity} over the cap`).toBeLessThanOrEqual(CAP_NANO);
  }
  // Every recorded charge is of a release of a sector the entity belonged to during its period,
  // according to the membership history as it stands now: history was never rewritten under it.
  const history = await t.db.selectFrom('workspace_sector_history').selectAll().execute();
  for (const r of rows) {
    const member = history.some(
      (h) =>
        h.workspace_id === r.workspace_id &&
        h.sector_slug === r.scope &&
        (String(h.valid_from) === '-infinity' || h.valid_from <= r.period_end) &&
        (h.valid_until === null || h.valid_until > r.period_start),
    );
    expect(member, `${r.workspace_id} charged ${r.scope} ${r.period_end} outside its membership`).toBe(true);
  }
}

describe('the one ledger under random operations', () => {
  it('keeps every entity within the rolling-year cap, whatever the order of moves, backfills and publications', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 3, maxLength: 9 }), async (ops) => {
        await reset();
        for (const o of ops) await apply(o);
        // Whatever happened, finish with a full backfill (the path that reaches furthest back).
        await backfill(t.ctx, { weeks: 20, days: 20, methodology: tight, log: () => {} });
        await checkLedger();
      }),
      { numRuns: 8, seed: 20251128, endOnFailure: true },
    );
  }, 600_000);

  it('the scheduled jobs take the same path', async () => {
    await reset();
    now = new Date('2025-02-03T03:30:00Z');
    t.setNow(now);
    await runScheduledPublication(t.ctx, 'daily');
    await runScheduledPublication(t.ctx, 'weekly');
    const cells = await t.db.selectFrom('tacsi_cells').select('id').execute();
    expect(cells.length).toBeGreaterThan(0);
    await checkLedger();
  }, 120_000);
});
