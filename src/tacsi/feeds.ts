// Response bodies of the TACSI feeds. They read `tacsi_cells` and nothing else: only published,
// perturbed aggregates can leave, never a raw score, workspace id, name or handle. Per period, every
// feed serves the cell's latest vintage published at or before the read instant (a correction is a
// new vintage, never an update: docs/tacsi.md).
import type { Kysely, Selectable } from 'kysely';
import type { DB, TacsiCellsTable } from '../infra/db/types.ts';
import { forwardSignal } from './forward-signal.ts';
import { cellMargins, indexNoiseVariance } from './margins.ts';
import { WITHDRAWN } from './methodology-feed.ts';
import type { Methodology, TacsiPillar } from './privacy/index.ts';
import { addDays } from '../core/days.ts';
import type {
  DailyFeedBody,
  HistoryFeedBody,
  PillarFeedBody,
  TacsiCellBody,
  WeeklyFeedBody,
} from './schemas.ts';

export const WEEKLY_HISTORY_WEEKS = 12;
export const HISTORY_PAGE_MAX = 260;
export const DAILY_ROWS = 30;

/** One published cell as every feed serves it (schemas.ts TacsiCell). */
export type TacsiCell = TacsiCellBody;

type CellRow = Pick<
  Selectable<TacsiCellsTable>,
  | 'period_end'
  | 'index_value'
  | 'delta'
  | 'impact'
  | 'momentum'
  | 'presence'
  | 'reach'
  | 'sentiment'
  | 'cohort_band'
  | 'methodology_version'
  | 'moe_index_value'
  | 'moe_pillars'
  | 'noise'
  | 'published_at'
  | 'vintage'
>;

const CELL_COLUMNS = [
  'period_end',
  'index_value',
  'delta',
  'impact',
  'momentum',
  'presence',
  'reach',
  'sentiment',
  'cohort_band',
  'methodology_version',
  'moe_index_value',
  'moe_pillars',
  'noise',
  'published_at',
  'vintage',
] as const;

/** Every methodology publishes on the 0.01 grid. */
const GRID = { gridStepRatio: { numerator: 1, denominator: 100 } } as const;

/** A difference of two grid values, snapped back to the grid (binary subtraction leaves dust). */
export function snapToGrid(x: number, m: Pick<Methodology, 'gridStepRatio'>): number {
  const { numerator, denominator } = m.gridStepRatio;
  return (Math.round((x * denominator) / numerator) * numerator) / denominator;
}

export function toCell(r: CellRow): TacsiCell {
  return {
    periodEnd: r.period_end,
    indexValue: r.index_value,
    delta: r.delta,
    pillars: {
      impact: r.impact,
      momentum: r.momentum,
      presence: r.presence,
      reach: r.reach,
      sentiment: r.sentiment,
    },
    cohortBand: r.cohort_band,
    methodologyVersion: r.methodology_version,
    marginOfError: cellMargins(r),
    publishedAt: new Date(r.published_at).toISOString(),
    vintage: r.vintage,
  };
}

/** Methodologies whose cells of a sector no feed serves (methodology-feed.ts WITHDRAWN). */
function withdrawnFor(sector: string): string[] {
  return Object.entries(WITHDRAWN)
    .filter(([, series]) => series.some((w) => w.sector === sector))
    .map(([version]) => version);
}

/**
 * The sector's cells of the cadence, newest period first, one per period: its latest vintage, or with
 * `asOf` its latest vintage published at or before that instant (so a read as of an instant before a
 * correction answers what was served then).
 */
function cells(db: Kysely<DB>, sector: string, cadence: 'weekly' | 'daily', asOf?: Date) {
  const withdrawn = withdrawnFor(sector);
  let q = db
    .selectFrom('tacsi_cells')
    .distinctOn('period_end')
    .select(CELL_COLUMNS)
    .where('sector', '=', sector)
    .where('cadence', '=', cadence);
  if (withdrawn.length > 0) q = q.where('methodology_version', 'not in', withdrawn);
  if (asOf) q = q.where('published_at', '<=', asOf);
  return q.orderBy('period_end', 'desc').orderBy('vintage', 'desc');
}

/** The latest weekly cell, the forward signal and the 12 weeks before it; null when none is published. */
export async function weeklyFeed(db: Kysely<DB>, sector: string): Promise<WeeklyFeedBody | null> {
  // Every published week: the latest 13 are shown, the whole series feeds the projection.
  const rows = await cells(db, sector, 'weekly').execute();
  const latest = rows[0];
  if (!latest) return null;
  const series = rows.map((r) => r.index_value).reverse();
  return {
    sector,
    ...toCell(latest),
    forwardSignal: forwardSignal(series, addDays(latest.period_end, 7), indexNoiseVariance(latest)),
    history: rows.slice(1, 1 + WEEKLY_HISTORY_WEEKS).map(toCell),
  };
}

export interface HistoryQuery {
  from?: string;
  to?: string;
  before?: string;
  /** Only cells published at or before this instant: the archive as a subscriber could read it then. */
  asOf?: Date;
}

/** One page of the weekly archive, newest first; `nextBefore` continues strictly before the last row. */
export async function historyFeed(
  db: Kysely<DB>,
  sector: string,
  query: HistoryQuery,
): Promise<HistoryFeedBody> {
  let q = cells(db, sector, 'weekly', query.asOf).limit(HISTORY_PAGE_MAX + 1);
  if (query.from) q = q.where('period_end', '>=', query.from);
  if (query.to) q = q.where('period_end', '<=', query.to);
  if (query.before) q = q.where('period_end', '<', query.before);
  const rows = await q.execute();
  const hasMore = rows.length > HISTORY_PAGE_MAX;
  const page = rows.slice(0, HISTORY_PAGE_MAX).map(toCell);
  return {
    sector,
    from: query.from ?? null,
    to: query.to ?? null,
    count: page.length,
    pageMax: HISTORY_PAGE_MAX,
    hasMore,
    nextBefore: hasMore ? page[page.length - 1]!.periodEnd : null,
    rows: page,
  };
}

/** Every published weekly value of one pillar, newest first; null when no week is published. */
export async function pillarFeed(
  db: Kysely<DB>,
  sector: string,
  pillar: TacsiPillar,
): Promise<PillarFeedBody | null> {
  const rows = await cells(db, sector, 'weekly').execute();
  if (rows.length === 0) return null;
  const series = rows.map((r, i) => {
    const older = rows[i + 1];
    return {
      periodEnd: r.period_end,
      value: r[pillar],
      delta: older === undefined ? null : snapToGrid(r[pillar] - older[pillar], GRID),
      cohortBand: r.cohort_band,
      methodologyVersion: r.methodology_version,
      marginOfError: cellMargins(r).pillars,
    };
  });
  return { sector, pillar, series };
}

/** The last 30 published daily cells, newest first; null when none is published. */
export async function dailyFeed(db: Kysely<DB>, sector: string): Promise<DailyFeedBody | null> {
  const rows = await cells(db, sector, 'daily').limit(DAILY_ROWS).execute();
  if (rows.length === 0) return null;
  return { sector, cadence: 'daily', rows: rows.map(toCell) };
}
