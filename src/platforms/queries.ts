import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB } from '../infra/db/types.ts';
import { PLAN_LIMITS, type Plan, type Platform, PLATFORMS } from '../core/catalog.ts';
import { DomainError } from '../core/errors.ts';
import { holdsPlace, isConnected } from '../ingest/connection-state.ts';
import { lastActiveDaySql } from '../ingest/sync.ts';
import type { TimelineSource } from '../annotations/timeline-types.ts';
import { serviceEntry } from '../annotations/timeline.ts';

type Db = Kysely<DB> | Transaction<DB>;

/** The platforms a workspace has connected now (isConnected), in the canonical platform order. */
export async function connectedPlatforms(db: Db, workspaceId: string): Promise<Platform[]> {
  const live = await db
    .selectFrom('platform_connections')
    .select('platform')
    .where('workspace_id', '=', workspaceId)
    .where(isConnected)
    .execute();
  return PLATFORMS.filter((p) => live.some((r) => r.platform === p));
}

/** The workspace's connections that hold a place (holdsPlace), with their status. */
export async function connectionsHoldingPlace(db: Db, workspaceId: string) {
  return db
    .selectFrom('platform_connections')
    .select(['id', 'platform', 'status'])
    .where('workspace_id', '=', workspaceId)
    .where(holdsPlace)
    .execute();
}

/**
 * The plan's platform limit: the connections holding a place count against platform_limit, and
 * connecting a platform that already holds one takes no new place. Throws platform_limit_reached.
 */
export function checkPlatformLimit(plan: Plan, held: readonly Platform[], platform: Platform): void {
  const limit = PLAN_LIMITS[plan].platformLimit;
  if (limit !== null && !held.includes(platform) && held.length >= limit) {
    throw new DomainError(
      'platform_limit_reached',
      `The ${plan} plan allows ${limit} connected platform${limit === 1 ? '' : 's'}; disconnect one or upgrade.`,
    );
  }
}

/**
 * The workspace's connections made or ended in [from, to): each connect is its own row (a reconnect
 * after a disconnect is a new one), so connected_at and disconnected_at are the timeline's events.
 */
export async function connectionChangesBetween(db: Db, workspaceId: string, from: Date, to: Date) {
  return db
    .selectFrom('platform_connections')
    .select(['id', 'platform', 'handle', 'connected_at', 'disconnected_at'])
    .where('workspace_id', '=', workspaceId)
    .where((eb) =>
      eb.or([
        eb.and([eb('connected_at', '>=', from), eb('connected_at', '<', to)]),
        eb.and([eb('disconnected_at', '>=', from), eb('disconnected_at', '<', to)]),
      ]),
    )
    .orderBy('connected_at')
    .orderBy('id')
    .execute();
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

/** The platforms domain's timeline entries: each connection made and ended in the range. */
export const connectionsOnTimeline: TimelineSource = async (db, workspaceId, range) =>
  (await connectionChangesBetween(db, workspaceId, range.from, range.to)).flatMap((c) => {
    const what = { category: 'other' as const, ref: null };
    return [
      serviceEntry(range, c.connected_at, {
        text: `${c.platform} connected (${c.handle})`,
        kind: 'platform_connected',
        ...what,
      }),
      c.disconnected_at
        ? serviceEntry(range, c.disconnected_at, {
            text: `${c.platform} disconnected (${c.handle})`,
            kind: 'platform_disconnected',
            ...what,
          })
        : null,
    ].filter((e) => e !== null);
  });

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
