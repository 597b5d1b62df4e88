// Scheduled TACSI publication. Daily cells for yesterday at 03:00 UTC and the weekly cell of the ISO
// week that ended on Sunday at 03:30 UTC on Monday, both after the scoring day has closed. Each run
// also retries the few periods before it (3 days, 2 weeks), so a missed run is caught up; publication
// is idempotent, so periods already published are skipped without a random draw.
import type { Job } from 'pg-boss';
import type { AppContext } from '../context.ts';
import { lastCompletedPeriodEnd, trailingPeriodEnds, utcDay } from './periods.ts';
import type { Cadence } from './privacy/index.ts';
import { publishCells, type PublicationOutcome } from './publish.ts';

export const TACSI_QUEUES = { weekly: 'tacsi.publish-weekly', daily: 'tacsi.publish-daily' } as const;
export const TACSI_SCHEDULES = { weekly: '30 3 * * 1', daily: '0 3 * * *' } as const;
const CATCH_UP: Record<Cadence, number> = { weekly: 2, daily: 3 };

export interface PublishJobData {
  /** Publish exactly this period instead of the latest completed ones. */
  periodEnd?: string;
}

/** What one scheduled run publishes: every consumer sector and the headline. */
export function runScheduledPublication(
  ctx: Pick<AppContext, 'db' | 'now'>,
  cadence: Cadence,
  data: PublishJobData = {},
): Promise<PublicationOutcome[]> {
  const last = lastCompletedPeriodEnd(cadence, utcDay(ctx.now()));
  const periodEnds = data.periodEnd ? [data.periodEnd] : trailingPeriodEnds(cadence, last, CATCH_UP[cadence]);
  return publishCells(ctx, { cadence, periodEnds });
}

export function tacsiJobs(ctx: AppContext): void {
  for (const cadence of ['weekly', 'daily'] as const) {
    const name = TACSI_QUEUES[cadence];
    // A refused cell (annual cap) is final, so retries only cover transient database errors.
    ctx.jobs.queue(name, { retryLimit: 3, retryDelay: 300, retryBackoff: true, expireInSeconds: 1800 });
    ctx.jobs.worker<PublishJobData>(name, { batchSize: 1 }, async (jobs: Job<PublishJobData>[]) => {
      for (const job of jobs) await runScheduledPublication(ctx, cadence, job.data ?? {});
    });
    ctx.jobs.schedule(name, TACSI_SCHEDULES[cadence]);
  }
}
