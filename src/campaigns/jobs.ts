import type { AppContext } from '../context.ts';
import { defineJob } from '../infra/jobs/define.ts';
import { runCampaignLifecycle } from './lifecycle.ts';

/** Phase changes, every quarter hour: phase boundaries fall at 00:00 UTC and are announced soon after. */
export const campaignLifecycleJob = defineJob<object>({
  queue: 'campaigns.lifecycle',
  // stately: at most one run queued and one running, so a slow run never piles up successors.
  policy: 'stately',
  retry: { retryLimit: 5, retryDelay: 60, retryBackoff: true },
  expireInSeconds: 600,
  schedule: '*/15 * * * *',
  worker: { batchSize: 1 },
  handler: (ctx) => runCampaignLifecycle(ctx),
});

/**
 * Asks for one lifecycle run as soon as workers start, so a campaign whose start or phase end
 * passed while the service was down catches up at once rather than at the next quarter hour.
 */
export async function requestLifecycleRun(ctx: AppContext): Promise<void> {
  await campaignLifecycleJob.enqueue(ctx, {});
}
