import { createHash } from 'node:crypto';
import type { AppContext } from '../context.ts';
import { newId } from '../infra/ids.ts';
import { findEvent, subscribedWebhooks } from './queries.ts';
import { webhookSettings } from './settings.ts';

export const WEBHOOK_DELIVER_QUEUE = 'webhooks.deliver';

/** Job data of `webhooks.fanout`, as sent by emitEvent. */
export interface FanoutJob {
  eventId: string;
  extraUrls?: string[];
}

export interface DeliverJob {
  deliveryId: string;
}

/**
 * The delivery id of a one-off URL: derived from the event and the URL, so a re-run fan-out
 * finds the row it made before (webhook deliveries have the (event_id, webhook_id) key instead).
 */
export function extraDeliveryId(eventId: string, url: string): string {
  return `whd_x${createHash('sha256').update(`${eventId}\n${url}`).digest('hex').slice(0, 32)}`;
}

/**
 * Creates one delivery per active webhook subscribed to the event's type (of the workspace
 * and of its agency) plus one per extra URL, and enqueues a deliver job for each, all in one
 * transaction. Rows that already exist are skipped with their jobs, so a retried fan-out
 * never delivers twice. Returns the ids of the deliveries it created.
 */
export async function fanOutEvent(ctx: AppContext, job: FanoutJob): Promise<string[]> {
  const { retry } = webhookSettings(ctx);
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
      ...[...new Set(job.extraUrls ?? [])].map((url) => ({
        id: extraDeliveryId(event.id, url),
        event_id: event.id,
        webhook_id: null,
        url,
        created_at: now,
      })),
    ];
    if (rows.length === 0) return [];
    const created = await trx
      .insertInto('webhook_deliveries')
      .values(rows)
      .onConflict((oc) => oc.doNothing())
      .returning('id')
      .execute();
    for (const { id } of created) {
      await ctx.jobs.sendInTransaction(trx, WEBHOOK_DELIVER_QUEUE, { deliveryId: id } satisfies DeliverJob, {
        ...retry,
        expireInSeconds: 60,
      });
    }
    return created.map((r) => r.id);
  });
}
