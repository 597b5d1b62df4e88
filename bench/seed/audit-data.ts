import { sql, type Kysely } from 'kysely';
import { createSector } from '../../src/admin/workspaces.ts';
import type { DB } from '../../src/infra/db/types.ts';
import { sqlUniform } from './bulk.ts';
import { addDays, utcDay } from '../../src/core/days.ts';
import { PLATFORMS } from '../../src/core/catalog.ts';

export const AUDIT_SECTOR = 'bench-audit';
const WORKSPACES_PER_STATEMENT = 100;

export const auditWorkspaceId = (i: number) => `ws_bench_aud_${String(i).padStart(4, '0')}`;
/** Round 1 is the one-process run, round 2 the two-process run (a second audit of the same workspaces). */
export const auditId = (i: number, round = 1) =>
  `aud_bench_run${round === 1 ? '' : round}_${String(i).padStart(4, '0')}`;

/**
 * Workspaces with every platform connected and `days` daily snapshots per platform ending on the
 * clock's day, generated inside the database (INSERT ... SELECT generate_series). Each brand gets a
 * profile (audience, growth, posting rate, reach, engagement, positivity) from a hash of its id, and
 * each day hash-derived noise around it, shaped like the sandbox's generator, so scores spread out.
 * The sector is not a consumer one, so TACSI never counts these brands.
 */
export async function seedAuditData(
  db: Kysely<DB>,
  options: { workspaces: number; days: number; seed: string; now: Date; first?: number },
): Promise<{ snapshots: number }> {
  const { workspaces, days, seed, now } = options;
  // `first` > 0 adds workspaces [first, first + workspaces) to an earlier seeding (the growth scenario
  // gives each history length its own workspaces).
  const first = options.first ?? 0;
  const end = first + workspaces; // exclusive
  if (end > 10_000) throw new Error('audit workspaces: at most 10,000 (4-digit ids)');
  if (first === 0) await createSector(db, AUDIT_SECTOR, 'Bench audits sector', false);
  await sql`
    INSERT INTO workspaces (id, name, plan, sector_slug, created_at)
    SELECT 'ws_bench_aud_' || lpad(i::text, 4, '0'), 'Bench Audited Brand ' || i, 'agency', ${AUDIT_SECTOR}, ${now}
      FROM generate_series(${first}::int, ${end - 1}::int) AS i
  `.execute(db);
  const platforms = sql`ARRAY[${sql.join([...PLATFORMS])}]::text[]`;
  await sql`
    INSERT INTO platform_connections (id, workspace_id, platform, handle, followers, connected_at)
    SELECT 'pc_' || w.id || '_' || p.platform, w.id, p.platform, 'bench_' || p.platform, 0, ${now}
      FROM workspaces w CROSS JOIN unnest(${platforms}) AS p(platform)
     WHERE w.id BETWEEN ${auditWorkspaceId(first)} AND ${auditWorkspaceId(end - 1)}
  `.execute(db);

  const last = utcDay(now);
  const u = (name: string) => sql.raw(sqlUniform(seed, 'w.id', 'p.platform', `'${name}'`));
  for (let from = first; from < end; from += WORKSPACES_PER_STATEMENT) {
    const to = Math.min(end, from + WORKSPACES_PER_STATEMENT) - 1;
    await sql`
      -- OFFSET 0 keeps each step a separate subquery: flattened, every reference to a derived
      -- column would recompute its whole expression (hashes and exp() included) again.
      WITH profile AS (
        SELECT w.id AS workspace_id, p.platform,
               2000 * exp(${u('audience')} * ln(1250.0)) AS base,
               -0.0003 + 0.0028 * ${u('growth')} AS growth,
               0.1 + 1.5 * ${u('posting')} AS posting,
               0.08 + 0.52 * ${u('reach')} AS reach,
               0.004 * exp(${u('engagement')} * ln(22.5)) AS engagement,
               0.35 + 0.5 * ${u('positivity')} AS positivity,
               round((0.5 + 0.5 * ${u('completeness')})::numeric, 2)::real AS completeness
          FROM workspaces w CROSS JOIN unnest(${platforms}) AS p(platform)
         WHERE w.id BETWEEN ${auditWorkspaceId(from)} AND ${auditWorkspaceId(to)} OFFSET 0
      ), day AS (
        SELECT pr.*, g.i, ${last}::date - g.i AS day,
               hashtext(${seed} || pr.workspace_id || pr.platform || g.i::text)::bigint & 2147483647 AS h
          FROM profile pr CROSS JOIN generate_series(0, ${days - 1}::int) AS g(i) OFFSET 0
      ), noise AS (
        SELECT d.*, (d.h & 1023) / 1023.0::float8 AS a, ((d.h >> 10) & 1023) / 1023.0::float8 AS b,
               ((d.h >> 20) & 1023) / 1023.0::float8 AS c
          FROM day d OFFSET 0
      ), audience AS (
        SELECT n.*, n.base * exp(-n.growth * n.i) * (1 + 0.0016 * (n.a - 0.5)) AS f,
               floor(n.posting * 2 * n.b)::int AS posts
          FROM noise n OFFSET 0
      ), reach AS (
        SELECT x.*, round(x.f * 0.02 * (0.5 + x.a) + x.posts * x.f * x.reach * (0.6 + 0.8 * x.c)) AS impressions,
               round(x.f * 0.0004 * (0.3 + 1.4 * x.c)) AS mentions
          FROM audience x OFFSET 0
      ), talk AS (
        SELECT r.*, r.impressions * r.engagement * (0.7 + 0.6 * r.b) AS eng,
               round(r.impressions * r.engagement * (0.7 + 0.6 * r.b) * 0.07) AS comments
          FROM reach r OFFSET 0
      ), sentiment AS (
        SELECT t.*, round((t.comments + t.mentions) * t.positivity) AS positive FROM talk t OFFSET 0
      ), rows AS (
        SELECT s.*, round((s.comments + s.mentions - s.positive) * 0.4 * (0.6 + 0.8 * s.a)) AS negative FROM sentiment s OFFSET 0
      )
      INSERT INTO metric_snapshots (workspace_id, platform, day, followers, posts, impressions, likes, comments, shares,
                                    saves, mentions, sentiment_positive, sentiment_neutral, sentiment_negative,
                                    profile_completeness, source)
      SELECT workspace_id, platform, day, round(f)::bigint, posts, impressions::bigint, round(eng * 0.78)::bigint,
             comments::bigint, round(eng * 0.08)::bigint, round(eng * 0.07)::bigint, mentions::bigint,
             positive::int, (comments + mentions - positive - negative)::int, negative::int, completeness, 'import'
        FROM rows
    `.execute(db);
  }
  await sql`ANALYZE metric_snapshots`.execute(db);
  const count = await sql<{ n: number }>`
    SELECT count(*)::int AS n FROM metric_snapshots
     WHERE workspace_id BETWEEN ${auditWorkspaceId(first)} AND ${auditWorkspaceId(end - 1)}
  `.execute(db);
  return { snapshots: Number(count.rows[0]?.n ?? 0) };
}

