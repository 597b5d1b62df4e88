// BENCH_SCENARIOS=growth: how cost grows with the work, on a bench database of its own.
// GET /v1/score at 10k / 100k / 1M workspaces (score cache off: every request a database read; and
// on: every pair of the rotation cached once), the TACSI publication at 100k / 1M entities against
// the GROUP BY, and an audit of workspaces holding 90 / 365 / 730 days of snapshots. Not in the default
// set: it seeds about 10 million rows and took 32 minutes on the loaded 2-core dev machine
// (docs/performance.md, "How cost grows with the work").
import { sql, type Kysely } from 'kysely';
import { utcDay } from '../src/core/days.ts';
import type { AppContext } from '../src/context.ts';
import type { DB } from '../src/infra/db/types.ts';
import {
  COMPOSITE_GRADE_CUTOFFS,
  FORMULA_VERSION,
  PILLAR_GRADE_CUTOFFS,
} from '../src/scoring/engine/index.ts';
import { prng } from '../src/sandbox/random.ts';
import { METRIC_COLUMNS } from '../src/core/metric-snapshot.ts';
import { PILLARS, PLATFORMS } from '../src/core/catalog.ts';
import { drive, type RotatedRequest } from './http/load.ts';
import { ServerProcess } from './http/server-process.ts';
import type { ScenarioResult } from './report.ts';
import { AUDIT_SECTOR, auditReadFrom, auditWorkspaceId, seedAuditData } from './seed/audit-data.ts';
import { insertColumns, sqlUniform } from './seed/bulk.ts';
import { bearer, benchKey, type BenchKey } from './seed/keys.ts';
import { seedPublicationData } from './seed/publication-data.ts';
import { inPool, median, round, timed } from './stats.ts';
import { runPublicationScenario, unpublishWeek } from './tacsi-publication.ts';

export interface GrowthOptions {
  databaseUrl: string;
  /** The bench database's data folder (the service keeps its key ring there). */
  dataDir: string;
  /** Workspace counts of the score measurements, ascending. */
  workspaces: number[];
  /** Entity counts of the publication measurements, ascending. */
  entities: number[];
  publicationSectors: number;
  /** Days of snapshots held by the audited workspaces, one set of `auditWorkspaces` per length. */
  auditDays: number[];
  auditWorkspaces: number;
  auditSequential: number;
  auditConcurrency: number;
  connections: number;
  seconds: number;
  warmupSeconds: number;
  authCacheTtlMs: number;
  seed: string;
  now: Date;
  publicationEnd: string;
  log: (message: string) => void;
}

/** Agencies of the score measurements: a constant 1,000 keys, so only the workspace count grows. */
const AGENCIES = 1000;
/** Workspaces sampled per level for the rotation (spread over the whole range). */
const COLD_SAMPLE = 20_000;
const WARM_SAMPLE = 10_000;

const agencyId = (a: number) => `ws_g_ag_${String(a).padStart(4, '0')}`;
const clientId = (i: number) => `ws_g_${String(i).padStart(7, '0')}`;

const lit = (x: number) => sql.lit(x);

/**
 * Grows the score tenants to `to` workspaces: 1,000 agencies (one read key each, made at the first
 * level) and clients [from - 1000, to - 1000) spread over them, each with one completed audit in the
 * shape src/audits/complete.ts stores. Pure SQL: pillar values from hashes, grades by the engine's cutoffs.
 */
