import type { Transaction } from 'kysely';
import type { AppContext } from '../context.ts';
import type { DB } from '../infra/db/types.ts';
import { newId } from '../infra/ids.ts';
import type { EventType } from '../core/catalog.ts';
import type { EventData } from './events.ts';
import { webhookFanoutJob, type ExtraDestination } from './jobs.ts';

export interface EmitInput<T extends EventType> {
  workspaceId: string;
  type: T;
  /** The event's data, typed by its documented schema (events.ts). */
  data: EventData<T>;
  /** One-off destinations beside the registered webhooks (an audit's `webhook_url`), with their own sealed secret. */
  extra?: ExtraDestination[];
}

/**
 * Records an event and schedules its delivery in the caller's transaction: the event exists
 * (and will be delivered, at least once) exactly when the change that caused it commits.
 */
export async function emitEvent<T extends EventType>(
  ctx: AppContext,
  trx: Transaction<DB>,
  input: EmitInput<T>,
): Promise<string> {
  const id = newId('evt');
  await trx
    .insertInto('events')
    .values({
      id,
      workspace_id: input.workspaceId,
      type: input.type,
      data: JSON.stringify(input.data),
      created_at: ctx.now(),
    })
    .execute();
  await webhookFanoutJob.enqueue(ctx, { eventId: id, extra: input.extra ?? [] }, { trx });
  return id;
}