/** Processing audits (every platform, `lookbackDays`) for workspaces [from, to), as POST /v1/audit/run leaves them. */
export async function insertProcessingAudits(
  db: Kysely<DB>,
  options: { from: number; to: number; lookbackDays: number; now: Date; round?: number },
): Promise<string[]> {
  const { from, to, lookbackDays, now, round = 1 } = options;
  const estimated = new Date(now.getTime() + 60_000);
  const prefix = auditId(0, round).slice(0, -4);
  await sql`
    INSERT INTO audits (id, workspace_id, status, platforms, lookback_days, estimated_completion, created_at)
    SELECT ${prefix} || lpad(i::text, 4, '0'), 'ws_bench_aud_' || lpad(i::text, 4, '0'), 'processing',
           ARRAY[${sql.join([...PLATFORMS])}]::text[], ${lookbackDays}::int, ${estimated}, ${now}
      FROM generate_series(${from}::int, ${to - 1}::int) AS i
  `.execute(db);
  return Array.from({ length: to - from }, (_, k) => auditId(from + k, round));
}

/** The first day of the snapshots an audit of `lookbackDays` reads (the scoring window never goes below 90 days). */
export function auditReadFrom(now: Date, lookbackDays: number): string {
  return addDays(utcDay(now), -(Math.max(lookbackDays, 90) - 1));
}
