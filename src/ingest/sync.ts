import type { AppContext } from '../context.ts';
import type { Platform } from '../infra/db/types.ts';
import { DAILY_WINDOW_DAYS, recomputeDailyScores } from '../scoring/daily-scores.ts';
import { addDays, daysBetween, isCalendarDay, utcDay } from '../scoring/days.ts';
import { ApiClient, CONNECTORS, ConnectorError } from './connectors/index.ts';
import { snapshotRow, upsertSnapshots } from './store.ts';

export interface SyncOptions {
  /**
   * Base URL overrides: `instagram` for every API of a platform, `youtube.analytics` for one of
   * them. Default: the platforms' public endpoints.
   */
  baseUrls?: Record<string, string>;
  /** Access token per platform, sent the way each platform expects. */
  tokens?: Partial<Record<Platform, string>>;
  /** First and last day to fetch (YYYY-MM-DD). Default: from 2 days before the last sync (or 89 days ago) to today. */
  since?: string;
  until?: string;
  fetch?: typeof fetch;
  timeoutMs?: number;
  maxBytes?: number;
}

export interface SyncResult {
  platform: Platform;
  since: string;
  until: string;
  snapshots: number;
  followers: number;
}

/** Days a first sync reaches back: the default audit window. */
export const FIRST_SYNC_DAYS = 90;
/** Days re-read before the last sync: platforms revise recent insights for a day or two. */
export const RESYNC_OVERLAP_DAYS = 2;
export const MAX_SYNC_DAYS = 365;

export class SyncError extends Error {}

function rangeFor(
  options: SyncOptions,
  today: string,
  lastSync: Date | null,
): { since: string; until: string } {
  const until = options.until ?? today;
  const since =
    options.since ??
    (lastSync ? addDays(utcDay(lastSync), -RESYNC_OVERLAP_DAYS) : addDays(until, -(FIRST_SYNC_DAYS - 1)));
  for (const [name, day] of [
    ['since', since],
    ['until', until],
  ] as const) {
    if (!isCalendarDay(day)) throw new SyncError(`${name} must be a YYYY-MM-DD date, got "${day}"`);
  }
  if (until > today) throw new SyncError(`until (${until}) is in the future`);
  if (since > until) throw new SyncError(`since (${since}) is after until (${until})`);
  if (daysBetween(since, until) >= MAX_SYNC_DAYS)
    throw new SyncError(`a sync covers at most ${MAX_SYNC_DAYS} days`);
  return { since, until };
}

/**
 * Fetches one connected platform's metrics through its connector and, in one transaction,
 * upserts the day snapshots, updates the connection's followers and last_sync_at, and
 * recomputes the stored daily scores those days feed into.
 */
export async function syncPlatform(
  ctx: AppContext,
  workspaceId: string,
  platform: Platform,
  options: SyncOptions = {},
): Promise<SyncResult> {
  const connection = await ctx.db
    .selectFrom('platform_connections')
    .select(['id', 'handle', 'last_sync_at'])
    .where('workspace_id', '=', workspaceId)
    .where('platform', '=', platform)
    .where('status', '=', 'connected')
    .executeTakeFirst();
  if (!connection) throw new SyncError(`${platform} is not connected to workspace ${workspaceId}`);
  const now = ctx.now();
  const today = utcDay(now);
  const range = rangeFor(options, today, connection.last_sync_at);

  const connector = CONNECTORS[platform];
  const baseUrls: Record<string, string> = {};
  for (const [api, url] of Object.entries(connector.defaultBaseUrls)) {
    baseUrls[api] = options.baseUrls?.[`${platform}.${api}`] ?? options.baseUrls?.[platform] ?? url;
  }
  const token = options.tokens?.[platform];
  const client = new ApiClient({
    platform,
    baseUrls,
    headers: token ? connector.authHeaders(token) : {},
    timeoutMs: options.timeoutMs ?? 15_000,
    maxBytes: options.maxBytes ?? 10 * 1024 * 1024,
    fetch: options.fetch ?? fetch,
  });
  const result = await connector.fetchSnapshots(
    client,
    { handle: connection.handle.replace(/^@/, '') },
    range,
  );

  const rows = result.snapshots.map((s) => snapshotRow(workspaceId, s, 'connector'));
  await ctx.db.transaction().execute(async (trx) => {
    await upsertSnapshots(trx, rows);
    await trx
      .updateTable('platform_connections')
      .set({ followers: result.followers, last_sync_at: now })
      .where('id', '=', connection.id)
      .where('status', '=', 'connected')
      .execute();
    const lastAffected = addDays(range.until, DAILY_WINDOW_DAYS - 1);
    await recomputeDailyScores(trx, workspaceId, range.since, lastAffected < today ? lastAffected : today);
  });
  return { platform, ...range, snapshots: rows.length, followers: result.followers };
}

/** Syncs every connected platform of a workspace; one platform's failure does not stop the others. */
export async function syncWorkspace(
  ctx: AppContext,
  workspaceId: string,
  options: SyncOptions = {},
): Promise<Array<SyncResult | { platform: Platform; error: string }>> {
  const live = await ctx.db
    .selectFrom('platform_connections')
    .select('platform')
    .where('workspace_id', '=', workspaceId)
    .where('status', '=', 'connected')
    .execute();
  const out: Array<SyncResult | { platform: Platform; error: string }> = [];
  for (const { platform } of live) {
    try {
      out.push(await syncPlatform(ctx, workspaceId, platform, options));
    } catch (error) {
      if (!(error instanceof ConnectorError) && !(error instanceof SyncError)) throw error;
      out.push({ platform, error: error.message });
    }
  }
  return out;
}
