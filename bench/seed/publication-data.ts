import { sql, type Kysely } from 'kysely';
import { createSector } from '../../src/admin/workspaces.ts';
import type { DB } from '../../src/infra/db/types.ts';
import { CURRENT_FORMULA as FORMULA_VERSION } from '../../src/scoring/daily-scores.ts';
import { sqlUniform } from './bulk.ts';
import { addDays } from '../../src/core/days.ts';

export const publicationSector = (i: number) => `bench-s${String(i + 1).padStart(2, '0')}`;

const entityId = (i: number) => `ws_bench_t_${String(i).padStart(6, '0')}`;

/**
 * `entities` consumer brand workspaces spread round-robin over `sectors` consumer sectors, each with a
 * stored daily score (and pillars) on every day of the week ending `periodEnd`: 7 x entities rows,
 * generated in SQL. Sector means differ so the cells differ. With `from` > 0 it grows an earlier
 * seeding (same sectors) by the entities [from, entities), for the growth scenario.
 */
export async function seedPublicationData(
  db: Kysely<DB>,
  options: { entities: number; sectors: number; periodEnd: string; seed: string; now: Date; from?: number },
): Promise<{ rows: number }> {
  const { entities, sectors, periodEnd, seed, now } = options;
  const from = options.from ?? 0;
  if (entities > 1_000_000) throw new Error('publication entities: at most 1,000,000 (6-digit ids)');
  if (from === 0)
    for (let s = 0; s < sectors; s++)
      await createSector(db, publicationSector(s), `Bench Sector ${s + 1}`, true);
  await sql`
    INSERT INTO workspaces (id, name, plan, sector_slug, created_at)
    SELECT 'ws_bench_t_' || lpad(i::text, 6, '0'), 'Bench Consumer Brand ' || i, 'pro',
           'bench-s' || lpad((i % ${sectors}::int + 1)::text, 2, '0'), ${now}
      FROM generate_series(${from}::int, ${entities - 1}::int) AS i
  `.execute(db);
  const u = (name: string) => sql.raw(sqlUniform(seed, 'w.id', 'd.day::text', `'${name}'`));
  // Sector level 35-75, brand level +/-15 around it, day noise +/-5; every value stays in [0, 100].
  const level = sql.raw(
    `(35 + 40 * ((substr(w.sector_slug, 8)::int - 1)::float8 / ${Math.max(1, sectors - 1)}) + 30 * (${sqlUniform(seed, 'w.id', `'brand'`)} - 0.5))`,
  );
  const value = (name: string) => sql`least(100, greatest(0, ${level} + 10 * (${u(name)} - 0.5)))::real`;
  await sql`
    INSERT INTO daily_scores (workspace_id, day, score, presence, reach, impact, sentiment, momentum, formula_version)
    SELECT w.id, d.day::date, ${value('score')}, ${value('presence')}, ${value('reach')}, ${value('impact')},
           ${value('sentiment')}, ${value('momentum')}, ${FORMULA_VERSION}
      FROM workspaces w
      CROSS JOIN generate_series(${addDays(periodEnd, -6)}::date, ${periodEnd}::date, interval '1 day') AS d(day)
     WHERE w.id BETWEEN ${entityId(from)} AND ${entityId(entities - 1)}
  `.execute(db);
  await sql`ANALYZE workspaces`.execute(db);
  await sql`ANALYZE daily_scores`.execute(db);
  const count = await sql<{ n: number }>`
    SELECT count(*)::int AS n FROM daily_scores WHERE workspace_id LIKE 'ws_bench_t_%'
  `.execute(db);
  return { rows: Number(count.rows[0]?.n ?? 0) };
}
