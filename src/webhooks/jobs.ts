import { Counter } from 'prom-client';
import type { AppContext } from '../context.ts';
import { defineJob } from '../infra/jobs/define.ts';
import { attemptDelivery } from './attempt.ts';
import { retryDelaySeconds, webhookSettings } from './settings.ts';

/** Job data of `webhooks.deliver`: one row of webhook_deliveries. */
export interface DeliverJob {
  deliveryId: string;
  /** Which attempt this is, from 1 (absent: 1). */
  attempt?: number;
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
 * One attempt of one delivery. The fan-out enqueues attempt 1; a failure at the receiver enqueues
 * the next attempt itself, delayed per the delivery schedule (settings.ts, DELIVERY_SCHEDULE: 13
 * attempts over 20.5 to 26.5 hours; tests shorten it with configureWebhooks), in the transaction
 * that records the failure. pg-boss's own retries only cover a run that died or threw (a process
 * killed mid-attempt, a database error): a heartbeat every 5 s, declared dead after 10 s, retried
 * 1-2 s later, so a crashed attempt is made again within seconds rather than after the receiver
 * back-off (docs/webhooks.md, "Crashes").
 */
export const webhookDeliverJob = defineJob<DeliverJob>({
  queue: 'webhooks.deliver',
  retry: { retryLimit: 10, retryDelay: 1, retryBackoff: true, retryDelayMax: 60 },
  expireInSeconds: 60,
  heartbeatSeconds: 10,
  // Several at once: one slow receiver (up to 10 s) must not hold up the others.
  worker: { pollingIntervalSeconds: 1, localConcurrency: 4 },
  async handler(ctx, job) {
    const attempt = job.data.attempt ?? 1;
    const { schedule } = webhookSettings(ctx);
    const { result } = await attemptDelivery(ctx, job.data.deliveryId, {
      attempt,
      lastAttempt: attempt >= schedule.attempts,
      scheduleNext: (trx) =>
        webhookDeliverJob.enqueue(
          ctx,
          { deliveryId: job.data.deliveryId, attempt: attempt + 1 },
          { trx, startAfter: retryDelaySeconds(schedule, attempt) },
        ),
    });
    attemptCounter(ctx).inc({ result });
  },
});
