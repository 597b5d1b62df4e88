import type { ExpressionBuilder, Kysely, Transaction } from 'kysely';
import type { Platform } from '../core/catalog.ts';
import type { DB } from '../infra/db/types.ts';

/**
 * A connection is in one of three states (platform_connections.status). Two predicates name the
 * sets the rest of the service asks about; nothing else spells them out.
 *
 * isConnected: usable now (its tokens are valid): it is synced, scored and audited.
 */
export function isConnected(eb: ExpressionBuilder<DB, 'platform_connections'>) {
  return eb('platform_connections.status', '=', 'connected');
}

/**
 * holdsPlace: the workspace's current connection of its platform, connected or waiting for
 * re-authorisation (not disconnected). At most one per workspace and platform; each holds one of
 * the plan's platform places (checkPlatformLimit) and is counted as `platforms_connected`.
 */
export function holdsPlace(eb: ExpressionBuilder<DB, 'platform_connections'>) {
  return eb('platform_connections.status', '<>', 'disconnected');
}

/**
 * The workspace's connections that need the brand (reauth_required: a refused token, a missing
 * permission, an account gone), with the reason recorded, in platform order.
 */
export async function connectionsNeedingBrand(
  db: Kysely<DB> | Transaction<DB>,
  workspaceId: string,
): Promise<Array<{ platform: Platform; handle: string; reason: string | null }>> {
  return db
    .selectFrom('platform_connections')
    .select(['platform', 'handle', 'health_reason as reason'])
    .where('workspace_id', '=', workspaceId)
    .where('platform_connections.status', '=', 'reauth_required')
    .orderBy('platform')
    .execute();
}
