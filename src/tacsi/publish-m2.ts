// The tacsi-m2 publisher (docs/privacy.md). Per sector and period, in one transaction under the
// publication lock:
//   daily   cells for cohorts of at least 250 brands, noised (discrete Gaussian on the pillars);
//   weekly  cells: the mean of the week's seven published daily cells when all seven are published
//           (post-processing, no privacy cost), else noised directly (charged, even if some days have
//           daily cells); a weekly publication first publishes the week's missing daily cells;
//   the peer-distribution histogram with the weekly cell of the last week ending in each month;
//   the headline (weekly only): derived from the week's published sector cells that no subscriber
//           holds exclusively, weighted by their public band floors (post-processing).
// Every noised release is checked against the annual rho cap (cap-guard.ts) BEFORE anything is
// drawn and stored with its ledger row; an entity whose own charges (across every sector it belonged
// to) would pass the cap is left out of the cohort, a decision that reads only the ledger and the
// membership history, never a score. A release that exists is never noised again.
import { sql, type Kysely } from 'kysely';
import type { DB } from '../infra/db/types.ts';
import { RhoCapGuard, type EntityCharge, type RhoLedgerRow } from './cap-guard.ts';
import { recordEntityCharges, recordedCharges } from './ledger-store.ts';
import { HEADLINE, loadMemberCohortRows, loadSectorChangers, type CohortRow } from './cohorts.ts';
import { snapToGrid } from './feeds.ts';
import { addDays } from '../core/days.ts';
import { periodStart, weekEndOf } from './periods.ts';
import {
  ROLLING_WINDOW_DAYS,
  compositeOf,
  deriveHeadline,
  deriveWeeklyFromDaily,
  isHistogramWeek,
  perturbCellGaussian,
  perturbHistogram,
  type EntityScores,
  type GaussianCell,
  type GaussianMethodology,
  type NoiseTerm,
  type PublishedHistogram,
  type RandomSource,
  type TacsiPillar,
} from './privacy/index.ts';
import type { PublicationOutcome } from './outcome.ts';

type Cadence = 'daily' | 'weekly';

export interface M2Request {
  cadence: Cadence;
  /** Validated, sorted, distinct period ends of the cadence, all over. */
  periodEnds: readonly string[];
  /** Resolved scopes: consumer sector slugs and possibly 'headline'. */
  scopes: readonly string[];
  allSectors: readonly string[];
  m: GaussianMethodology;
  rng: RandomSource;
  log: (message: string) => void;
  /** Daily cells are published only for days on or after this (the cut-over). */
  firstDay: string;
  today: string;
  /** The publication's instant, stored on every cell and histogram it publishes. */
  publishedAt: Date;
}

export interface StoredCell extends GaussianCell {
  sector: string;
  periodEnd: string;
  derivation: 'noised' | 'daily' | 'sectors';
  /** The cell's vintage: the latest stored one for a loaded cell; absent (1) for a first publication. */
  vintage?: number;
}

export interface CellToInsert {
  cell: StoredCell;
  cadence: Cadence;
  charge: RhoLedgerRow | null;
  outcome: PublicationOutcome;
  /** Why a later vintage is published (a correction); absent for a first publication. */
  reason?: string;
}

export const key = (sector: string, periodEnd: string) => `${sector}|${periodEnd}`;

