import type { Insertable, Transaction } from 'kysely';
import type { AppContext } from '../context.ts';
import type { DB, EventsTable } from '../infra/db/types.ts';
import { newId } from '../infra/ids.ts';
import type { EventType } from '../core/catalog.ts';
import { webhookFanoutJob, type ExtraDestination } from '../webhooks/fanout.ts';

export interface EmitInput {
  workspaceId: string;
  type: EventType;
  data: Record<string, unknown>;
  /** One-off destinations beside the registered webhooks (an audit's `webhook_url`), with their own sealed secret. */
  extra?: ExtraDestination[];
}

/**
 * Records an event and schedules its delivery in the caller's transaction: the event exists
 * (and will be delivered, at least once) exactly when the change that caused it commits.
 */
export async function emitEvent(ctx: AppContext, trx: Transaction<DB>, input: EmitInput): Promise<string> {
  const row = eventRow(ctx, input);
  await trx.insertInto('events').values(row).execute();
  await scheduleDelivery(ctx, trx, row.id, input.extra);
  return row.id;
}

/**
 * The events row of emitEvent, for a caller that inserts it within a statement of its own (a sync
 * writes it in its score write, one round trip fewer); it must then call scheduleDelivery in the
 * same transaction.
 */
export function eventRow(ctx: AppContext, input: EmitInput): Insertable<EventsTable> & { id: string } {
  return {
    id: newId('evt'),
    workspace_id: input.workspaceId,
    type: input.type,
    data: JSON.stringify(input.data),
    created_at: ctx.now(),
  };
}

/** Queues the delivery of a recorded event (see emitEvent), in the transaction that records it. */
export async function scheduleDelivery(
  ctx: AppContext,
  trx: Transaction<DB>,
  eventId: string,
  extra: ExtraDestination[] = [],
): Promise<void> {
  await webhookFanoutJob.enqueue(ctx, { eventId, extra }, { trx });
}
