// Fixture for the tacsi-m2 tests: sectors of brand workspaces with a daily score row per day, made
// in SQL (generate_series) so cohorts of several hundred brands over months stay fast on PGlite.
// The tests compute true cohort values from the rows read back (`readScores`), never from the
// publisher's own queries.
import { sql, type Kysely } from 'kysely';
import { createSector } from '../../src/admin/workspaces.ts';
import type { DB } from '../../src/infra/db/types.ts';
import { addDays } from '../../src/core/days.ts';
import { TACSI_PILLARS, type TacsiPillar } from '../../src/tacsi/privacy/index.ts';

export interface M2Sector {
  slug: string;
  brands: number;
  /** Base level of the sector's scores. */
  level: number;
  consumer?: boolean;
}

/** Workspace ids of a fixture sector: `${slug}-b${i}` for i = 1..brands. */
export const brandId = (slug: string, i: number) => `ws_${slug}-b${i}`;

/**
 * Creates the sectors and their brand workspaces (one creator per sector too, which no cohort may
 * include) and a score row for every workspace and day in [first, last]. Pillars vary by workspace,
 * day and pillar, inside [0, 100]; `score` is their composite as the scoring engine stores it.
 */
export async function seedM2Fixture(
  db: Kysely<DB>,
  sectors: readonly M2Sector[],
  first: string,
  last: string,
): Promise<void> {
  for (const s of sectors) {
    await createSector(db, s.slug, `Sector ${s.slug}`, s.consumer ?? true);
    await sql`
      INSERT INTO workspaces (id, name, plan, sector_slug, account_type)
      SELECT 'ws_' || ${s.slug} || '-b' || g, 'Brand ' || g || ' of ' || ${s.slug}, 'pro', ${s.slug},
             CASE WHEN g > ${s.brands} THEN 'creator' ELSE 'brand' END
        FROM generate_series(1, ${s.brands + 1}) AS g
    `.execute(db);
    await insertScores(db, s.slug, s.level, first, last);
  }
}

/** Score rows for every workspace of the sector (current members) and day in [first, last]. */
export async function insertScores(
  db: Kysely<DB>,
  sector: string,
  level: number,
  first: string,
  last: string,
  workspaceIds?: readonly string[],
): Promise<void> {
  const only = workspaceIds ? sql`AND w.id IN (${sql.join(workspaceIds)})` : sql``;
  const pillar = (k: number) =>
    sql`least(100, greatest(0, round((${level} + (abs(hashtext(w.id)) % 31) - 15
          + 12 * sin((d::date - ${first}::date) / 5.0 + abs(hashtext(w.id)) % 7 + ${k}))::numeric, 2)))::real`;
  await sql`
    INSERT INTO daily_scores (workspace_id, day, score, presence, reach, impact, sentiment, momentum, formula_version)
    SELECT id, day, round((0.2 * presence + 0.2 * reach + 0.25 * impact + 0.2 * sentiment + 0.15 * momentum)::numeric, 2)::real,
           presence, reach, impact, sentiment, momentum, 'v2'
      FROM (
        SELECT w.id, d::date AS day, ${pillar(0)} AS presence, ${pillar(1)} AS reach, ${pillar(2)} AS impact,
               ${pillar(3)} AS sentiment, ${pillar(4)} AS momentum
          FROM workspaces w
          CROSS JOIN generate_series(${first}::date, ${last}::date, interval '1 day') AS d
         WHERE w.sector_slug = ${sector} ${only}
      ) AS v
    ON CONFLICT (workspace_id, formula_version, day) DO UPDATE SET presence = EXCLUDED.presence, reach = EXCLUDED.reach,
      impact = EXCLUDED.impact, sentiment = EXCLUDED.sentiment, momentum = EXCLUDED.momentum, score = EXCLUDED.score
  `.execute(db);
}

export type PillarRow = Record<TacsiPillar, number>;

/** Every stored score row of brand workspaces: workspace -> day -> pillars (as stored, float4). */
export async function readScores(db: Kysely<DB>): Promise<Map<string, Map<string, PillarRow>>> {
  const rows = await db
    .selectFrom('daily_scores as d')
    .innerJoin('workspaces as w', 'w.id', 'd.workspace_id')
    .where('w.account_type', '=', 'brand')
    .select(['d.workspace_id', 'd.day', 'd.presence', 'd.reach', 'd.impact', 'd.sentiment', 'd.momentum'])
    .execute();
  const out = new Map<string, Map<string, PillarRow>>();
  for (const r of rows) {
    let byDay = out.get(r.workspace_id);
    if (!byDay) out.set(r.workspace_id, (byDay = new Map()));
    byDay.set(r.day, {
      presence: r.presence,
      reach: r.reach,
      impact: r.impact,
      sentiment: r.sentiment,
      momentum: r.momentum,
    });
  }
  return out;
}

const WEIGHTS: PillarRow = { presence: 0.2, reach: 0.2, impact: 0.25, sentiment: 0.2, momentum: 0.15 };

/**
 * True pillar means of a cohort over `days` (each member's mean over the days it has, then the mean
 * over members), and the composite of those means: what a cell estimates.
 */
export function trueCell(
  scores: Map<string, Map<string, PillarRow>>,
  members: readonly string[],
  days: readonly string[],
): { pillars: PillarRow; indexValue: number } {
  const pillars = Object.fromEntries(TACSI_PILLARS.map((p) => [p, 0])) as PillarRow;
  let n = 0;
  for (const id of members) {
    const byDay = scores.get(id);
    const rows = days.map((d) => byDay?.get(d)).filter((r): r is PillarRow => r !== undefined);
    if (rows.length === 0) continue;
    n++;
    for (const p of TACSI_PILLARS) pillars[p] += rows.reduce((s, r) => s + r[p], 0) / rows.length;
  }
  for (const p of TACSI_PILLARS) pillars[p] /= n;
  const indexValue = TACSI_PILLARS.reduce((s, p) => s + WEIGHTS[p] * pillars[p], 0);
  return { pillars, indexValue };
}

export const weekDays = (sunday: string) => Array.from({ length: 7 }, (_, i) => addDays(sunday, i - 6));

export const members = (slug: string, brands: number) =>
  Array.from({ length: brands }, (_, i) => brandId(slug, i + 1));