/** Publish the request inside `trx` (which holds the publication lock). */
export async function publishM2(trx: Kysely<DB>, req: M2Request): Promise<PublicationOutcome[]> {
  const { cadence, periodEnds, m } = req;
  const sectors = req.scopes.filter((s) => s !== HEADLINE);
  const headline = req.scopes.includes(HEADLINE);
  const outcomes: PublicationOutcome[] = [];
  const first = periodEnds[0]!;
  const last = periodEnds[periodEnds.length - 1]!;

  // The days whose daily cells this publication may need: the requested days, or every day of the
  // requested weeks from the cut-over on.
  const days =
    cadence === 'daily'
      ? periodEnds.filter((d) => d >= req.firstDay)
      : periodEnds.flatMap((w) =>
          Array.from({ length: 7 }, (_, i) => addDays(w, i - 6)).filter(
            (d) => d >= req.firstDay && d < req.today,
          ),
        );
  if (cadence === 'daily') {
    for (const d of periodEnds) {
      if (d < req.firstDay) throw new RangeError(`${d} is before the tacsi-m2 cut-over ${req.firstDay}`);
      if (headline) outcomes.push({ sector: HEADLINE, cadence, periodEnd: d, status: 'not_offered' });
    }
  }
  const weekFirst = cadence === 'weekly' ? first : weekEndOf(first);
  const weekLast = cadence === 'weekly' ? last : weekEndOf(last);
  const state = await loadM2State(trx, m, periodStart('weekly', weekFirst), weekLast, req.today);
  const guard = new RhoCapGuard(state.ledger, state.changers, m, state.recorded);
  const inserts: CellToInsert[] = [];

  // 1. Daily cells.
  if (sectors.length > 0 && days.length > 0) {
    // Scores are read only for the sector-days still to publish: a weekly run after the daily jobs
    // finds every day published and reads none.
    const open = (sector: string, day: string) =>
      !state.daily.has(key(sector, day)) &&
      !state.otherDaily.has(key(sector, day)) &&
      state.weekly.get(key(sector, weekEndOf(day)))?.derivation !== 'noised';
    const pendingDays = days.filter((d) => sectors.some((s) => open(s, d)));
    const pendingSectors = sectors.filter((s) => days.some((d) => open(s, d)));
    const cohorts = pendingDays.length
      ? groupRows(
          await loadMemberCohortRows(
            trx,
            'daily',
            pendingDays[0]!,
            pendingDays[pendingDays.length - 1]!,
            pendingSectors,
            m.dailyMinCohort,
          ),
        )
      : new Map<string, EntityScores[]>();
    for (const day of days) {
      for (const sector of sectors) {
        const base = { sector, cadence: 'daily' as const, periodEnd: day };
        const report = cadence === 'daily';
        if (state.daily.has(key(sector, day))) {
          if (report) outcomes.push({ ...base, status: 'exists' });
          continue;
        }
        if (state.otherDaily.has(key(sector, day))) {
          if (report) outcomes.push({ ...base, status: 'already_charged' });
          continue;
        }
        const weekly = state.weekly.get(key(sector, weekEndOf(day)));
        if (weekly && weekly.derivation === 'noised') {
          // The week was published directly: its daily cells would charge the week twice.
          if (report) outcomes.push({ ...base, status: 'superseded' });
          continue;
        }
        const entities = cohorts.get(key(sector, day)) ?? [];
        if (entities.length < m.dailyMinCohort) {
          if (report) outcomes.push({ ...base, status: 'below_daily_minimum' });
          continue;
        }
        const admitted = guard.admit(sector, 'daily', day, day, entities);
        if (admitted.status !== 'ok') {
          if (admitted.status === 'cap_exceeded')
            req.log(capMessage('daily', sector, day, admitted.rhoAfter));
          outcomes.push({ ...base, status: admitted.status });
          continue;
        }
        const cell = perturbCellGaussian(admitted.entities, 'daily', m, req.rng);
        if (!cell) {
          if (report) outcomes.push({ ...base, status: 'below_daily_minimum' });
          continue;
        }
        const stored: StoredCell = { ...cell, sector, periodEnd: day, derivation: 'noised' };
        state.daily.set(key(sector, day), stored);
        const charge = guard.record(sector, 'daily', day, day, admitted.entities);
        const outcome: PublicationOutcome = {
          ...base,
          status: 'published',
          cohortBand: cell.cohortBand,
          excluded: admitted.excluded,
        };
        outcomes.push(outcome);
        inserts.push({ cell: stored, cadence: 'daily', charge, outcome });
      }
    }
  }

  const histograms: Array<{
    histogram: PublishedHistogram;
    sector: string;
    periodEnd: string;
    charge: RhoLedgerRow;
  }> = [];
  if (cadence === 'weekly') {
    // Entity week means are needed only for weeks noised directly and for histogram weeks: a sector-week
    // derived from its daily cells reads no score at all.
    const allDaily = (sector: string, week: string) =>
      Array.from({ length: 7 }, (_, i) => addDays(week, i - 6)).every((d) => state.daily.has(key(sector, d)));
    const needRows = sectors.filter((s) =>
      periodEnds.some(
        (w) =>
          (!state.weekly.has(key(s, w)) && !state.otherWeekly.has(key(s, w)) && !allDaily(s, w)) ||
          (isHistogramWeek(w) && !state.histograms.has(key(s, w))),
      ),
    );
    const weeklyRows = needRows.length
      ? groupRows(await loadMemberCohortRows(trx, 'weekly', first, last, needRows))
      : new Map<string, EntityScores[]>();
    for (const week of periodEnds) {
      // 2. Weekly sector cells.
      for (const sector of sectors) {
        const base = { sector, cadence: 'weekly' as const, periodEnd: week };
        const entities = weeklyRows.get(key(sector, week)) ?? [];
        if (state.weekly.has(key(sector, week))) {
          outcomes.push({ ...base, status: 'exists' });
        } else if (state.otherWeekly.has(key(sector, week))) {
          outcomes.push({ ...base, status: 'already_charged' });
        } else {
          const dailies = Array.from({ length: 7 }, (_, i) =>
            state.daily.get(key(sector, addDays(week, i - 6))),
          ).filter((c): c is StoredCell => c !== undefined);
          let stored: StoredCell | null = null;
          let charge: RhoLedgerRow | null = null;
          let excluded = 0;
          // Derived only from a complete week of daily cells: the mean of seven daily means. With a day
          // missing it would be the mean of the other days' means, another estimand (docs/privacy.md §4).
          if (dailies.length === 7) {
            stored = { ...deriveWeeklyFromDaily(dailies, m), sector, periodEnd: week, derivation: 'daily' };
          } else if (entities.length < m.minCohort) {
            outcomes.push({ ...base, status: 'below_min_cohort' });
          } else {
            const admitted = guard.admit(sector, 'weekly', addDays(week, -6), week, entities);
            if (admitted.status !== 'ok') {
              if (admitted.status === 'cap_exceeded')
                req.log(capMessage('weekly', sector, week, admitted.rhoAfter));
              outcomes.push({ ...base, status: admitted.status });
            } else {
              const cell = perturbCellGaussian(admitted.entities, 'weekly', m, req.rng);
              if (!cell) outcomes.push({ ...base, status: 'below_min_cohort' });
              else {
                stored = { ...cell, sector, periodEnd: week, derivation: 'noised' };
                charge = guard.record(sector, 'weekly', addDays(week, -6), week, admitted.entities);
                excluded = admitted.excluded;
              }
            }
          }
          if (stored) {
            state.weekly.set(key(sector, week), stored);
            const outcome: PublicationOutcome = {
              ...base,
              status: 'published',
              cohortBand: stored.cohortBand,
              derivation: stored.derivation,
              excluded,
            };
            outcomes.push(outcome);
            inserts.push({ cell: stored, cadence: 'weekly', charge, outcome });
          }
        }
        // 3. The monthly peer distribution, released with the sector's weekly cell.
        if (
          isHistogramWeek(week) &&
          state.weekly.has(key(sector, week)) &&
          !state.histograms.has(key(sector, week)) &&
          entities.length >= m.minCohort
        ) {
          const admitted = guard.admit(sector, 'histogram', addDays(week, -6), week, entities);
          if (admitted.status === 'ok') {
            const values = admitted.entities.map((e) => compositeOf(m, e.pillars));
            const histogram = perturbHistogram(values, m, req.rng);
            if (histogram) {
              const charge = guard.record(sector, 'histogram', addDays(week, -6), week, admitted.entities);
              state.histograms.add(key(sector, week));
              histograms.push({ histogram, sector, periodEnd: week, charge });
            }
          } else if (admitted.status === 'cap_exceeded') {
            req.log(capMessage('histogram', sector, week, admitted.rhoAfter));
          }
        }
      }
      // 4. The headline: post-processing of the week's published, non-exclusive sector cells.
      if (headline) {
        const base = { sector: HEADLINE, cadence: 'weekly' as const, periodEnd: week };
        if (state.weekly.has(key(HEADLINE, week))) {
          outcomes.push({ ...base, status: 'exists' });
          continue;
        }
        if (state.otherWeekly.has(key(HEADLINE, week))) {
          outcomes.push({ ...base, status: 'already_charged' });
          continue;
        }
        const parts = req.allSectors
          .filter((s) => !state.exclusive.has(s))
          .map((s) => state.weekly.get(key(s, week)))
          .filter((c): c is StoredCell => c !== undefined);
        const cell = deriveHeadline(parts, m);
        if (!cell) {
          outcomes.push({ ...base, status: 'below_min_cohort' });
          continue;
        }
        const stored: StoredCell = { ...cell, sector: HEADLINE, periodEnd: week, derivation: 'sectors' };
        state.weekly.set(key(HEADLINE, week), stored);
        const outcome: PublicationOutcome = {
          ...base,
          status: 'published',
          cohortBand: cell.cohortBand,
          derivation: 'sectors',
        };
        outcomes.push(outcome);
        inserts.push({ cell: stored, cadence: 'weekly', charge: null, outcome });
      }
    }
  }

  await storeM2(trx, m, inserts, histograms, seriesOf(state), req.publishedAt);
  return outcomes;
}

