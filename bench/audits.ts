import { fork } from 'node:child_process';
import path from 'node:path';
import { sql } from 'kysely';
import type { AppContext } from '../src/context.ts';
import { utcDay } from '../src/core/days.ts';
import { METRIC_COLUMNS } from '../src/core/metric-snapshot.ts';
import type { Backend } from './options.ts';
import { startCpuProfile } from './profiler.ts';
import type { AuditWorkerReply, AuditWorkerRequest } from './audit-worker.ts';
import type { ScenarioResult } from './report.ts';
import { AUDIT_SECTOR, auditReadFrom, auditWorkspaceId, insertProcessingAudits } from './seed/audit-data.ts';
import { inPool, mean, median, round, timed } from './stats.ts';

export interface AuditScenarioOptions {
  backend: Backend;
  workspaces: number;
  days: number;
  sequential: number;
  concurrency: number;
  now: Date;
  snapshotRows: number;
  seedSeconds: number;
  /** Write a CPU profile of the throughput phase there (audits.cpuprofile). */
  cpuProfileDir: string | null;
}

type RunAuditJob = (
  ctx: AppContext,
  job: { data: { auditId: string }; retryCount: number },
) => Promise<string>;

const SNAPSHOT_COLUMNS = sql.raw(['platform', 'day', ...METRIC_COLUMNS].join(', '));

/**
 * Audits through the real job handler (src/audits/jobs.ts runAuditJob) on processing audits inserted
 * in bulk: first `sequential` of them one at a time (the time of one audit), then the rest with
 * `concurrency` in flight (audits per second). The I/O limit is the same snapshot rows of each
 * audited workspace read with one plain SQL query.
 */
