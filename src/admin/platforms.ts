import type { Kysely } from 'kysely';
import type { DB } from '../infra/db/types.ts';
import { newId } from '../infra/ids.ts';
import { type Platform, PLATFORMS } from '../core/catalog.ts';
import { DomainError, invalidParameter } from '../core/errors.ts';
import { lockWorkspace } from '../workspaces/queries.ts';
import { checkPlatformLimit, connectionsHoldingPlace } from '../platforms/queries.ts';
import { holdsPlace } from '../ingest/connection-state.ts';

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
    throw new DomainError(
      'invalid_platform',
      `unknown platform "${input.platform}" (use ${PLATFORMS.join(', ')})`,
      {
        parameter: 'platform',
      },
    );
  const handle = input.handle.trim();
  if (!handle || handle.length > 100) throw invalidParameter('handle', 'must be 1-100 characters');
  return db.transaction().execute(async (trx) => {
    // Lock the workspace row so two concurrent connects cannot both pass the plan limit.
    const ws = await lockWorkspace(trx, input.workspaceId);
    if (!ws) throw new DomainError('not_found', `workspace ${input.workspaceId} does not exist`);
    const held = (await connectionsHoldingPlace(trx, ws.id)).map((r) => r.platform);
    if (held.includes(input.platform))
      throw new DomainError('platform_already_connected', `${input.platform} is already connected`);
    checkPlatformLimit(ws.plan, held, input.platform);
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
    .where(holdsPlace)
    .executeTakeFirst();
  if (!result.numUpdatedRows)
    throw new DomainError(
      'platform_not_connected',
      `${platform} is not connected to workspace ${workspaceId}`,
    );
}
