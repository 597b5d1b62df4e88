import { Counter } from 'prom-client';
import type { AppContext } from '../context.ts';
import { defineJob } from '../infra/jobs/define.ts';
import { attemptDelivery, RetryDelivery } from './attempt.ts';

/** Job data of `webhooks.deliver`: one row of webhook_deliveries. */
export interface DeliverJob {
  deliveryId: string;
}

const ATTEMPTS_METRIC = 'webhook_delivery_attempts_total';

/** The attempts counter on this service's registry (created on first use; registries are per service). */
function attemptCounter(ctx: AppContext): Counter<'result'> {
  const registry = ctx.metrics.registry;
  return (
    (registry.getSingleMetric(ATTEMPTS_METRIC) as Counter<'result'> | undefined) ??
    new Counter({
      name: ATTEMPTS_METRIC,
      help: 'Webhook delivery attempts by result (succeeded, retry, failed, skipped)',
      labelNames: ['result'] as const,
      registers: [registry],
    })
  );
}

/**
 * One attempt of one delivery, enqueued by the fan-out. 1 attempt + 12 retries: pg-boss waits
 * retryDelay * 2^(n-1) * (1 + jitter in [0,1)) seconds before retry n, capped at 6 h: 30-60 s,
 * 1-2 min, 2-4 min, ... so the 13th and last attempt comes 20.5 to 26.5 hours after the first
 * (docs/webhooks.md has the table). Tests shorten it with ctx.jobs.setRetry(webhookDeliverJob, ...).
 */
export const webhookDeliverJob = defineJob<DeliverJob>({
  queue: 'webhooks.deliver',
  retry: { retryLimit: 12, retryDelay: 30, retryBackoff: true, retryDelayMax: 6 * 3600 },
  expireInSeconds: 60,
  // Several at once: one slow receiver (up to 10 s) must not hold up the others.
  worker: { pollingIntervalSeconds: 1, localConcurrency: 4 },
  async handler(ctx, job) {
    // The job carries the retry limit it was sent with (a test may have shortened it).
    const retryLimit = job.retryLimit ?? ctx.jobs.retryOf(webhookDeliverJob).retryLimit;
    const { result, outcome } = await attemptDelivery(ctx, job.data.deliveryId, {
      lastAttempt: job.retryCount >= retryLimit,
    });
    attemptCounter(ctx).inc({ result });
    if (result === 'retry') throw new RetryDelivery(outcome?.error ?? 'delivery failed');
  },
});
