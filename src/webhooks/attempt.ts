import type { Transaction } from 'kysely';
import type { AppContext } from '../context.ts';
import type { DB } from '../infra/db/types.ts';
import { KeyRingError } from '../infra/crypto/keyring.ts';
import { sealedAt } from '../infra/crypto/sealed-columns.ts';
import { deliverOnce, type DeliveryOutcome } from './deliver-once.ts';
import * as q from './queries.ts';
import { DISABLE_AFTER_FAILING_MS, webhookSettings } from './settings.ts';

export type AttemptResult = 'succeeded' | 'failed' | 'retry' | 'skipped';

/** The payload every receiver gets: the event as stored. */
export function eventPayload(event: { id: string; type: string; created_at: Date; data: unknown }): string {
  return JSON.stringify({
    id: event.id,
    type: event.type,
    created_at: event.created_at.toISOString(),
    data: event.data,
  });
}

/**
 * Attempt `attempt` (1-based) of one delivery, with its bookkeeping. `lastAttempt` is true when
 * the schedule has no attempt left. 2xx: succeeded. 410 Gone: failed at once and the webhook is
 * disabled. Any other failure: 'retry', recorded in the same transaction as `scheduleNext` (the
 * next attempt's job), or on the last attempt 'failed', and the webhook is disabled when none of
 * its deliveries succeeded in the last 24 hours. A delivery of a deleted or disabled webhook is
 * dropped without a request. An attempt already recorded (its process died after recording it,
 * the next one being scheduled with it) is skipped, so a crash never doubles the schedule.
 */
export async function attemptDelivery(
  ctx: AppContext,
  deliveryId: string,
  options: {
    attempt: number;
    lastAttempt: boolean;
    scheduleNext: (trx: Transaction<DB>) => Promise<unknown>;
  },
): Promise<{ result: AttemptResult; outcome?: DeliveryOutcome }> {
  const delivery = await q.loadDelivery(ctx.db, deliveryId);
  if (!delivery || delivery.status !== 'pending') return { result: 'skipped' };
  if (delivery.attempts >= options.attempt) return { result: 'skipped' };

  if (
    delivery.webhook_id !== null &&
    (delivery.webhook_deleted_at !== null || delivery.webhook_status !== 'active')
  ) {
    const why = delivery.webhook_deleted_at !== null ? 'webhook deleted' : 'webhook disabled';
    await q.recordAttempt(ctx.db, deliveryId, {
      at: ctx.now(),
      statusCode: null,
      error: `not sent: ${why}`,
      outcome: 'failed',
      attempted: false,
    });
    return { result: 'skipped' };
  }

  const settings = webhookSettings(ctx);
  // A webhook's delivery is signed with its own secret; a one-off (`webhook_url`) delivery with the
  // secret its audit returned to the caller, never with another principal's registered secrets.
  const sealed =
    delivery.webhook_id !== null
      ? {
          value: delivery.webhook_secret,
          keyId: delivery.webhook_secret_key_id,
          at: sealedAt('webhooks.secret', delivery.webhook_id),
        }
      : {
          value: delivery.own_secret,
          keyId: delivery.own_secret_key_id,
          at: sealedAt('webhook_deliveries.secret', deliveryId),
        };
  let secrets: string[];
  try {
    secrets =
      sealed.value === null
        ? []
        : [
            sealed.keyId === null
              ? sealed.value // stored before encryption; sealed at the next start
              : ctx.keyRing.open({ ciphertext: sealed.value, keyId: sealed.keyId }, sealed.at),
          ];
  } catch (error) {
    if (!(error instanceof KeyRingError)) throw error;
    // The stored secret does not open in its own row (moved there from another, or altered; the key
    // ring logged it): nothing is sent, and a webhook that cannot sign is disabled until re-created.
    const reason =
      'not sent: the signing secret on file does not open for this webhook; re-create the webhook';
    await ctx.db.transaction().execute(async (trx) => {
      await q.recordAttempt(trx, deliveryId, {
        at: ctx.now(),
        statusCode: null,
        error: reason,
        outcome: 'failed',
        attempted: false,
      });
      if (delivery.webhook_id !== null) {
        await q.disableWebhook(
          trx,
          delivery.webhook_id,
          'Its signing secret on file does not open for this webhook; delete it and create it again.',
        );
      }
    });
    return { result: 'failed' };
  }
  const outcome = await deliverOnce(
    {
      url: delivery.url,
      msgId: delivery.event_id,
      payload: eventPayload({
        id: delivery.event_id,
        type: delivery.event_type,
        created_at: delivery.event_created_at,
        data: delivery.event_data,
      }),
      secrets,
      timestamp: ctx.now(),
    },
    {
      allowLoopback: ctx.config.allowLoopbackFetch,
      resolve: settings.resolve,
      ca: settings.ca,
      timeoutMs: settings.attemptTimeoutMs,
    },
  );

  const at = ctx.now();
  const final = outcome.ok || outcome.permanent || options.lastAttempt;
  const status = outcome.ok ? 'succeeded' : final ? 'failed' : 'pending';
  const attempt = {
    at,
    statusCode: outcome.statusCode,
    error: outcome.error,
    outcome: status,
    attempted: true,
  } as const;
  if (!final) {
    await ctx.db.transaction().execute(async (trx) => {
      if (await q.recordAttempt(trx, deliveryId, attempt)) await options.scheduleNext(trx);
    });
    return { result: 'retry', outcome };
  }
  if (outcome.ok || delivery.webhook_id === null) {
    await q.recordAttempt(ctx.db, deliveryId, attempt);
    return { result: outcome.ok ? 'succeeded' : 'failed', outcome };
  }

  // The failed delivery and the webhook's disabling commit together: nobody sees one without the other.
  const webhookId = delivery.webhook_id;
  await ctx.db.transaction().execute(async (trx) => {
    await q.recordAttempt(trx, deliveryId, attempt);
    if (outcome.statusCode === 410) {
      await q.disableWebhook(trx, webhookId, `The endpoint answered 410 Gone on ${at.toISOString()}.`);
    } else if (!(await q.succeededSince(trx, webhookId, new Date(at.getTime() - DISABLE_AFTER_FAILING_MS)))) {
      await q.disableWebhook(
        trx,
        webhookId,
        `Disabled on ${at.toISOString()}: a delivery failed all its attempts (last error: ${outcome.error}) ` +
          'and no delivery succeeded in the previous 24 hours.',
      );
    }
  });
  return { result: 'failed', outcome };
}