export async function runAuditScenario(
  ctx: AppContext,
  options: AuditScenarioOptions,
): Promise<ScenarioResult> {
  const { workspaces, days, sequential, concurrency, now } = options;
  const scale = `${workspaces} ws x 5 platforms x ${days} d (${options.snapshotRows} rows)`;
  const base: ScenarioResult = {
    kind: 'batch',
    name: 'audits',
    label: 'audits (job handler)',
    scale,
    status: 'ok',
    misses: [],
  };
  let runAuditJob: RunAuditJob;
  try {
    ({ runAuditJob } = (await import('../src/audits/jobs.ts')) as { runAuditJob: RunAuditJob });
    if (typeof runAuditJob !== 'function') throw new Error('src/audits/jobs.ts exports no runAuditJob');
  } catch (error) {
    return {
      ...base,
      status: 'skipped',
      reason: `audit job handler unavailable: ${(error as Error).message}`,
    };
  }

  const outcomes = new Map<string, number>();
  const runInto = (into: Map<string, number>) => async (auditId: string) => {
    const outcome = await runAuditJob(ctx, { data: { auditId }, retryCount: 0 }).catch(
      (e: Error) => `error: ${e.message}`,
    );
    into.set(outcome, (into.get(outcome) ?? 0) + 1);
  };
  const run = runInto(outcomes);

  const first = await insertProcessingAudits(ctx.db, { from: 0, to: sequential, lookbackDays: days, now });
  const perAudit: number[] = [];
  const sequentialRun = await timed(async () => {
    for (const id of first) perAudit.push((await timed(() => run(id))).ms);
  });

  const rest = await insertProcessingAudits(ctx.db, {
    from: sequential,
    to: workspaces,
    lookbackDays: days,
    now,
  });
  const stopProfile = options.cpuProfileDir ? await startCpuProfile() : null;
  const throughput = await timed(() => inPool(rest, concurrency, run));
  await stopProfile?.(path.join(options.cpuProfileDir!, 'audits.cpuprofile'));
  const auditsPerSecond = rest.length / (throughput.ms / 1000);
  // The same number of audits again (a second audit of the same workspaces), shared by two processes.
  const twoProcesses =
    options.backend === 'postgres' && ctx.config.databaseUrl
      ? await twoProcessThroughput(ctx, ctx.config.databaseUrl, options, runInto)
      : null;

  // The I/O limit: each audited workspace's snapshot rows (the window the audit reads), one query each.
  const from = auditReadFrom(now, days);
  const to = utcDay(now);
  const reads: number[] = [];
  let rowsPerRead = 0;
  for (let i = 0; i < sequential; i++) {
    const { value, ms } = await timed(() =>
      sql`SELECT ${SNAPSHOT_COLUMNS} FROM metric_snapshots
           WHERE workspace_id = ${auditWorkspaceId(i)} AND day BETWEEN ${from} AND ${to}`.execute(ctx.db),
    );
    reads.push(ms);
    rowsPerRead = value.rows.length;
  }
  const breakdown = await auditBreakdown(ctx, Math.min(sequential, 20), days, now);
  // One database round trip, for scale: an audit makes about a dozen (reads, then its transaction).
  const roundTrips: number[] = [];
  for (let i = 0; i < 50; i++) roundTrips.push((await timed(() => sql`SELECT 1`.execute(ctx.db))).ms);

  // Medians: the machine is shared, and one stalled audit or read should not decide the ratio.
  const perAuditMs = median(perAudit);
  const readMs = median(reads);
  const ratio = perAuditMs / readMs;
  const misses: string[] = [];
  const completed = outcomes.get('completed') ?? 0;
  if (completed !== workspaces)
    misses.push(`only ${completed}/${workspaces} completed: ${JSON.stringify(Object.fromEntries(outcomes))}`);
  if (twoProcesses && 'error' in twoProcesses) misses.push(`two processes: ${twoProcesses.error}`);
  else if (twoProcesses && twoProcesses.completed !== twoProcesses.audits)
    misses.push(
      `two processes: ${twoProcesses.completed}/${twoProcesses.audits} completed: ${JSON.stringify(twoProcesses.outcomes)}`,
    );
  if (options.backend === 'postgres' && auditsPerSecond < 100)
    misses.push(`${round(auditsPerSecond)} audits/s < 100`);
  if (!(ratio < 2)) misses.push(`audit time ${ratio.toFixed(2)}x the read time (target < 2x)`);
  return {
    ...base,
    measured:
      `${round(auditsPerSecond)} audits/s (c=${concurrency})` +
      (twoProcesses && 'auditsPerSecond' in twoProcesses
        ? `, ${round(twoProcesses.auditsPerSecond)}/s in 2 processes`
        : '') +
      `; ${round(perAuditMs)} ms/audit (p50)`,
    limit: `read ${round(readMs, 2)} ms/audit (${rowsPerRead} rows)`,
    ratio,
    target: options.backend === 'postgres' ? '>= 100/s, < 2x read' : '< 2x read',
    misses,
    details: {
      audits: workspaces,
      outcomes: Object.fromEntries(outcomes),
      sequentialAudits: sequential,
      sequentialAuditsPerSecond: round(sequential / (sequentialRun.ms / 1000), 1),
      perAuditMsP50: round(perAuditMs, 2),
      perAuditMsMean: round(mean(perAudit), 2),
      throughputAudits: rest.length,
      concurrency,
      auditsPerSecond: round(auditsPerSecond, 1),
      twoProcesses,
      readMsP50: round(readMs, 2),
      readMsMean: round(mean(reads), 2),
      rowsPerRead,
      breakdownMs: breakdown,
      roundTripMs: round(median(roundTrips), 2),
      snapshotRows: options.snapshotRows,
      seedSeconds: round(options.seedSeconds),
    },
  };
}

/**
 * Audits per second with two worker processes on the same database: the bench process and a child
 * (bench/audit-worker.ts, the real service), each running the job handler with `concurrency` in
 * flight over half of a second round of processing audits, timed from the start of both to the end
 * of the later one. pg-boss' own fetch and completion queries are not in it, as in the one-process run.
 */
async function twoProcessThroughput(
  ctx: AppContext,
  databaseUrl: string,
  options: AuditScenarioOptions,
  runInto: (into: Map<string, number>) => (auditId: string) => Promise<void>,
): Promise<
  | {
      auditsPerSecond: number;
      audits: number;
      msBench: number;
      msChild: number;
      completed: number;
      outcomes: Record<string, Record<string, number>>;
    }
  | { error: string }
