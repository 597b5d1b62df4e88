import { connectPlatform } from '../../src/admin/platforms.ts';
import { sealTokens } from '../../src/platforms/vault.ts';
import type { Platform } from '../../src/core/catalog.ts';
import type { TestService } from './service.ts';

/**
 * A connection as the OAuth callback leaves it: handle plus sealed tokens, connected two days before
 * `now` and synced the day before (the next sync re-reads from two days before its last one).
 */
export async function oauthConnection(
  t: TestService,
  now: Date,
  workspaceId: string,
  platform: Platform,
  options: { expiresAt?: Date; refresh?: boolean } = {},
): Promise<string> {
  const id = await connectPlatform(t.db, {
    workspaceId,
    platform,
    handle: 'acme',
    connectedAt: new Date(now.getTime() - 2 * 86_400_000),
    lastSyncAt: new Date(now.getTime() - 86_400_000 - 3600_000),
  });
  await t.db
    .updateTable('platform_connections')
    .set(
      sealTokens(
        t.ctx.keyRing,
        {
          accessToken: `secret-access-${id}`,
          refreshToken: options.refresh ? `secret-refresh-${id}` : null,
          expiresAt: options.expiresAt ?? new Date(now.getTime() + 86_400_000),
          scopes: null,
        },
        { table: 'platform_connections', row: id },
      ),
    )
    .where('id', '=', id)
    .execute();
  return id;
}
