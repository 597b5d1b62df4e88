// `brandhealth scores recompute`: recompute stored daily scores under the current formula in
// batches (docs/operations.md "Recomputing daily scores"). Idempotent (upserts of the current
// formula's rows; other formulas' rows are never touched) and resumable (progress per run and
// workspace, moved in the transaction that writes each batch).
import { benchmarkIndustryOf } from '../workspaces/queries.ts';
import { sql } from 'kysely';
import type { AppContext } from '../context.ts';
import {
  computeDailyScores,
  CURRENT_FORMULA,
  lastDayMovedBy,
  scoreInputFrom,
  storedGradesBefore,
  currentRows,
  writeDailyScores,
} from './daily-scores.ts';
import { loadSnapshots } from './snapshots.ts';
import { addDays, utcDay } from '../core/days.ts';
import { DomainError } from '../core/errors.ts';

/** Days per batch: one transaction each, so a crash loses at most one batch of work. */
export const RECOMPUTE_BATCH_DAYS = 180;

export interface RecomputeOptions {
  /** Only this workspace (it must exist); default every workspace with metric snapshots. */
  workspaceId?: string;
  /** First day to recompute; default each workspace's first snapshot day. */
  fromDay?: string;
  /** Ignore the progress of an earlier run with the same arguments and start over. */
  restart?: boolean;
  /** Progress lines (one per workspace). */
  log?: (line: string) => void;
}

export interface RecomputeReport {
  formulaVersion: string;
  runKey: string;
  workspaces: number;
  /** Workspaces an earlier run with the same arguments had already finished. */
  skipped: number;
  days: number;
  batches: number;
}

/** The progress key of a run: the formula and the arguments that define the work. */
function runKeyOf(fromDay: string | undefined): string {
  return `${CURRENT_FORMULA} from ${fromDay ?? 'start'}`;
}

/** Workspaces to recompute with their snapshot extent, in id order (deterministic, resumable). */
async function targets(ctx: AppContext, workspaceId: string | undefined) {
  const only = workspaceId !== undefined ? sql`AND w.id = ${workspaceId}` : sql``;
  const { rows } = await sql<{ id: string; first: string | null; last: string | null }>`
    SELECT w.id, min(s.day)::text AS first, max(s.day)::text AS last
      FROM workspaces w LEFT JOIN metric_snapshots s ON s.workspace_id = w.id
     WHERE true ${only}
     GROUP BY w.id
     ORDER BY w.id`.execute(ctx.db);
  if (workspaceId !== undefined && rows.length === 0)
    throw new DomainError('not_found', `no workspace "${workspaceId}"`);
  return rows.filter((r) => r.first !== null && r.last !== null) as {
    id: string;
    first: string;
    last: string;
  }[];
}

export async function recomputeScores(
  ctx: AppContext,
  options: RecomputeOptions = {},
): Promise<RecomputeReport> {
  const today = utcDay(ctx.now());
  const runKey = runKeyOf(options.fromDay);
  if (options.fromDay !== undefined && options.fromDay > today)
    throw new DomainError('invalid_date_range', `--from ${options.fromDay} is after today (${today})`, {
      parameter: 'from',
    });
  const report: RecomputeReport = {
    formulaVersion: CURRENT_FORMULA,
    runKey,
    workspaces: 0,
    skipped: 0,
    days: 0,
    batches: 0,
  };
  if (options.restart) {
    let q = ctx.db.deleteFrom('daily_score_recomputes').where('run_key', '=', runKey);
    if (options.workspaceId !== undefined) q = q.where('workspace_id', '=', options.workspaceId);
    await q.execute();
  }
  for (const ws of await targets(ctx, options.workspaceId)) {
    // A snapshot on day d feeds the scores of d .. d + window - 1 (as a sync recomputes them).
    const lastAffected = lastDayMovedBy(ws.last);
    const to = lastAffected < today ? lastAffected : today;
    const start = options.fromDay !== undefined && options.fromDay > ws.first ? options.fromDay : ws.first;
    const progress = await ctx.db
      .selectFrom('daily_score_recomputes')
      .select('done_through')
      .where('run_key', '=', runKey)
      .where('workspace_id', '=', ws.id)
      .executeTakeFirst();
    let from = progress ? addDays(progress.done_through, 1) : start;
    if (from > to) {
      report.skipped++;
      continue;
    }
    report.workspaces++;
    let days = 0;
    while (from <= to) {
      const end = addDays(from, RECOMPUTE_BATCH_DAYS - 1) < to ? addDays(from, RECOMPUTE_BATCH_DAYS - 1) : to;
      const batchFrom = from;
      days += await ctx.db.transaction().execute(async (trx) => {
        const [snapshots, grades, industry] = await Promise.all([
          loadSnapshots(trx, ws.id, { from: scoreInputFrom(batchFrom), to: end }),
          storedGradesBefore(trx, ws.id, batchFrom),
          benchmarkIndustryOf(trx, ws.id),
        ]);
        // Only the run's last day gets an interval, so the rows do not depend on where batches end.
        const rows = computeDailyScores(ws.id, snapshots, batchFrom, end, {
          ...grades,
          industry,
          lastInterval: end === to,
        });
        await writeDailyScores(trx, rows);
        await trx
          .insertInto('daily_score_recomputes')
          .values({ run_key: runKey, workspace_id: ws.id, done_through: end, updated_at: ctx.now() })
          .onConflict((oc) =>
            oc.columns(['run_key', 'workspace_id']).doUpdateSet({ done_through: end, updated_at: ctx.now() }),
          )
          .execute();
        return currentRows(rows);
      });
      report.batches++;
      from = addDays(end, 1);
    }
    report.days += days;
    options.log?.(`${ws.id}: ${days} daily scores (${start} to ${to}) under ${CURRENT_FORMULA}`);
  }
  return report;
}