function capMessage(kind: string, sector: string, periodEnd: string, rhoAfter: number): string {
  return (
    `tacsi: refused ${kind} release ${sector} ${periodEnd}: its entities would reach rho ${rhoAfter.toFixed(4)} ` +
    `in a rolling ${ROLLING_WINDOW_DAYS} days, over the annual cap`
  );
}

export function groupRows(rows: readonly CohortRow[]): Map<string, EntityScores[]> {
  const out = new Map<string, EntityScores[]>();
  for (const r of rows) {
    const k = key(r.sector, r.periodEnd);
    const list = out.get(k);
    if (list) list.push(r.entity);
    else out.set(k, [r.entity]);
  }
  return out;
}

export interface M2State {
  daily: Map<string, StoredCell>;
  weekly: Map<string, StoredCell>;
  histograms: Set<string>;
  /** Cells of these periods published under another methodology (tacsi-m1): never released again. */
  otherDaily: Set<string>;
  otherWeekly: Set<string>;
  /** Per sector|cadence, the latest m2 cell before the range (for deltas). */
  previous: Map<string, { periodEnd: string; indexValue: number; pillars: Record<TacsiPillar, number> }>;
  ledger: RhoLedgerRow[];
  changers: Awaited<ReturnType<typeof loadSectorChangers>>;
  /** What the per-entity ledger recorded each changer was charged around the range. */
  recorded: Map<string, EntityCharge[]>;
  exclusive: Set<string>;
}

