import type { Kysely } from 'kysely';
import type { DB } from '../infra/db/types.ts';

/** A connect attempt's state row is kept this long after it expired (its outcome stays readable meanwhile). */
export const OAUTH_STATE_RETENTION_MS = 24 * 60 * 60 * 1000;

/** Deletes OAuth states (each with a sealed PKCE verifier) that expired over OAUTH_STATE_RETENTION_MS ago. */
export async function purgeOAuthStates(db: Kysely<DB>, now: Date): Promise<number> {
  const result = await db
    .deleteFrom('oauth_states')
    .where('expires_at', '<', new Date(now.getTime() - OAUTH_STATE_RETENTION_MS))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
