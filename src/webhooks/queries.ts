import { sql, type Kysely, type Transaction } from 'kysely';
import type { Sealed } from '../infra/crypto/keyring.ts';
import type { DB } from '../infra/db/types.ts';
import type { EventType } from '../core/catalog.ts';

type Db = Kysely<DB> | Transaction<DB>;

const WEBHOOK_COLUMNS = ['id', 'url', 'events', 'status', 'disabled_reason', 'created_at'] as const;

/**
 * The workspaces whose webhooks receive an event of `workspaceId`: its own and, for a client
 * workspace, its agency's (the agency's key can act on the client, so it hears about it).
 */
function audienceOf(db: Db, workspaceId: string) {
  return db
    .selectFrom('workspaces')
    .select(sql<string>`unnest(array_remove(ARRAY[id, parent_id], NULL))`.as('id'))
    .where('id', '=', workspaceId);
}

export async function countLiveWebhooks(db: Db, workspaceId: string): Promise<number> {
  const row = await db
    .selectFrom('webhooks')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('workspace_id', '=', workspaceId)
    .where('deleted_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function insertWebhook(
  db: Db,
  row: { id: string; workspaceId: string; url: string; events: EventType[]; secret: Sealed; createdAt: Date },
) {
  return db
    .insertInto('webhooks')
    .values({
      id: row.id,
      workspace_id: row.workspaceId,
      url: row.url,
      events: row.events,
      secret: row.secret.ciphertext,
      secret_key_id: row.secret.keyId,
      created_at: row.createdAt,
    })
    .returning(WEBHOOK_COLUMNS)
    .executeTakeFirstOrThrow();
}

export async function listLiveWebhooks(db: Db, workspaceId: string) {
  return db
    .selectFrom('webhooks')
    .select(WEBHOOK_COLUMNS)
    .where('workspace_id', '=', workspaceId)
    .where('deleted_at', 'is', null)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

export async function findLiveWebhook(db: Db, workspaceId: string, id: string) {
  return db
    .selectFrom('webhooks')
    .select(WEBHOOK_COLUMNS)
    .where('id', '=', id)
    .where('workspace_id', '=', workspaceId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

export async function softDeleteWebhook(db: Db, workspaceId: string, id: string, now: Date) {
  return db
    .updateTable('webhooks')
    .set({ deleted_at: now })
    .where('id', '=', id)
    .where('workspace_id', '=', workspaceId)
    .where('deleted_at', 'is', null)
    .returning('id')
    .executeTakeFirst();
}

export async function listDeliveries(db: Db, webhookId: string, limit: number, offset: number) {
  const [rows, total] = await Promise.all([
    db
      .selectFrom('webhook_deliveries as d')
      .innerJoin('events as e', 'e.id', 'd.event_id')
      .select([
        'd.id',
        'd.event_id',
        'e.type as event_type',
        'd.status',
        'd.attempts',
        'd.last_status_code',
        'd.last_error',
        'd.created_at',
        'd.last_attempt_at',
        'd.delivered_at',
      ])
      .where('d.webhook_id', '=', webhookId)
      .orderBy('d.created_at', 'desc')
      .orderBy('d.id', 'desc')
      .limit(limit)
      .offset(offset)
      .execute(),
    db
      .selectFrom('webhook_deliveries')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('webhook_id', '=', webhookId)
      .executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(total.n) };
}

export async function findEvent(db: Db, eventId: string) {
  return db.selectFrom('events').selectAll().where('id', '=', eventId).executeTakeFirst();
}

/** Active webhooks that subscribed to `type` and hear about `workspaceId`. */
export async function subscribedWebhooks(db: Db, workspaceId: string, type: EventType) {
  return db
    .selectFrom('webhooks')
    .select(['id', 'url'])
    .where('workspace_id', 'in', audienceOf(db, workspaceId))
    .where('status', '=', 'active')
    .where('deleted_at', 'is', null)
    .where(sql<boolean>`events @> ARRAY[${type}]::text[]`)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** A delivery with what an attempt needs: its event, and its webhook's state and secret. */
export async function loadDelivery(db: Db, deliveryId: string) {
  return db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('events as e', 'e.id', 'd.event_id')
    .leftJoin('webhooks as w', 'w.id', 'd.webhook_id')
    .select([
      'd.id',
      'd.url',
      'd.status',
      'd.attempts',
      'd.webhook_id',
      'e.id as event_id',
      'e.type as event_type',
      'e.data as event_data',
      'e.created_at as event_created_at',
      'e.workspace_id',
      'w.secret as webhook_secret',
      'w.secret_key_id as webhook_secret_key_id',
      'd.secret as own_secret',
      'd.secret_key_id as own_secret_key_id',
      'w.status as webhook_status',
      'w.deleted_at as webhook_deleted_at',
    ])
    .where('d.id', '=', deliveryId)
    .executeTakeFirst();
}

export async function recordAttempt(
  db: Db,
  deliveryId: string,
  attempt: {
    at: Date;
    statusCode: number | null;
    error: string | null;
    outcome: 'succeeded' | 'failed' | 'pending';
    /** False when no request was made (the webhook was gone), so the attempt count stays. */
    attempted: boolean;
  },
): Promise<boolean> {
  const result = await db
    .updateTable('webhook_deliveries')
    .set((eb) => ({
      attempts: attempt.attempted ? eb('attempts', '+', 1) : eb.ref('attempts'),
      last_status_code: attempt.statusCode,
      last_error: attempt.error,
      last_attempt_at: attempt.attempted ? attempt.at : eb.ref('last_attempt_at'),
      status: attempt.outcome,
      delivered_at: attempt.outcome === 'succeeded' ? attempt.at : null,
    }))
    .where('id', '=', deliveryId)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function disableWebhook(db: Db, webhookId: string, reason: string): Promise<boolean> {
  const result = await db
    .updateTable('webhooks')
    .set({ status: 'disabled', disabled_reason: reason })
    .where('id', '=', webhookId)
    .where('status', '=', 'active')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function succeededSince(db: Db, webhookId: string, since: Date): Promise<boolean> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('webhook_id', '=', webhookId)
    .where('delivered_at', '>=', since)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}