interface CellRowM2 {
  sector: string;
  cadence: Cadence;
  period_end: string;
  index_value: number;
  presence: number;
  reach: number;
  impact: number;
  sentiment: number;
  momentum: number;
  cohort_band: string;
  band_floor: number;
  derivation: 'noised' | 'daily' | 'sectors';
  moe_index_value: number;
  moe_pillars: number;
  noise: unknown;
  methodology_version: string;
  vintage: number;
}

function parseNoise(raw: unknown): NoiseTerm[] {
  return (typeof raw === 'string' ? JSON.parse(raw) : raw) as NoiseTerm[];
}

export function storedCellOf(r: CellRowM2): StoredCell {
  return {
    sector: r.sector,
    periodEnd: r.period_end,
    derivation: r.derivation,
    pillars: {
      presence: r.presence,
      reach: r.reach,
      impact: r.impact,
      sentiment: r.sentiment,
      momentum: r.momentum,
    },
    indexValue: r.index_value,
    cohortBand: r.cohort_band,
    bandFloor: r.band_floor,
    methodologyVersion: r.methodology_version,
    cadence:
      r.derivation === 'sectors'
        ? 'headline'
        : r.cadence === 'daily'
          ? 'daily'
          : r.derivation === 'daily'
            ? 'weekly-derived'
            : 'weekly',
    margin95: {
      indexValue: r.moe_index_value,
      pillars: {
        presence: r.moe_pillars,
        reach: r.moe_pillars,
        impact: r.moe_pillars,
        sentiment: r.moe_pillars,
        momentum: r.moe_pillars,
      },
    },
    noise: parseNoise(r.noise),
    rho: 0,
    vintage: r.vintage,
  };
}

