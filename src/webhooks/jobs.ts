import type { JobWithMetadata } from 'pg-boss';
import { Counter, type Registry } from 'prom-client';
import type { AppContext } from '../context.ts';
import { WEBHOOK_FANOUT_QUEUE } from '../events/emit.ts';
import { attemptDelivery, RetryDelivery } from './attempt.ts';
import { fanOutEvent, WEBHOOK_DELIVER_QUEUE, type DeliverJob, type FanoutJob } from './fanout.ts';
import { DELIVERY_RETRY, webhookSettings } from './settings.ts';

const attemptCounters = new WeakMap<Registry, Counter<'result'>>();

function attemptCounter(registry: Registry): Counter<'result'> {
  let counter = attemptCounters.get(registry);
  if (!counter) {
    counter = new Counter({
      name: 'webhook_delivery_attempts_total',
      help: 'Webhook delivery attempts by result (succeeded, retry, failed, skipped)',
      labelNames: ['result'] as const,
      registers: [registry],
    });
    attemptCounters.set(registry, counter);
  }
  return counter;
}

/**
 * Declares the two webhook queues and their workers. `webhooks.fanout` is always declared:
 * emitEvent sends to it in every process, whether or not this one runs workers.
 */
export function webhookJobs(ctx: AppContext): void {
  // Fan-out is a few inserts; it retries quickly (the database was away, say).
  ctx.jobs.queue(WEBHOOK_FANOUT_QUEUE, {
    retryLimit: 10,
    retryDelay: 5,
    retryBackoff: true,
    retryDelayMax: 600,
    expireInSeconds: 120,
  });
  // The retry policy is set again on each job from webhookSettings (tests shorten it).
  ctx.jobs.queue(WEBHOOK_DELIVER_QUEUE, { ...DELIVERY_RETRY, expireInSeconds: 60 });

  ctx.jobs.worker<FanoutJob>(WEBHOOK_FANOUT_QUEUE, { pollingIntervalSeconds: 1 }, async (jobs) => {
    for (const job of jobs) await fanOutEvent(ctx, job.data);
  });

  const attempts = attemptCounter(ctx.metrics.registry);
  ctx.jobs.worker<DeliverJob>(
    WEBHOOK_DELIVER_QUEUE,
    // Several at once: one slow receiver (up to 10 s) must not hold up the others.
    { pollingIntervalSeconds: 1, localConcurrency: 4, includeMetadata: true },
    async (jobs) => {
      for (const job of jobs as JobWithMetadata<DeliverJob>[]) {
        const retryLimit = job.retryLimit ?? webhookSettings(ctx).retry.retryLimit;
        const { result, outcome } = await attemptDelivery(ctx, job.data.deliveryId, {
          lastAttempt: job.retryCount >= retryLimit,
        });
        attempts.inc({ result });
        if (result === 'retry') throw new RetryDelivery(outcome?.error ?? 'delivery failed');
      }
    },
  );
}
