import type { Kysely } from 'kysely';
import type { DB } from '../infra/db/types.ts';

/** A deleted webhook and its delivery log stay (for support, never through the API) this long. */
export const DELETED_WEBHOOK_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

/** Deletes webhooks deleted over DELETED_WEBHOOK_RETENTION_MS ago; their deliveries go with them (cascade). */
export async function purgeDeletedWebhooks(db: Kysely<DB>, now: Date): Promise<number> {
  const result = await db
    .deleteFrom('webhooks')
    .where('deleted_at', '<', new Date(now.getTime() - DELETED_WEBHOOK_RETENTION_MS))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