> {
  const { sequential, workspaces, days, now, concurrency } = options;
  const ids = await insertProcessingAudits(ctx.db, {
    from: sequential,
    to: workspaces,
    lookbackDays: days,
    now,
    round: 2,
  });
  const child = fork(new URL('./audit-worker.ts', import.meta.url).pathname, [], {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      BENCH_DATABASE_URL: databaseUrl,
      BENCH_NOW: now.toISOString(),
      // The audits in flight and a little room: the shared server's connections are not ours to take.
      DATABASE_POOL_SIZE: String(concurrency + 2),
    },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const next = () =>
    new Promise<AuditWorkerReply>((resolve) => {
      child.once('message', resolve);
      void exited.then(() => resolve({ type: 'error', error: 'the audit worker process exited' }));
    });
  try {
    const ready = await next();
    if (ready.type !== 'ready') return { error: ready.type === 'error' ? ready.error : 'worker not ready' };
    const theirs = ids.filter((_, i) => i % 2 === 1);
    const mine = ids.filter((_, i) => i % 2 === 0);
    const start = performance.now();
    const childDone = next();
    child.send({ type: 'run', ids: theirs, concurrency } satisfies AuditWorkerRequest);
    const outcomes = new Map<string, number>();
    await inPool(mine, concurrency, runInto(outcomes));
    const msBench = performance.now() - start;
    const reply = await childDone;
    const ms = performance.now() - start;
    if (reply.type !== 'done') return { error: reply.type === 'error' ? reply.error : 'no answer' };
    const completed = (reply.outcomes.completed ?? 0) + (outcomes.get('completed') ?? 0);
    return {
      auditsPerSecond: round(ids.length / (ms / 1000), 1),
      audits: ids.length,
      msBench: round(msBench),
      msChild: round(reply.ms),
      completed,
      outcomes: { bench: Object.fromEntries(outcomes), child: reply.outcomes },
    };
  } finally {
    if (child.connected) child.send({ type: 'stop' } satisfies AuditWorkerRequest);
    const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(killer);
  }
}

/**
 * Where an audit's time goes, from the same public functions the handler calls, timed one by one on
 * already-audited workspaces (read-only: nothing is written): snapshot load (query + JSON decoding), the
 * scoring engine (formula v2, the audit's window), the industry cohort query, the daily score of the day. What the handler spends on
 * top is its reads of the audit rows and the completion transaction.
 */
async function auditBreakdown(ctx: AppContext, samples: number, days: number, now: Date) {
  try {
    const { loadSnapshotsForScoring } = await import('../src/scoring/snapshots.ts');
    const { scoreWorkspaceV2 } = await import('../src/scoring/engine/index.ts');
    const { PLATFORMS } = await import('../src/core/catalog.ts');
    const { industryBenchmark } = await import('../src/audits/benchmark.ts');
    const { computeDailyScores } = await import('../src/scoring/daily-scores.ts');
    const asOf = utcDay(now);
    const from = auditReadFrom(now, days);
    const parts = {
      loadSnapshotsForScoring: [] as number[],
      scoreWorkspaceV2: [] as number[],
      industryBenchmark: [] as number[],
      computeDailyScores: [] as number[],
    };
    for (let i = 0; i < samples; i++) {
      const ws = { id: auditWorkspaceId(i), sector_slug: AUDIT_SECTOR };
      const loaded = await timed(() => loadSnapshotsForScoring(ctx.db, ws.id, { from, to: asOf }));
      parts.loadSnapshotsForScoring.push(loaded.ms);
      const scored = await timed(async () =>
        scoreWorkspaceV2({
          snapshots: loaded.value,
          platforms: [...PLATFORMS],
          asOf,
          lookbackDays: days,
          today: asOf,
        }),
      );
      parts.scoreWorkspaceV2.push(scored.ms);
      parts.industryBenchmark.push(
        (await timed(() => industryBenchmark(ctx.db, ws, scored.value.score, asOf))).ms,
      );
      parts.computeDailyScores.push(
        (await timed(async () => computeDailyScores(ws.id, loaded.value, asOf, asOf))).ms,
      );
    }
    return Object.fromEntries(Object.entries(parts).map(([k, v]) => [k, round(median(v), 2)]));
  } catch (error) {
    return { unavailable: String((error as Error).message) };
  }
}

/**
 * The industry cohort query an audit runs (src/audits/benchmark.ts), timed alone on `samples` audited
 * workspaces: called again once other workspaces' daily scores fill the same 90-day window, it shows
 * how that query grows with the rest of the database rather than with the workspace's own sector.
 */
export async function probeCohortQuery(ctx: AppContext, samples: number, now: Date): Promise<number | null> {
  try {
    const { industryBenchmark } = await import('../src/audits/benchmark.ts');
    const asOf = utcDay(now);
    const times: number[] = [];
    for (let i = 0; i < samples; i++) {
      const ws = { id: auditWorkspaceId(i), sector_slug: AUDIT_SECTOR };
      times.push((await timed(() => industryBenchmark(ctx.db, ws, 50, asOf))).ms);
    }
    return round(median(times), 2);
  } catch {
    return null;
  }
}
