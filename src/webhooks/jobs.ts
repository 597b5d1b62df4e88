// The two webhook jobs: `webhooks.fanout` turns one recorded event into its deliveries, and
// `webhooks.deliver` makes one attempt of one delivery (docs/webhooks.md).
import { createHash } from 'node:crypto';
import { Counter } from 'prom-client';
import type { AppContext } from '../context.ts';
import { isRowBound, type Sealed } from '../infra/crypto/keyring.ts';
import { sealedAt } from '../infra/crypto/sealed-columns.ts';
import { newId } from '../infra/ids.ts';
import { defineJob } from '../infra/jobs/define.ts';
import { attemptDelivery } from './attempt.ts';
import { findEvent, subscribedWebhooks } from './queries.ts';
import { retryDelaySeconds, webhookSettings } from './settings.ts';

export interface ExtraDestination {
  url: string;
  /** Sealed (never plaintext in job data); null sends unsigned. */
  secret: Sealed | null;
  /** The audit whose `webhook_secret` `secret` is, bound to that row (absent in jobs queued before row binding). */
  auditId?: string;
}

/** Job data of `webhooks.fanout`, as sent by emitEvent. */
export interface FanoutJob {
  eventId: string;
  extra?: ExtraDestination[];
  /** Jobs queued before one-off deliveries had their own secret: sent unsigned. */
  extraUrls?: string[];
}

/** Job data of `webhooks.deliver`: one row of webhook_deliveries. */
export interface DeliverJob {
  deliveryId: string;
  /** Which attempt this is, from 1 (absent: 1). */
  attempt?: number;
}

/**
 * The delivery id of a one-off URL: derived from the event and the URL, so a re-run fan-out
 * finds the row it made before (webhook deliveries have the (event_id, webhook_id) key instead).
 */
export function extraDeliveryId(eventId: string, url: string): string {
  return `whd_x${createHash('sha256').update(`${eventId}\n${url}`).digest('hex').slice(0, 32)}`;
}

function uniqueExtra(job: FanoutJob): ExtraDestination[] {
  const byUrl = new Map<string, ExtraDestination>();
  for (const url of job.extraUrls ?? []) byUrl.set(url, { url, secret: null });
  for (const e of job.extra ?? []) byUrl.set(e.url, e);
  return [...byUrl.values()];
}

/**
 * Creates one delivery per active webhook subscribed to the event's type (of the workspace
 * and of its agency) plus one per extra URL, and enqueues a deliver job for each, all in one
 * transaction. Rows that already exist are skipped with their jobs, so a retried fan-out
 * never delivers twice. Returns the ids of the deliveries it created.
 */
export async function fanOutEvent(ctx: AppContext, job: FanoutJob): Promise<string[]> {
  return ctx.db.transaction().execute(async (trx) => {
    const event = await findEvent(trx, job.eventId);
    if (!event) return []; // its workspace was deleted since
    const now = ctx.now();
    const webhooks = await subscribedWebhooks(trx, event.workspace_id, event.type);
    const rows = [
      ...webhooks.map((w) => ({
        id: newId('whd'),
        event_id: event.id,
        webhook_id: w.id,
        url: w.url,
        created_at: now,
      })),
      ...uniqueExtra(job).map(({ url, secret, auditId }) => {
        const id = extraDeliveryId(event.id, url);
        const own = secret && rebind(ctx, secret, auditId, id);
        return {
          id,
          event_id: event.id,
          webhook_id: null,
          url,
          secret: own?.ciphertext ?? null,
          secret_key_id: own?.keyId ?? null,
          created_at: now,
        };
      }),
    ];
    if (rows.length === 0) return [];
    const created = await trx
      .insertInto('webhook_deliveries')
      .values(rows)
      .onConflict((oc) => oc.doNothing())
      .returning('id')
      .execute();
    for (const { id } of created) {
      await webhookDeliverJob.enqueue(ctx, { deliveryId: id }, { trx });
    }
    return created.map((r) => r.id);
  });
}

/**
 * Fans an event out to its deliveries; sent by emitEvent in the event's transaction. Always
 * declared, whether or not this process runs workers: every process emits events. A few
 * inserts, so it retries quickly (the database was away, say).
 */
export const webhookFanoutJob = defineJob<FanoutJob>({
  queue: 'webhooks.fanout',
  retry: { retryLimit: 10, retryDelay: 5, retryBackoff: true, retryDelayMax: 600 },
  expireInSeconds: 120,
  worker: { pollingIntervalSeconds: 1 },
  handler: (ctx, job) => fanOutEvent(ctx, job.data),
});

/**
 * The audit's sealed secret, sealed again for the delivery row that keeps it (a sealed value opens
 * only in its own row). A value from a job queued before row binding is copied as it is: the re-seal
 * at start (or `encryption rotate`) binds it to the delivery row.
 */
function rebind(ctx: AppContext, secret: Sealed, auditId: string | undefined, deliveryId: string): Sealed {
  if (auditId === undefined || !isRowBound(secret.ciphertext)) return secret;
  const plaintext = ctx.keyRing.open(secret, sealedAt('audits.webhook_secret', auditId));
  return ctx.keyRing.seal(plaintext, sealedAt('webhook_deliveries.secret', deliveryId));
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
