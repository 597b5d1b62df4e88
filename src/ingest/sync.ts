import type { Kysely } from 'kysely';
import type { AppContext } from '../context.ts';
import { emitEvent } from '../events/emit.ts';
import type { DB } from '../infra/db/types.ts';
import { round1, signedDelta } from '../scoring/engine/index.ts';
import { CURRENT_FORMULA, DAILY_WINDOW_DAYS, recomputeDailyScores } from '../scoring/daily-scores.ts';
import { isScoreChange, type ComparableScore } from '../scoring/score-change.ts';
import { ApiClient, CONNECTORS, ConnectorError } from './connectors/index.ts';
import { snapshotRow, upsertSnapshots } from './store.ts';
import { addDays, daysBetween, isCalendarDay, utcDay } from '../core/days.ts';
import type { Platform } from '../core/catalog.ts';

export interface SyncOptions {
  /**
   * Base URL overrides: `instagram` for every API of a platform, `youtube.analytics` for one of
   * them. Default: the platforms' public endpoints.
   */
  baseUrls?: Record<string, string>;
  /** Access token per platform, sent the way each platform expects. */
  tokens?: Partial<Record<Platform, string>>;
  /**
   * First and last day to fetch (YYYY-MM-DD). Default: from 2 days before the earlier of the last sync and
   * the last day held (at most 89 days back; 89 days on a first sync) to today.
   */
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
  /** Whether this sync fired score.changed. */
  scoreChanged: boolean;
}

/** Days a first sync reaches back: the default audit window. */
export const FIRST_SYNC_DAYS = 90;
/** Days re-read before the last sync: platforms revise recent insights for a day or two. */
export const RESYNC_OVERLAP_DAYS = 2;
export const MAX_SYNC_DAYS = 365;
/** A connection's sync state with no sync running and no error streak: after a success or a re-authorisation. */
export const SYNC_STATE_CLEAN = {
  sync_started_at: null,
  last_error_class: null,
  last_error_at: null,
  consecutive_failures: 0,
} as const;

export class SyncError extends Error {}

/** Counts a platform reports only for days it has data for (the audience is carried to every day). */
const ACTIVITY_COLUMNS = ['posts', 'impressions', 'likes', 'comments', 'shares', 'mentions'] as const;