/**
 * The m2 cells (the latest vintage of each), histograms, ledger (every vintage's release), membership
 * changes and exclusive licences the range depends on.
 */
export async function loadM2State(
  trx: Kysely<DB>,
  m: GaussianMethodology,
  from: string,
  to: string,
  today: string,
): Promise<M2State> {
  const reach = ROLLING_WINDOW_DAYS - 1;
  const cells = await sql<CellRowM2>`
    SELECT DISTINCT ON (sector, cadence, period_end)
           sector, cadence, period_end, index_value, presence, reach, impact, sentiment, momentum,
           cohort_band, band_floor, derivation, moe_index_value, moe_pillars, noise, methodology_version,
           vintage
      FROM tacsi_cells
     WHERE methodology_version = ${m.version} AND period_end BETWEEN ${from}::date AND ${to}::date
     ORDER BY sector, cadence, period_end, vintage DESC
  `.execute(trx);
  const others = await sql<{ sector: string; cadence: Cadence; period_end: string }>`
    SELECT sector, cadence, period_end FROM tacsi_cells
     WHERE methodology_version <> ${m.version} AND period_end BETWEEN ${from}::date AND ${to}::date
  `.execute(trx);
  const previous = await sql<
    Pick<CellRowM2, 'sector' | 'cadence' | 'period_end' | 'index_value' | TacsiPillar>
  >`
    SELECT DISTINCT ON (sector, cadence) sector, cadence, period_end, index_value, presence, reach, impact,
           sentiment, momentum
      FROM tacsi_cells
     WHERE methodology_version = ${m.version} AND period_end < ${from}::date
     ORDER BY sector, cadence, period_end DESC, vintage DESC
  `.execute(trx);
  const ledger = await sql<{
    scope: string;
    kind: 'daily' | 'weekly' | 'histogram';
    period_start: string;
    period_end: string;
    rho_units: string | number;
    vintage: number;
  }>`
    SELECT scope, kind, period_start, period_end, rho_units, vintage
      FROM tacsi_rho_ledger
     WHERE methodology_version = ${m.version}
       AND period_end BETWEEN ${addDays(from, -reach)}::date AND ${addDays(to, reach)}::date
  `.execute(trx);
  const histograms = await sql<{ sector: string; period_end: string }>`
    SELECT sector, period_end FROM tacsi_histograms
     WHERE methodology_version = ${m.version} AND period_end BETWEEN ${from}::date AND ${to}::date
  `.execute(trx);
  const exclusive = await sql<{ sector_slug: string }>`
    SELECT DISTINCT sector_slug FROM tacsi_entitlements
     WHERE exclusive AND revoked_at IS NULL AND sector_slug IS NOT NULL
       AND valid_from <= ${today}::date AND (valid_until IS NULL OR valid_until >= ${today}::date)
  `.execute(trx);
  const changers = await loadSectorChangers(trx, addDays(from, -reach), addDays(to, reach));
  const recorded = await recordedCharges(
    trx,
    [...changers.keys()],
    m.version,
    addDays(from, -reach),
    addDays(to, reach),
  );
  const state: M2State = {
    daily: new Map(),
    weekly: new Map(),
    histograms: new Set(histograms.rows.map((h) => key(h.sector, h.period_end))),
    otherDaily: new Set(
      others.rows.filter((r) => r.cadence === 'daily').map((r) => key(r.sector, r.period_end)),
    ),
    otherWeekly: new Set(
      others.rows.filter((r) => r.cadence === 'weekly').map((r) => key(r.sector, r.period_end)),
    ),
    previous: new Map(),
    ledger: ledger.rows.map((r) => ({
      scope: r.scope,
      kind: r.kind,
      periodStart: r.period_start,
      periodEnd: r.period_end,
      rhoNano: Number(r.rho_units),
      vintage: r.vintage,
    })),
    changers,
    recorded: new Map(),
    exclusive: new Set(exclusive.rows.map((r) => r.sector_slug)),
  };
  for (const r of recorded) {
    const list = state.recorded.get(r.workspaceId) ?? [];
    list.push(r);
    state.recorded.set(r.workspaceId, list);
  }
  for (const r of cells.rows)
    (r.cadence === 'daily' ? state.daily : state.weekly).set(key(r.sector, r.period_end), storedCellOf(r));
  for (const r of previous.rows) {
    state.previous.set(`${r.sector}|${r.cadence}`, {
      periodEnd: r.period_end,
      indexValue: r.index_value,
      pillars: {
        presence: r.presence,
        reach: r.reach,
        impact: r.impact,
        sentiment: r.sentiment,
        momentum: r.momentum,
      },
    });
  }
  return state;
}