async function growScoreTenants(db: Kysely<DB>, from: number, to: number, seed: string, now: Date) {
  if (from === 0) {
    await sql`
      INSERT INTO workspaces (id, name, plan, account_type, org_type, created_at)
      SELECT 'ws_g_ag_' || lpad(a::text, 4, '0'), 'Growth Agency ' || a, 'agency', 'agency', 'agency', ${now}
        FROM generate_series(0, ${AGENCIES - 1}::int) AS a
    `.execute(db);
  }
  const first = Math.max(0, from - AGENCIES);
  const last = to - AGENCIES; // exclusive
  const chunk = 250_000;
  for (let start = first; start < last; start += chunk) {
    const end = Math.min(last, start + chunk);
    await sql`
      INSERT INTO workspaces (id, name, plan, parent_id, account_type, org_type, created_at)
      SELECT 'ws_g_' || lpad(i::text, 7, '0'), 'Growth Client ' || i, 'pro',
             'ws_g_ag_' || lpad((i % ${lit(AGENCIES)})::text, 4, '0'), 'brand', 'company', ${now}
        FROM generate_series(${start}::int, ${end - 1}::int) AS i
    `.execute(db);
  }
  const pillar = (k: string) =>
    sql.raw(`round((20 + 75 * ${sqlUniform(seed, 'w.id', `'${k}'`)})::numeric, 1)`);
  const grade = (v: string) =>
    sql.raw(
      `CASE WHEN ${v} >= ${PILLAR_GRADE_CUTOFFS.green} THEN 'green' WHEN ${v} >= ${PILLAR_GRADE_CUTOFFS.yellow} THEN 'yellow' ELSE 'red' END`,
    );
  const c = COMPOSITE_GRADE_CUTOFFS;
  const at = now.toISOString();
  const clients = (start: number, end: number) =>
    sql`SELECT 'ws_g_' || lpad(i::text, 7, '0') FROM generate_series(${start}::int, ${end - 1}::int) AS i`;
  const batches = [];
  if (from === 0)
    batches.push(
      sql`SELECT 'ws_g_ag_' || lpad(a::text, 4, '0') FROM generate_series(0, ${AGENCIES - 1}::int) AS a`,
    );
  for (let start = first; start < last; start += chunk)
    batches.push(clients(start, Math.min(last, start + chunk)));
  for (const ids of batches) {
    await sql`
      WITH p AS (
        SELECT w.id, ${sql.join(
          PILLARS.map((k) => sql`${pillar(k)} AS ${sql.ref(k)}`),
          sql`, `,
        )} FROM (${ids}) AS w(id) OFFSET 0
      ), s AS (
        SELECT p.*, round((${sql.join(
          PILLARS.map((k) => sql.ref(`p.${k}`)),
          sql` + `,
        )}) / ${lit(PILLARS.length)}, 1) AS score FROM p OFFSET 0
      )
      INSERT INTO audits (id, workspace_id, status, platforms, lookback_days, created_at, completed_at,
                          estimated_completion, formula_version, recommendations, score, grade, pillars)
      SELECT 'aud_g_' || s.id, s.id, 'completed', ARRAY['instagram', 'tiktok']::text[], 90, ${at}::timestamptz,
             ${at}::timestamptz, ${at}::timestamptz, ${FORMULA_VERSION}, '[]'::jsonb, s.score::real,
             CASE WHEN s.score >= ${lit(c.elite)} THEN 'elite' WHEN s.score >= ${lit(c.strong)} THEN 'strong'
                  WHEN s.score >= ${lit(c.moderate)} THEN 'moderate' WHEN s.score >= ${lit(c.weak)} THEN 'weak'
                  ELSE 'critical' END,
             jsonb_build_object(${sql.join(
               PILLARS.map(
                 (k) =>
                   sql`${sql.lit(k)}, jsonb_build_object('score', round(${sql.ref(`s.${k}`)}), 'change', '+0.0',
                       'grade', ${grade(`s.${k}`)}, 'value', ${sql.ref(`s.${k}`)})`,
               ),
               sql`, `,
             )})
        FROM s
    `.execute(db);
  }
  await sql`ANALYZE workspaces`.execute(db);
  await sql`ANALYZE audits`.execute(db);
}

/** `count` distinct workspace indexes of [0, n), deterministic, as (agency key, workspace) requests. */
function sampleRotation(keys: BenchKey[], n: number, count: number, seed: string): RotatedRequest[] {
  const rand = prng(seed);
  const picked = new Set<number>();
  const want = Math.min(count, n);
  while (picked.size < want) picked.add(Math.floor(rand() * n));
  return [...picked].map((i) => {
    // Indexes below AGENCIES are the agencies themselves; the rest are clients.
    const agency = i < AGENCIES ? i : (i - AGENCIES) % AGENCIES;
    const id = i < AGENCIES ? agencyId(i) : clientId(i - AGENCIES);
    return { path: `/v1/score?workspace_id=${id}`, authorization: bearer(keys[agency]!) };
  });
}

/** Sends every request of the rotation once, `parallel` at a time (fills the score cache). */
async function visitAll(baseUrl: string, rotation: RotatedRequest[], parallel = 32): Promise<void> {
  await inPool(rotation, parallel, async (r) => {
    const response = await fetch(baseUrl + r.path, { headers: { authorization: r.authorization } });
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`warm-up ${r.path}: ${response.status}`);
  });
}

async function tableMb(db: Kysely<DB>, table: string): Promise<number> {
  const r = await sql<{ b: string }>`SELECT pg_total_relation_size(${table}::regclass)::text AS b`.execute(
    db,
  );
  return Math.round(Number(r.rows[0]!.b) / 2 ** 20);
}

