// Per-entity values of TACSI cohorts, computed in SQL: one row per consumer brand workspace per
// period, the mean of its daily scores of the methodology's formula in the period (a day's score for
// daily cells). Only this module reads raw scores, and only the publisher calls it; no feed ever does.
import { sql, type Kysely } from 'kysely';
import type { DailyScoresTable, DB } from '../infra/db/types.ts';
import { pillarScoresOf, type Pillar } from '../core/catalog.ts';
import { periodStart } from './periods.ts';
import type { Cadence, EntityScores } from './privacy/index.ts';

/** The pseudo-sector of the all-consumer composite. */
export const HEADLINE = 'headline';

/**
 * The score formula each methodology reads (docs/tacsi.md "Formula per methodology"). A methodology
 * never averages two formulas: v2 scores sit at another level (its median account scores 50), so
 * the series break of formula v2 coincides with the methodology break at TACSI_M2_FROM. tacsi-m2
 * reads the scoring domain's INDEX_FORMULA, whose rows are stored beside the current formula's (v3)
 * so the index continues on one formula (docs/adr/0176-formula-v3-in-the-api.md).
 */
export const METHODOLOGY_FORMULA = { 'tacsi-m1': 'v1', 'tacsi-m2': 'v2' } as const;

export interface CohortRow {
  sector: string;
  periodEnd: string;
  entity: EntityScores;
}

/** Period key of a daily score row: the Sunday of its ISO week, or the day itself. */
const PERIOD_END_SQL: Record<Cadence, ReturnType<typeof sql.raw>> = {
  weekly: sql.raw(`(d.day + (7 - extract(isodow FROM d.day)::int))`),
  daily: sql.raw('d.day'),
};

/** One entity's means over a period, as both cohort queries select them (AVERAGES). */
interface AveragedRow extends Pick<DailyScoresTable, 'workspace_id' | 'score' | Pillar> {
  sector: string;
  period_end: string;
}

const AVERAGES = sql.raw(
  `avg(d.score::float8) AS score, avg(d.presence::float8) AS presence, avg(d.reach::float8) AS reach,
   avg(d.impact::float8) AS impact, avg(d.sentiment::float8) AS sentiment, avg(d.momentum::float8) AS momentum`,
);

function toCohortRow(r: AveragedRow): CohortRow {
  return {
    sector: r.sector,
    periodEnd: r.period_end,
    entity: {
      entityId: r.workspace_id,
      indexValue: Number(r.score),
      pillars: pillarScoresOf(r),
    },
  };
}

/**
 * The value of every brand workspace of the given sectors for every period of the cadence ending in
 * [firstEnd, lastEnd], in one GROUP BY query. Callers pass consumer sectors only (`consumerSectors`):
 * filtering on the list, rather than joining `sectors`, keeps the plan a plain index scan per workspace.
 */
export async function loadCohortRows(
  db: Kysely<DB>,
  cadence: Cadence,
  firstEnd: string,
  lastEnd: string,
  sectors: readonly string[],
): Promise<CohortRow[]> {
  if (sectors.length === 0) return [];
  const periodEnd = PERIOD_END_SQL[cadence];
  const result = await sql<AveragedRow>`
    SELECT w.sector_slug AS sector, d.workspace_id, ${periodEnd} AS period_end,
           ${AVERAGES}
      FROM daily_scores d
      JOIN workspaces w ON w.id = d.workspace_id
     WHERE w.account_type = 'brand' AND w.sector_slug IN (${sql.join(sectors)})
       AND d.formula_version = ${METHODOLOGY_FORMULA['tacsi-m1']}
       AND d.day BETWEEN ${periodStart(cadence, firstEnd)}::date AND ${lastEnd}::date
     GROUP BY w.sector_slug, d.workspace_id, ${periodEnd}
  `.execute(db);
  return result.rows.map(toCohortRow);
}

/** Consumer sector slugs, sorted. */
export async function consumerSectors(db: Kysely<DB>): Promise<string[]> {
  const rows = await db
    .selectFrom('sectors')
    .select('slug')
    .where('is_consumer', '=', true)
    .orderBy('slug')
    .execute();
  return rows.map((r) => r.slug);
}

