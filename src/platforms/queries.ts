import { sql, type Kysely } from 'kysely';
import type { DB } from '../infra/db/types.ts';
import { type Platform, PLATFORMS } from '../core/catalog.ts';
import { lastActiveDaySql } from '../ingest/sync.ts';

/** The platforms a workspace has connected now, in the canonical platform order. */
export async function connectedPlatforms(db: Kysely<DB>, workspaceId: string): Promise<Platform[]> {
  const live = await db
    .selectFrom('platform_connections')
    .select('platform')
    .where('workspace_id', '=', workspaceId)
    .where('status', '=', 'connected')
    .execute();
  return PLATFORMS.filter((p) => live.some((r) => r.platform === p));
}

/**
 * Every connection of a workspace as GET /v1/platforms shows it (live and disconnected), with its
 * health columns and the latest day its platform reported activity for.
 */
export async function listConnections(db: Kysely<DB>, workspaceId: string, platform?: Platform) {
  let q = db
    .selectFrom('platform_connections')
    .select([
      'platform',
      'handle',
      'status',
      'followers',
      'last_sync_at',
      'connected_at',
      'access_token',
      'refresh_token',
      'token_expires_at',
      'next_sync_at',
      'sync_started_at',
      'last_error_class',
      'last_error_at',
      'disconnected_at',
      'health_reason',
      'health_scope',
      'sync_failures',
      'granted_scopes',
      lastActiveDaySql(
        sql.ref<string>('platform_connections.workspace_id'),
        sql.ref<string>('platform_connections.platform'),
      ).as('latest_data_day'),
    ])
    .where('workspace_id', '=', workspaceId);
  if (platform) q = q.where('platform', '=', platform);
  return q.execute();
}
export type ListedConnection = Awaited<ReturnType<typeof listConnections>>[number];