function rangeFor(
  options: SyncOptions,
  today: string,
  lastSync: Date | null,
  latestHeld: string | null,
): { since: string; until: string } {
  const until = options.until ?? today;
  let since = options.since;
  if (since === undefined) {
    if (!lastSync) since = addDays(until, -(FIRST_SYNC_DAYS - 1));
    else {
      // From the earlier of the last sync and the last day held (a platform whose data lags, like the
      // simulator's clock, still gets its new days), never more than the first-sync window back.
      const from = latestHeld && latestHeld < utcDay(lastSync) ? latestHeld : utcDay(lastSync);
      const floor = addDays(until, -(FIRST_SYNC_DAYS - 1));
      since = addDays(from, -RESYNC_OVERLAP_DAYS);
      if (since < floor) since = floor;
    }
  }
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

/** A live connection as a sync reads it. */
export interface SyncTarget {
  id: string;
  workspace_id: string;
  platform: Platform;
  handle: string;
  last_sync_at: Date | null;
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
    .select(['id', 'workspace_id', 'platform', 'handle', 'last_sync_at'])
    .where('workspace_id', '=', workspaceId)
    .where('platform', '=', platform)
    .where('status', '=', 'connected')
    .executeTakeFirst();
  if (!connection) throw new SyncError(`${platform} is not connected to workspace ${workspaceId}`);
  return syncConnection(ctx, connection, options);
}

/**
 * The workspace's latest stored daily score of the current formula on or before `day` (what
 * /v1/score/history ends with), with its stored grade and 90% interval.
 */
async function latestDailyScore(
  db: Kysely<DB>,
  workspaceId: string,
  day: string,
): Promise<(ComparableScore & { day: string }) | null> {
  const row = await db
    .selectFrom('daily_scores')
    .select(['score', 'day', 'grade', 'score_low', 'score_high'])
    .where('workspace_id', '=', workspaceId)
    .where('formula_version', '=', CURRENT_FORMULA)
    .where('day', '<=', day)
    .orderBy('day', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (!row) return null;
  return {
    score: row.score,
    grade: row.grade ?? null,
    formulaVersion: CURRENT_FORMULA,
    day: String(row.day),
    interval:
      row.score_low !== null &&
      row.score_high !== null &&
      row.score_low !== undefined &&
      row.score_high !== undefined
        ? { low: row.score_low, high: row.score_high }
        : null,
  };
}

/**
 * Syncs one live connection (see syncPlatform). In the same transaction, under a lock on the
 * workspace row (two platforms of one workspace syncing at once compare against each other's
 * result, not the same stale one), it clears the connection's error state and fires
 * `score.changed` when the workspace's latest daily score moved beyond its 90% interval (isScoreChange,
 * the audits' rule; docs/decisions.md "score.changed from a sync").
 */
export async function syncConnection(
  ctx: AppContext,
  connection: SyncTarget,
  options: SyncOptions = {},
): Promise<SyncResult> {
  const workspaceId = connection.workspace_id;
  const platform = connection.platform;
  const now = ctx.now();
  const today = utcDay(now);
  // The last day the platform reported activity for. Not simply the last row: connectors write a row
  // for every day of the range (audience only on days the platform has nothing for yet), so a platform
  // whose data lags (the simulator's clock, insights a day or two late) would otherwise never be
  // re-read for the days it fills in later.
  const held = await ctx.db
    .selectFrom('metric_snapshots')
    .select('day')
    .where('workspace_id', '=', workspaceId)
    .where('platform', '=', platform)
    .where((eb) => eb.or(ACTIVITY_COLUMNS.map((c) => eb(c, '>', 0))))
    .orderBy('day', 'desc')
    .limit(1)
    .executeTakeFirst();
  const range = rangeFor(options, today, connection.last_sync_at, held ? String(held.day) : null);

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
  const scoreChanged = await ctx.db.transaction().execute(async (trx) => {
    await trx.selectFrom('workspaces').select('id').where('id', '=', workspaceId).forUpdate().execute();
    const before = await latestDailyScore(trx, workspaceId, today);
    const changed = await upsertSnapshots(trx, rows);
    await trx
      .updateTable('platform_connections')
      .set({
        followers: result.followers,
        last_sync_at: now,
        ...SYNC_STATE_CLEAN,
      })
      .where('id', '=', connection.id)
      .where('status', '=', 'connected')
      .execute();
    const lastAffected = addDays(range.until, DAILY_WINDOW_DAYS - 1);
    await recomputeDailyScores(trx, workspaceId, range.since, lastAffected < today ? lastAffected : today, {
      fromDay: firstDayToScore(changed.get(workspaceId), before?.day ?? null, range.since, today),
    });
    const after = await latestDailyScore(trx, workspaceId, today);
    // The first data (nothing to compare) is not a change, as with a workspace's first audit.
    if (!before || !after || !isScoreChange(after, before)) return false;
    await emitEvent(ctx, trx, {
      workspaceId,
      type: 'score.changed',
      data: {
        workspace_id: workspaceId,
        score: round1(after.score),
        previous_score: round1(before.score),
        change: signedDelta(after.score, before.score),
        grade: after.grade,
        previous_grade: before.grade,
        changed_at: now.toISOString(),
        source: 'sync',
        platform,
      },
    });
    return true;
  });
  return { platform, ...range, snapshots: rows.length, followers: result.followers, scoreChanged };
}

/**
 * The first daily score a sync must rewrite: from the first day whose snapshot changed, and from the
 * day after the latest stored score (the window slides even when no data changed, so days since the
 * last recompute are scored). null: nothing moved. A daily sync re-reads 3 known days and brings one
 * new one, so it rescores one day instead of four (docs/performance.md "Sync scenario").
 */
export function firstDayToScore(
  firstChanged: string | undefined,
  latestScored: string | null,
  since: string,
  today: string,
): string | null {
  const unscored = latestScored === null ? since : addDays(latestScored, 1);
  const candidates = [firstChanged, unscored <= today ? unscored : undefined].filter(
    (d): d is string => d !== undefined,
  );
  return candidates.length ? candidates.reduce((a, b) => (a < b ? a : b)) : null;
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