/**
 * Stores the new cells (with their deltas against the series' previous m2 cell) and histograms, then
 * the ledger rows of the charged ones. A cell is stored as its `vintage` (1 unless a correction), with
 * the correction's reason; nothing stored is ever updated. The publication lock makes the loaded state
 * current, so no insert can conflict; a conflict would be a bug and aborts the transaction.
 */
export async function storeM2(
  trx: Kysely<DB>,
  m: GaussianMethodology,
  inserts: readonly CellToInsert[],
  histograms: ReadonlyArray<{
    histogram: PublishedHistogram;
    sector: string;
    periodEnd: string;
    charge: RhoLedgerRow;
  }>,
  series: ReadonlyMap<string, ReadonlyArray<{ periodEnd: string; indexValue: number }>>,
  publishedAt: Date,
): Promise<void> {
  const sorted = [...inserts].sort((a, b) => a.cell.periodEnd.localeCompare(b.cell.periodEnd));
  const rows = sorted.map(({ cell, cadence, reason }) => {
    const before = latestBefore(series.get(`${cell.sector}|${cadence}`) ?? [], cell.periodEnd);
    return {
      sector: cell.sector,
      cadence,
      period_end: cell.periodEnd,
      methodology_version: m.version,
      index_value: cell.indexValue,
      delta: before ? snapToGrid(cell.indexValue - before.indexValue, m) : null,
      presence: cell.pillars.presence,
      reach: cell.pillars.reach,
      impact: cell.pillars.impact,
      sentiment: cell.pillars.sentiment,
      momentum: cell.pillars.momentum,
      cohort_band: cell.cohortBand,
      band_floor: cell.bandFloor,
      derivation: cell.derivation,
      moe_index_value: cell.margin95.indexValue,
      // Every pillar of a cell has the same noise law, hence the same margin.
      moe_pillars: Math.max(...Object.values(cell.margin95.pillars)),
      noise: JSON.stringify(cell.noise),
      published_at: publishedAt,
      vintage: cell.vintage ?? 1,
      correction_reason: reason ?? null,
    };
  });
  const ids = new Map<string, number>();
  for (let i = 0; i < rows.length; i += 500) {
    const stored = await trx
      .insertInto('tacsi_cells')
      .values(rows.slice(i, i + 500))
      .returning(['id', 'sector', 'cadence', 'period_end'])
      .execute();
    for (const r of stored) ids.set(`${r.sector}|${r.cadence}|${r.period_end}`, r.id);
  }
  const ledgerRows: Array<Record<string, unknown>> = [];
  for (const { cell, cadence, charge } of sorted) {
    if (!charge) continue;
    ledgerRows.push(
      ledgerRow(m, charge, {
        cell_id: ids.get(`${cell.sector}|${cadence}|${cell.periodEnd}`)!,
        vintage: cell.vintage ?? 1,
      }),
    );
  }
  for (const h of histograms) {
    const stored = await trx
      .insertInto('tacsi_histograms')
      .values({
        sector: h.sector,
        period_end: h.periodEnd,
        methodology_version: m.version,
        edges: [...h.histogram.edges],
        shares: [...h.histogram.shares],
        cohort_band: h.histogram.cohortBand,
        band_floor: h.histogram.bandFloor,
        published_at: publishedAt,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    ledgerRows.push(ledgerRow(m, h.charge, { histogram_id: stored.id }));
  }
  const charged = new Map<string, readonly string[]>();
  for (const { charge } of sorted) if (charge) charged.set(chargeKey(charge), charge.entities ?? []);
  for (const h of histograms) charged.set(chargeKey(h.charge), h.charge.entities ?? []);
  for (let i = 0; i < ledgerRows.length; i += 500) {
    const stored = await trx
      .insertInto('tacsi_rho_ledger')
      .values(ledgerRows.slice(i, i + 500) as never)
      .returning(['id', 'scope', 'kind', 'period_end'])
      .execute();
    // The one ledger: who each release charged, in the same transaction.
    await recordEntityCharges(
      trx,
      stored.map((r) => ({
        ledgerId: Number(r.id),
        entities: charged.get(`${r.scope}|${r.kind}|${r.period_end}`) ?? [],
      })),
    );
  }
}

const chargeKey = (c: RhoLedgerRow) => `${c.scope}|${c.kind}|${c.periodEnd}`;

/**
 * Every m2 cell of each series (sector|cadence) the publication knows, oldest first: the latest one
 * before the loaded range, the published cells in it and the new ones. A new cell's delta is taken
 * against the latest of them before its period, whether published earlier or in this run.
 */
export function seriesOf(state: M2State): Map<string, Array<{ periodEnd: string; indexValue: number }>> {
  const out = new Map<string, Array<{ periodEnd: string; indexValue: number }>>();
  const add = (series: string, periodEnd: string, indexValue: number) => {
    const list = out.get(series) ?? [];
    list.push({ periodEnd, indexValue });
    out.set(series, list);
  };
  for (const [series, p] of state.previous) add(series, p.periodEnd, p.indexValue);
  for (const c of state.daily.values()) add(`${c.sector}|daily`, c.periodEnd, c.indexValue);
  for (const c of state.weekly.values()) add(`${c.sector}|weekly`, c.periodEnd, c.indexValue);
  for (const list of out.values()) list.sort((a, b) => a.periodEnd.localeCompare(b.periodEnd));
  return out;
}

function latestBefore<T extends { periodEnd: string }>(sorted: readonly T[], periodEnd: string): T | null {
  let found: T | null = null;
  for (const p of sorted) {
    if (p.periodEnd >= periodEnd) break;
    found = p;
  }
  return found;
}

function ledgerRow(
  m: GaussianMethodology,
  charge: RhoLedgerRow,
  ref: { cell_id: number; vintage: number } | { histogram_id: number },
): Record<string, unknown> {
  return {
    scope: charge.scope,
    kind: charge.kind,
    period_start: charge.periodStart,
    period_end: charge.periodEnd,
    methodology_version: m.version,
    rho_units: String(charge.rhoNano),
    rho: charge.rhoNano / 1e9,
    ...ref,
  };
}