/**
 * tacsi-m2 cohorts: like loadCohortRows, but over formula v2 scores, and each daily score counts in the sector the workspace
 * belonged to on that day (workspace_sector_history), so an entity that changed sector is in each
 * sector's cells only for the days it was a member, and is charged there (cap-guard.ts).
 * `indexValue` is the mean stored score; tacsi-m2 ignores it (its index is the pillars' composite).
 */
export async function loadMemberCohortRows(
  db: Kysely<DB>,
  cadence: Cadence,
  firstEnd: string,
  lastEnd: string,
  sectors: readonly string[],
  /** Only cohorts of at least this many entities (daily cells need 250): smaller ones are not read. */
  minCohort = 0,
): Promise<CohortRow[]> {
  if (sectors.length === 0) return [];
  const periodEnd = PERIOD_END_SQL[cadence];
  const result = await sql<AveragedRow>`
    SELECT sector, workspace_id, period_end, score, presence, reach, impact, sentiment, momentum FROM (
    SELECT h.sector_slug AS sector, d.workspace_id, ${periodEnd} AS period_end,
           ${AVERAGES},
           count(*) OVER (PARTITION BY h.sector_slug, ${periodEnd}) AS n
      FROM workspace_sector_history h
      JOIN workspaces w ON w.id = h.workspace_id AND w.account_type = 'brand'
      JOIN daily_scores d ON d.workspace_id = h.workspace_id
       AND d.day >= h.valid_from AND (h.valid_until IS NULL OR d.day < h.valid_until)
       -- v2 scores only: a member without one for a day is not counted for that day.
       AND d.formula_version = ${METHODOLOGY_FORMULA['tacsi-m2']}
     WHERE h.sector_slug IN (${sql.join(sectors)})
       AND (h.valid_until IS NULL OR h.valid_until > ${periodStart(cadence, firstEnd)}::date)
       AND h.valid_from <= ${lastEnd}::date
       AND d.day BETWEEN ${periodStart(cadence, firstEnd)}::date AND ${lastEnd}::date
     GROUP BY h.sector_slug, d.workspace_id, ${periodEnd}
    ) AS entity WHERE ${minCohort} = 0 OR n >= ${minCohort}
  `.execute(db);
  return result.rows.map(toCohortRow);
}

export interface Membership {
  sector: string;
  /** Inclusive first day; null for "since before the history began". */
  from: string | null;
  /** Exclusive last day; null while current. */
  until: string | null;
}

/**
 * The membership history of every brand workspace that has been in more than one sector (or left
 * one) and whose history touches [from, to]. Everyone else has one open-ended membership since
 * before the history began, so its sector's ledger is its own ledger.
 */
export async function loadSectorChangers(
  db: Kysely<DB>,
  from: string,
  to: string,
): Promise<Map<string, Membership[]>> {
  const result = await sql<{
    workspace_id: string;
    sector_slug: string;
    valid_from: string;
    valid_until: string | null;
  }>`
    SELECT h.workspace_id, h.sector_slug,
           CASE WHEN h.valid_from = '-infinity'::date THEN NULL ELSE h.valid_from::text END AS valid_from,
           h.valid_until::text AS valid_until
      FROM workspace_sector_history h
     WHERE h.workspace_id IN (
             SELECT workspace_id FROM workspace_sector_history
              WHERE valid_until IS NOT NULL AND valid_until > ${from}::date
           )
       AND (h.valid_until IS NULL OR h.valid_until > ${from}::date) AND h.valid_from <= ${to}::date
     ORDER BY h.workspace_id, h.valid_from
  `.execute(db);
  const out = new Map<string, Membership[]>();
  for (const r of result.rows) {
    const list = out.get(r.workspace_id) ?? [];
    list.push({ sector: r.sector_slug, from: r.valid_from, until: r.valid_until });
    out.set(r.workspace_id, list);
  }
  return out;
}
