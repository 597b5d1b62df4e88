import type { Kysely } from 'kysely';
import type { DB } from '../infra/db/types.ts';
import { newId } from '../infra/ids.ts';
import { AdminError } from './workspaces.ts';
import { PLAN_LIMITS, type Platform, PLATFORMS } from '../core/catalog.ts';

export async function connectPlatform(
  db: Kysely<DB>,
  input: {
    workspaceId: string;
    platform: Platform;
    handle: string;
    followers?: number;
    connectedAt?: Date;
    lastSyncAt?: Date;
  },
): Promise<string> {
  if (!PLATFORMS.includes(input.platform))
    throw new AdminError(`unknown platform "${input.platform}" (use ${PLATFORMS.join(', ')})`);
  const handle = input.handle.trim();
  if (!handle || handle.length > 100) throw new AdminError('handle must be 1-100 characters');
  return db.transaction().execute(async (trx) => {
    // Lock the workspace row so two concurrent connects cannot both pass the plan limit.
    const ws = await trx
      .selectFrom('workspaces')
      .select(['id', 'plan'])
      .where('id', '=', input.workspaceId)
      .forUpdate()
      .executeTakeFirst();
    if (!ws) throw new AdminError(`workspace ${input.workspaceId} does not exist`);
    // Every connection not disconnected holds its place (one waiting for re-authorisation too).
    const live = (
      await trx
        .selectFrom('platform_connections')
        .select('platform')
        .where('workspace_id', '=', ws.id)
        .where('status', '<>', 'disconnected')
        .execute()
    ).map((r) => r.platform);
    if (live.includes(input.platform)) throw new AdminError(`${input.platform} is already connected`);
    const limit = PLAN_LIMITS[ws.plan].platformLimit;
    if (limit !== null && live.length >= limit) {
      throw new AdminError(`the ${ws.plan} plan allows ${limit} connected platform(s)`);
    }
    const id = newId('pc');
    await trx
      .insertInto('platform_connections')
      .values({
        id,
        workspace_id: ws.id,
        platform: input.platform,
        handle,
        followers: input.followers ?? 0,
        ...(input.connectedAt ? { connected_at: input.connectedAt } : {}),
        last_sync_at: input.lastSyncAt ?? null,
      })
      .execute();
    return id;
  });
}

export async function disconnectPlatform(
  db: Kysely<DB>,
  workspaceId: string,
  platform: Platform,
  at: Date,
): Promise<void> {
  const result = await db
    .updateTable('platform_connections')
    .set({
      status: 'disconnected',
      disconnected_at: at,
      reauth_at: null,
      access_token: null,
      access_token_key_id: null,
      refresh_token: null,
      refresh_token_key_id: null,
      token_expires_at: null,
    })
    .where('workspace_id', '=', workspaceId)
    .where('platform', '=', platform)
    .where('status', '<>', 'disconnected')
    .executeTakeFirst();
  if (!result.numUpdatedRows)
    throw new AdminError(`${platform} is not connected to workspace ${workspaceId}`);
}
