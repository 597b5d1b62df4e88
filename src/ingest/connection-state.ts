import type { ExpressionBuilder } from 'kysely';
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
