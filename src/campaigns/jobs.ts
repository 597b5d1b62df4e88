import type { AppContext } from '../context.ts';
import { LIFECYCLE_CRON, LIFECYCLE_QUEUE, runCampaignLifecycle } from './lifecycle.ts';

export function campaignJobs(ctx: AppContext): void {
  // stately: at most one run queued and one running, so a slow run never piles up successors.
  ctx.jobs.queue(LIFECYCLE_QUEUE, {
    policy: 'stately',
    retryLimit: 5,
    retryDelay: 60,
    retryBackoff: true,
    expireInSeconds: 600,
  });
  ctx.jobs.worker(LIFECYCLE_QUEUE, { batchSize: 1 }, async () => {
    await runCampaignLifecycle(ctx);
  });
  ctx.jobs.schedule(LIFECYCLE_QUEUE, LIFECYCLE_CRON);
}

/**
 * Asks for one lifecycle run as soon as workers start, so a campaign whose start or phase end
 * passed while the service was down catches up at once rather than at the next quarter hour.
 */
export async function requestLifecycleRun(ctx: AppContext): Promise<void> {
  await ctx.jobs.send(LIFECYCLE_QUEUE, {});
}
