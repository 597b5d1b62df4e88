// Scheduled TACSI publication. Daily cells for yesterday at 03:00 UTC and the weekly cell of the ISO
// week that ended on Sunday at 03:30 UTC on Monday, both after the scoring day has closed. Each run
// also retries the few periods before it (3 days, 2 weeks), so a missed run is caught up; publication
// is idempotent, so periods already published are skipped without a random draw.
import type { AppContext } from '../context.ts';
import { defineJob } from '../infra/jobs/define.ts';
import { lastCompletedPeriodEnd, trailingPeriodEnds } from './periods.ts';
import type { Cadence } from './privacy/index.ts';
import { publishCells, type PublicationOutcome } from './publish.ts';
import { utcDay } from '../core/days.ts';

export const TACSI_QUEUES = { weekly: 'tacsi.publish-weekly', daily: 'tacsi.publish-daily' } as const;
export const TACSI_SCHEDULES = { weekly: '30 3 * * 1', daily: '0 3 * * *' } as const;
const CATCH_UP: Record<Cadence, number> = { weekly: 2, daily: 3 };

export interface PublishJobData {
  /** Publish exactly this period instead of the latest completed ones. */
  periodEnd?: string;
}

/** What one scheduled run publishes: every consumer sector and the headline. */
export function runScheduledPublication(
  ctx: Pick<AppContext, 'db' | 'now' | 'state'>,
  cadence: Cadence,
  data: PublishJobData = {},
): Promise<PublicationOutcome[]> {
  const last = lastCompletedPeriodEnd(cadence, utcDay(ctx.now()));
  const periodEnds = data.periodEnd ? [data.periodEnd] : trailingPeriodEnds(cadence, last, CATCH_UP[cadence]);
  return publishCells(ctx, { cadence, periodEnds });
}

function publicationJob(cadence: Cadence) {
  return defineJob<PublishJobData>({
    queue: TACSI_QUEUES[cadence],
    // A refused cell (annual cap) is final, so retries only cover crashes and transient database
    // errors: 5-10 s, 10-20 s, 20-40 s. A run killed mid-publication stops beating its heartbeat and
    // is retried within seconds (10 s without a beat, a 5 s maintenance pass), not after the
    // 30-minute expiry, which stays as the bound of a run that hangs while its process lives.
    // Publication is idempotent (a cell and its privacy-ledger row commit together).
    retry: { retryLimit: 3, retryDelay: 5, retryBackoff: true },
    expireInSeconds: 1800,
    heartbeatSeconds: 10,
    schedule: TACSI_SCHEDULES[cadence],
    worker: { batchSize: 1 },
    handler: (ctx, job) => runScheduledPublication(ctx, cadence, job.data ?? {}),
  });
}

export const tacsiPublicationJobs = [publicationJob('weekly'), publicationJob('daily')];