export async function runGrowthScenario(ctx: AppContext, o: GrowthOptions): Promise<ScenarioResult[]> {
  const results: ScenarioResult[] = [];
  const seeding: Record<string, number> = {};

  // 1. GET /v1/score as the workspace count grows.
  let have = 0;
  let keys: BenchKey[] = [];
  for (const n of o.workspaces) {
    const seeded = await timed(() => growScoreTenants(ctx.db, have, n, o.seed, o.now));
    if (have === 0) {
      keys = Array.from({ length: AGENCIES }, (_, a) => benchKey(o.seed, `growth-agency-${a}`));
      await insertColumns(
        ctx.db,
        'api_keys',
        [
          ['id', 'text', keys.map((k) => k.id)],
          ['workspace_id', 'text', keys.map((_, a) => agencyId(a))],
          ['secret_hash', 'text', keys.map((k) => k.secretHash.toString('hex'))],
        ],
        {
          expressions: { secret_hash: `decode(t.secret_hash, 'hex')` },
          constants: { scopes: `ARRAY['read']::text[]`, name: `'bench growth'` },
        },
      );
    }
    have = n;
    seeding[`score ${n}`] = round(seeded.ms / 1000);
    const sizes = {
      audits: await tableMb(ctx.db, 'audits'),
      workspaces: await tableMb(ctx.db, 'workspaces'),
    };
    o.log(
      `growth: ${n} workspaces seeded in ${round(seeded.ms / 1000)} s (audits ${sizes.audits} MB, workspaces ${sizes.workspaces} MB)`,
    );

    const measure = async (cache: boolean) => {
      const rotation = sampleRotation(
        keys,
        n,
        cache ? WARM_SAMPLE : COLD_SAMPLE,
        `${o.seed}:growth:${n}:${cache}`,
      );
      const server = await ServerProcess.start({
        databaseUrl: o.databaseUrl,
        dataDir: o.dataDir,
        now: o.now,
        authCacheTtlMs: o.authCacheTtlMs,
        ...(cache ? {} : { scoreCacheTtlMs: 0 }),
      });
      try {
        const run = { connections: o.connections };
        if (cache) await visitAll(server.url, rotation);
        await drive(server.url, rotation, { ...run, seconds: o.warmupSeconds });
        await server.resetRss();
        const result = await drive(server.url, rotation, { ...run, seconds: o.seconds });
        const rss = await server.rss();
        return { ...result, peakRssMb: rss.peakMb, distinct: rotation.length };
      } finally {
        await server.stop().catch(() => server.kill());
      }
    };
    const cold = await measure(false);
    const warm = await measure(true);
    o.log(
      `  cold ${cold.rps} req/s p50/p99 ${cold.p50}/${cold.p99} ms; warm ${warm.rps} req/s p50/p99 ${warm.p50}/${warm.p99} ms`,
    );
    const misses = [cold, warm]
      .filter((r) => r.errors > 0)
      .map((r) => `${r.errors} errors ${JSON.stringify(r.statusCodes)}`);
    results.push({
      kind: 'batch',
      name: 'growth',
      label: `GET /v1/score, ${n.toLocaleString('en')} workspaces`,
      scale: `${AGENCIES} keys; audits ${sizes.audits} MB`,
      status: 'ok',
      measured: `miss p50/p99 ${cold.p50}/${cold.p99} ms (${cold.rps} req/s); cached ${warm.p50}/${warm.p99} ms (${warm.rps} req/s)`,
      limit: `${cold.distinct} / ${warm.distinct} workspaces rotated`,
      target: 'report',
      misses,
      details: { workspaces: n, cold, warm, tableMb: sizes, seedSeconds: round(seeded.ms / 1000) },
    });
  }

  // 2. TACSI publication as the entity count grows.
  let entities = 0;
  for (const n of o.entities) {
    const seeded = await timed(() =>
      seedPublicationData(ctx.db, {
        entities: n,
        sectors: o.publicationSectors,
        periodEnd: o.publicationEnd,
        seed: o.seed,
        now: o.now,
        from: entities,
      }),
    );
    o.log(`growth: ${n} publication entities seeded in ${round(seeded.ms / 1000)} s`);
    if (entities > 0) await unpublishWeek(ctx, o.publicationEnd);
    entities = n;
    const result = await runPublicationScenario(ctx, {
      periodEnd: o.publicationEnd,
      entities: n,
      sectors: o.publicationSectors,
      rows: seeded.value.rows,
      seedSeconds: seeded.ms / 1000,
      // One run at the largest scale: a run publishes seven days and the week (about a minute at 1M).
      runs: n >= 1_000_000 ? 1 : 2,
      cpuProfileDir: null,
    });
    o.log(`  ${result.measured}; ${result.limit}`);
    results.push({
      ...result,
      name: 'growth',
      label: `TACSI publication, ${n.toLocaleString('en')} entities`,
      target: 'report (< 2x)',
    });
  }

  // 3. One audit (every platform, the longest lookback an audit takes: 365 days) of workspaces holding
  // 90, 365 and 730 days of snapshots: each history length has workspaces of its own.
  const { runAuditJob } = await import('../src/audits/jobs.ts');
  const columns = sql.raw(['platform', 'day', ...METRIC_COLUMNS].join(', '));
  const lookback = 365;
  for (const [level, days] of o.auditDays.entries()) {
    const first = level * o.auditWorkspaces;
    const seeded = await timed(() =>
      seedAuditData(ctx.db, { workspaces: o.auditWorkspaces, days, seed: o.seed, now: o.now, first }),
    );
    o.log(
      `growth: ${seeded.value.snapshots} snapshots (${days} days) seeded in ${round(seeded.ms / 1000)} s`,
    );
    const ids = Array.from(
      { length: o.auditWorkspaces },
      (_, k) => `aud_bench_g_${String(first + k).padStart(4, '0')}`,
    );
    await sql`
      INSERT INTO audits (id, workspace_id, status, platforms, lookback_days, estimated_completion, created_at)
      SELECT 'aud_bench_g_' || lpad(i::text, 4, '0'), 'ws_bench_aud_' || lpad(i::text, 4, '0'), 'processing',
             ARRAY[${sql.join([...PLATFORMS])}]::text[], ${lookback}::int, ${o.now}, ${o.now}
        FROM generate_series(${first}::int, ${first + o.auditWorkspaces - 1}::int) AS i
    `.execute(ctx.db);
    const outcomes: Record<string, number> = {};
    const run = async (id: string) => {
      const outcome = await runAuditJob(ctx, { data: { auditId: id }, retryCount: 0 } as never).catch(
        (e: Error) => `error: ${e.message}`,
      );
      outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
    };
    const perAudit: number[] = [];
    for (const id of ids.slice(0, o.auditSequential)) perAudit.push((await timed(() => run(id))).ms);
    const rest = ids.slice(o.auditSequential);
    const throughput = await timed(() => inPool(rest, o.auditConcurrency, run));
    // The limit, as in the audits scenario: the rows of the audit's window read with one plain query.
    const from = auditReadFrom(o.now, lookback);
    const to = utcDay(o.now);
    const reads: number[] = [];
    let rows = 0;
    for (let k = 0; k < o.auditSequential; k++) {
      const read = await timed(() =>
        sql`SELECT ${columns} FROM metric_snapshots
             WHERE workspace_id = ${auditWorkspaceId(first + k)} AND day BETWEEN ${from} AND ${to}`.execute(
          ctx.db,
        ),
      );
      reads.push(read.ms);
      rows = read.value.rows.length;
    }
    const perAuditMs = median(perAudit);
    const readMs = median(reads);
    const perSecond = rest.length / (throughput.ms / 1000);
    o.log(
      `  audit of ${days} days held: ${round(perAuditMs)} ms (read ${round(readMs)} ms, ${rows} rows), ${round(perSecond)}/s at ${o.auditConcurrency}`,
    );
    results.push({
      kind: 'batch',
      name: 'growth',
      label: `audit, ${days} days of snapshots held`,
      scale: `${o.auditWorkspaces} ws x 5 platforms; lookback ${lookback}, ${rows} rows read`,
      status: 'ok',
      measured: `${round(perAuditMs)} ms/audit (p50, one at a time); ${round(perSecond)}/s with ${o.auditConcurrency} in flight`,
      limit: `read ${round(readMs, 2)} ms`,
      ratio: perAuditMs / readMs,
      target: 'report',
      misses:
        (outcomes.completed ?? 0) === ids.length
          ? []
          : [`only ${outcomes.completed ?? 0}/${ids.length} completed: ${JSON.stringify(outcomes)}`],
      details: {
        daysHeld: days,
        lookbackDays: lookback,
        rowsRead: rows,
        perAuditMsP50: round(perAuditMs, 2),
        readMsP50: round(readMs, 2),
        auditsPerSecond: round(perSecond, 1),
        outcomes,
        sector: AUDIT_SECTOR,
        seedSeconds: round(seeded.ms / 1000),
      },
    });
  }
  return results;
}
