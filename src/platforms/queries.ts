import type { Kysely } from 'kysely';
import type { DB } from '../infra/db/types.ts';
import { type Platform, PLATFORMS } from '../core/catalog.ts';

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
