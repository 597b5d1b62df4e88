import type { AppContext } from '../context.ts';
import { DomainError } from '../core/errors.ts';
import type { Platform } from '../core/catalog.ts';
import { enqueueManualSync } from './sync-worker.ts';
import { holdsPlace } from '../ingest/connection-state.ts';

/**
 * Queues an on-demand sync of the workspace's connection to `platform`, outside its schedule, and
 * stamps it: at most one per connection per SYNC_ON_DEMAND_COOLDOWN_SECONDS. The connection row is
 * locked, so two concurrent requests cannot both pass the cooldown; the job is enqueued in the
 * transaction that stamps it. `workspaceId` is already resolved for the caller.
 */
export async function requestSync(
  ctx: AppContext,
  workspaceId: string,
  platform: Platform,
  now: Date,
): Promise<void> {
  const cooldown = ctx.config.sync.onDemandCooldownSeconds;
  await ctx.db.transaction().execute(async (trx) => {
    const c = await trx
      .selectFrom('platform_connections')
      .select(['id', 'platform', 'status', 'access_token', 'manual_sync_at'])
      .where('workspace_id', '=', workspaceId)
      .where('platform', '=', platform)
      .where(holdsPlace)
      .forUpdate()
      .executeTakeFirst();
    if (!c) {
      throw new DomainError(
        'platform_not_connected',
        `${platform} is not connected to workspace ${workspaceId}: connect it with POST /v1/platforms/${platform}/connect.`,
      );
    }
    if (c.status === 'reauth_required') {
      throw new DomainError(
        'reauthorization_required',
        `The ${platform} connection needs re-authorisation: reconnect with POST /v1/platforms/${platform}/connect.`,
      );
    }
    if (c.access_token === null) {
      throw new DomainError(
        'not_connected_through_oauth',
        `The ${platform} connection has no authorisation to sync with: reconnect with POST /v1/platforms/${platform}/connect.`,
      );
    }
    const wait = c.manual_sync_at
      ? Math.ceil((c.manual_sync_at.getTime() + cooldown * 1000 - now.getTime()) / 1000)
      : 0;
    if (wait > 0) {
      throw new DomainError(
        'sync_rate_limited',
        `${platform} was synced on demand less than ${cooldown} s ago; retry in ${wait} s.`,
        { retryAfterSeconds: wait },
      );
    }
    await trx
      .updateTable('platform_connections')
      .set({ manual_sync_at: now })
      .where('id', '=', c.id)
      .execute();
    await enqueueManualSync(ctx, trx, c);
  });
}
