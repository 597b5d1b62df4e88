import type { AppContext } from '../context.ts';
import { utcDay, dayStart } from '../core/days.ts';
import { defineJob } from '../infra/jobs/define.ts';
import { newId } from '../infra/ids.ts';
import { emailReport, renderReport } from './generate.ts';
import { CADENCES, latestClosedPeriod, type Period } from './periods.ts';
import * as q from './queries.ts';

export const REPORT_QUEUE = 'reports.generate';
export const REPORT_TICK_QUEUE = 'reports.schedule';
/** Retries after the first attempt, with back-off from 30 s (about 30 s, 1, 2, 4, 8 min). */
export const REPORT_RETRY_LIMIT = 5;

export interface ReportJobData {
  reportId: string;
}

/**
 * One attempt of a report job: render (once) then email (once). An error is rethrown so pg-boss
 * retries; after the last attempt a report that could not be rendered is marked failed.
 */
export async function runReportJob(
  ctx: AppContext,
  job: { data: ReportJobData; retryCount: number },
): Promise<string> {
  const { reportId } = job.data;
  let outcome;
  try {
    outcome = await renderReport(ctx, reportId);
  } catch (error) {
    if (job.retryCount >= REPORT_RETRY_LIMIT) {
      ctx.jobs.onError(error);
      await q.markFailed(ctx.db, reportId, 'the report could not be rendered after several attempts');
      return 'failed';
    }
    throw error;
  }
  if (outcome === 'gone' || outcome === 'failed') return outcome;
  try {
    return `${outcome}, mail ${await emailReport(ctx, reportId)}`;
  } catch (error) {
    if (job.retryCount >= REPORT_RETRY_LIMIT) {
      // The report stays ready and downloadable; only its email is given up.
      ctx.jobs.onError(error);
      return `${outcome}, mail failed`;
    }
    throw error;
  }
}

export const reportGenerateJob = defineJob<ReportJobData>({
  queue: REPORT_QUEUE,
  retry: { retryLimit: REPORT_RETRY_LIMIT, retryDelay: 30, retryBackoff: true, retryDelayMax: 900 },
  expireInSeconds: 300,
  heartbeatSeconds: 60,
  worker: { batchSize: 1, localConcurrency: 1 },
  handler: (ctx, job) => runReportJob(ctx, job),
});

/**
 * Claims a period of a schedule and enqueues its generation in the same transaction. Exactly once:
 * of any number of concurrent claims of one (schedule, period), the unique constraint lets one
 * insert the report (and enqueue its one job); the others find that report.
 */
export async function claimReport(
  ctx: AppContext,
  schedule: q.ScheduleRow,
  period: Period,
): Promise<{ created: boolean; report: q.ReportSummaryRow }> {
  const inserted = await ctx.db.transaction().execute(async (trx) => {
    const row = await q.claimPeriod(trx, {
      id: newId('rpt'),
      scheduleId: schedule.id,
      workspaceId: schedule.workspace_id,
      start: period.start,
      end: period.end,
      createdAt: ctx.now(),
    });
    if (row) await reportGenerateJob.enqueue(ctx, { reportId: row.id }, { trx });
    return row;
  });
  if (inserted) return { created: true, report: inserted };
  const existing = await q.reportOfPeriod(ctx.db, schedule.id, period.start);
  if (!existing) throw new Error(`report of ${schedule.id} ${period.start} neither inserted nor found`);
  return { created: false, report: existing };
}

/**
 * The scheduler's pass: every live schedule gets the report of its cadence's latest closed period,
 * unless it has it. A schedule's first report is of the first period that ends after it was
 * created. Returns how many reports it claimed.
 */
export async function scheduleDueReports(ctx: AppContext): Promise<number> {
  const today = utcDay(ctx.now());
  let claimed = 0;
  for (const cadence of CADENCES) {
    const period = latestClosedPeriod(cadence, today);
    let after = '';
    for (;;) {
      const batch = await q.schedulesDue(ctx.db, cadence, dayStart(period.end, 1), after);
      for (const schedule of batch) {
        if ((await claimReport(ctx, schedule, period)).created) claimed++;
      }
      if (batch.length < 200) break;
      after = batch[batch.length - 1]!.id;
    }
  }
  return claimed;
}

/** The scheduler, hourly: a period's reports go out in the first hour after it closes (UTC). */
export const reportTickJob = defineJob<object>({
  queue: REPORT_TICK_QUEUE,
  retry: { retryLimit: 2, retryDelay: 60, retryBackoff: false },
  expireInSeconds: 600,
  policy: 'stately',
  schedule: '7 * * * *',
  worker: { batchSize: 1 },
  handler: (ctx) => scheduleDueReports(ctx),
});
