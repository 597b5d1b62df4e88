// Per-entity values of TACSI cohorts, computed in SQL: one row per consumer brand workspace per
// period, the mean of its daily scores in the period (a day's score for daily cells). Only this
// module reads raw scores, and only the publisher calls it; no feed ever does.
import { sql, type Kysely } from 'kysely';
import type { DB } from '../infra/db/types.ts';
import { periodStart } from './periods.ts';
import type { Cadence, EntityScores } from './privacy/index.ts';

/** The pseudo-sector of the all-consumer composite. */
export const HEADLINE = 'headline';

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
  const result = await sql<{
    sector: string;
    workspace_id: string;
    period_end: string;
    score: number;
    presence: number;
    reach: number;
    impact: number;
    sentiment: number;
    momentum: number;
  }>`
    SELECT w.sector_slug AS sector, d.workspace_id, ${periodEnd} AS period_end,
           avg(d.score::float8) AS score, avg(d.presence::float8) AS presence, avg(d.reach::float8) AS reach,
           avg(d.impact::float8) AS impact, avg(d.sentiment::float8) AS sentiment,
           avg(d.momentum::float8) AS momentum
      FROM daily_scores d
      JOIN workspaces w ON w.id = d.workspace_id
     WHERE w.account_type = 'brand' AND w.sector_slug IN (${sql.join(sectors)})
       AND d.day BETWEEN ${periodStart(cadence, firstEnd)}::date AND ${lastEnd}::date
     GROUP BY w.sector_slug, d.workspace_id, ${periodEnd}
  `.execute(db);
  return result.rows.map((r) => ({
    sector: r.sector,
    periodEnd: r.period_end,
    entity: {
      entityId: r.workspace_id,
      indexValue: Number(r.score),
      pillars: {
        presence: Number(r.presence),
        reach: Number(r.reach),
        impact: Number(r.impact),
        sentiment: Number(r.sentiment),
        momentum: Number(r.momentum),
      },
    },
  }));
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
