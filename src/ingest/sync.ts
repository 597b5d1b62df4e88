import { sql, type Expression, type Transaction } from 'kysely';
import type { DB, StoredSyncFailure } from '../infra/db/types.ts';
import type { AppContext } from '../context.ts';
import { emitEvent } from '../webhooks/emit.ts';
import {
  computeDailyScores,
  lastDayMovedBy,
  scoreInputFrom,
  latestDailyScore,
  storedGradesBefore,
  writeDailyScores,
} from '../scoring/daily-scores.ts';
import { isScoreChange, scoreChangedData } from '../scoring/score-change.ts';
import { storedCrisis } from '../scoring/v3-fields.ts';
import { compositeGradeV2 } from '../scoring/engine/index.ts';
import { loadSnapshotsForScoring } from '../scoring/snapshots.ts';
import { ApiClient, CONNECTORS, ConnectorError, type PlatformAnswer } from './connectors/index.ts';
import type { PartialFailure } from './connectors/types.ts';
import { snapshotRow, upsertSnapshotsQuery } from './store.ts';
import { bookPostComments } from './post-comments.ts';
import { benchmarkIndustryOf, lockWorkspace } from '../workspaces/queries.ts';
import { addDays, daysBetween, isCalendarDay, utcDay } from '../core/days.ts';
import { DomainError, type ErrorKind } from '../core/errors.ts';
import type { Platform } from '../core/catalog.ts';
import { isConnected } from './connection-state.ts';

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
  /** The calls that failed while the rest was stored (recorded on the connection until they succeed). */
  failures: PartialFailure[];
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
  health_reason: null,
  health_scope: null,
  sync_failures: '[]',
} as const;

/**
 * The kinds a sync refuses its arguments with (a range it cannot cover, a platform not connected):
 * the CLI reports them, the worker stops the job without a retry, a workspace sync lists them per platform.
 */
const SYNC_REFUSALS: ReadonlySet<ErrorKind> = new Set([
  'invalid_parameter',
  'invalid_date_range',
  'platform_not_connected',
]);

/** True for an error a sync raised to refuse its arguments (SYNC_REFUSALS), not a platform's failure. */
export function isSyncRefusal(error: unknown): error is DomainError {
  return error instanceof DomainError && SYNC_REFUSALS.has(error.kind);
}

/** Counts a platform reports only for days it has data for (the audience is carried to every day). */
const ACTIVITY_COLUMNS = ['posts', 'impressions', 'likes', 'comments', 'shares', 'mentions'] as const;

/** A sync argument refused, its message as the detail. */
function refused(parameter: string, message: string): DomainError<'invalid_parameter'> {
  return new DomainError('invalid_parameter', message, { parameter, message });
}

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
      // From the earlier of the last sync and the last day held with activity (a platform whose data
      // lags, like insights a day or two late or a clock behind ours, still gets its new days), never
      // more than the first-sync window back.
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
    if (!isCalendarDay(day)) throw refused(name, `${name} must be a YYYY-MM-DD date, got "${day}"`);
  }
  if (until > today) throw refused('until', `until (${until}) is in the future`);
  if (since > until)
    throw new DomainError('invalid_date_range', `since (${since}) is after until (${until})`, {
      parameter: 'since',
    });
  if (daysBetween(since, until) >= MAX_SYNC_DAYS)
    throw refused('since', `a sync covers at most ${MAX_SYNC_DAYS} days`);
  return { since, until };
}

/** A live connection as a sync reads it. */
export interface SyncTarget {
  id: string;
  workspace_id: string;
  platform: Platform;
  handle: string;
  /** The platform's own id of the account, stored at connect (null: none looked up at connect, as for a connection made by handle). */
  account_id?: string | null;
  last_sync_at: Date | null;
}

/**
 * The last day a platform reported activity for, as a scalar subquery. Not simply the last row:
 * connectors write a row for every day of the range up to the platform's today (audience only on
 * days it has nothing for yet), so a platform whose data lags (insights a day or two late) would
 * otherwise never be re-read for the days it fills in later.
 */
export function lastActiveDaySql(
  workspaceId: Expression<string> | string,
  platform: Expression<string> | string,
) {
  const active = sql.join(
    ACTIVITY_COLUMNS.map((c) => sql`s.${sql.ref(c)} > 0`),
    sql` OR `,
  );
  return sql<string | null>`(SELECT s.day::text FROM metric_snapshots s
    WHERE s.workspace_id = ${workspaceId} AND s.platform = ${platform} AND (${active})
    ORDER BY s.day DESC LIMIT 1)`;
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
    .select(['id', 'workspace_id', 'platform', 'handle', 'account_id', 'last_sync_at'])
    .where('workspace_id', '=', workspaceId)
    .where('platform', '=', platform)
    .where(isConnected)
    .executeTakeFirst();
  if (!connection)
    throw new DomainError(
      'platform_not_connected',
      `${platform} is not connected to workspace ${workspaceId}`,
    );
  return syncConnection(ctx, connection, options);
}

/**
 * Syncs one live connection: the one sync of the job and CLI paths (syncPlatform, runSyncJob). It
 * fetches outside any transaction, then writes everything in one transaction under a lock on the
 * workspace row, so two syncs of one workspace do not compare against the
 * same stale score: it records the sync on the connection, upserts the snapshots, rescores the days
 * they feed into, and fires `score.changed` when the workspace's latest daily score moved beyond its
 * 90% interval (isScoreChange, the audits' rule; docs/adr/0076-score-changed-from-a-sync.md).
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
  const { held } = await sql<{
    held: string | null;
  }>`SELECT ${lastActiveDaySql(workspaceId, platform)} AS held`
    .execute(ctx.db)
    .then((r) => r.rows[0]!);
  const range = rangeFor(options, today, connection.last_sync_at, held);

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
    ...(connector.readFault ? { readFault: (a: PlatformAnswer) => connector.readFault!(a) } : {}),
  });
  const result = await connector.fetchSnapshots(
    client,
    { handle: connection.handle.replace(/^@/, ''), accountId: connection.account_id ?? null },
    range,
  );

  // No day after the platform's own today (its Date header): a platform whose clock is behind ours (the
  // simulator's accelerated clock started in the past, a server skewed around midnight) has nothing for
  // those days yet, and rows of nothing would read as days without posts or views. Their turn comes
  // on a later sync (rangeFor re-reads from the last day with activity). At most MAX_SYNC_DAYS rows:
  // one upsert statement.
  const horizon = client.platformToday;
  const rows = result.snapshots
    .filter((s) => horizon === null || s.day <= horizon)
    .map((s) => snapshotRow(workspaceId, s, 'connector'));
  const lastAffected = lastDayMovedBy(range.until);
  const to = lastAffected < today ? lastAffected : today;
  const failures = distinctFailures(result.failures ?? []);
  const scoreChanged = await ctx.db.transaction().execute(async (trx) => {
    await lockWorkspace(trx, workspaceId);
    await recordSync(ctx, trx, connection, { ...result, failures });
    const commentDays = await bookPostComments(
      trx,
      workspaceId,
      platform,
      (result.postComments ?? []).filter((p) => horizon === null || p.day <= horizon),
      rows,
      ctx.now(),
    );
    const changed = rows.length
      ? await upsertSnapshotsQuery(trx, rows, {
          keepFollowersThrough: result.followersEstimatedThrough ?? null,
        }).execute()
      : [];
    const changedDays = [...changed.map((r) => String(r.day)), ...commentDays];
    const firstChanged = changedDays.length ? changedDays.reduce((a, b) => (a < b ? a : b)) : undefined;

    // The score before, read under the lock and before anything is rescored.
    const before = await latestDailyScore(trx, workspaceId, today);
    const fromDay = firstDayToScore(firstChanged, before?.day ?? null, range.since, today);
    if (fromDay === null || fromDay > to) return false;
    const snapshots = await loadSnapshotsForScoring(trx, workspaceId, {
      from: scoreInputFrom(fromDay),
      to,
    });
    // Grade hysteresis carries over from the stored day before fromDay.
    const [grades, industry] = await Promise.all([
      storedGradesBefore(trx, workspaceId, fromDay),
      benchmarkIndustryOf(trx, workspaceId),
    ]);
    await writeDailyScores(
      trx,
      computeDailyScores(workspaceId, snapshots, fromDay, to, { ...grades, industry }),
    );
    const after = await latestDailyScore(trx, workspaceId, today);
    if (after) {
      await ctx.workspaceChanged(trx, {
        workspaceId,
        change: {
          score: after.score,
          previous_score: before?.score ?? null,
          grade: after.grade ?? compositeGradeV2(after.score),
          previous_grade: before ? (before.grade ?? compositeGradeV2(before.score)) : null,
          changed_at: now.toISOString(),
          platform,
          crisis: storedCrisis(after.crisis),
        },
      });
    }
    // The first data (nothing to compare) is not a change, as with a workspace's first audit.
    if (!before || !after || !isScoreChange(after, before)) return false;
    await emitEvent(ctx, trx, {
      workspaceId,
      type: 'score.changed',
      data: scoreChangedData({ workspaceId, before, after, changedAt: now, cause: { platform } }),
    });
    return true;
  });
  return { platform, ...range, snapshots: rows.length, followers: result.followers, scoreChanged, failures };
}

/**
 * Records a sync on a still-connected connection: its followers, last_sync_at, a clean error state
 * and this sync's partial failures (with platform.connection_degraded for a newly missing permission).
 */
async function recordSync(
  ctx: AppContext,
  trx: Transaction<DB>,
  connection: SyncTarget,
  result: { followers: number; accountId?: string | null; failures: readonly PartialFailure[] },
): Promise<void> {
  const now = ctx.now();
  const previous = await trx
    .selectFrom('platform_connections')
    .select('sync_failures')
    .where('id', '=', connection.id)
    .executeTakeFirst();
  const recorded = await trx
    .updateTable('platform_connections')
    .set({
      followers: result.followers,
      last_sync_at: now,
      ...SYNC_STATE_CLEAN,
      sync_failures: failuresSql(result.failures, now),
      // An id the connector looked up (none was stored at connect) is kept.
      ...(result.accountId && !connection.account_id ? { account_id: result.accountId } : {}),
    })
    .where('id', '=', connection.id)
    .where(isConnected)
    .executeTakeFirst();
  if (recorded.numUpdatedRows > 0n)
    await reportMissingPermissions(ctx, trx, connection, result.failures, previous?.sync_failures ?? null);
}

/** One failure per call and metric (the first), so the recorded list names each once. */
function distinctFailures(failures: readonly PartialFailure[]): PartialFailure[] {
  const seen = new Map<string, PartialFailure>();
  for (const f of failures) {
    const key = `${f.call} ${f.metric ?? ''}`;
    if (!seen.has(key)) seen.set(key, f);
  }
  return [...seen.values()];
}

/**
 * The value of platform_connections.sync_failures after a sync: exactly this sync's failures (a call
 * that succeeded again is gone), each with `at` = now and `since` carried over from the row when the
 * same call and metric failed on the previous sync too.
 */
function failuresSql(failures: readonly PartialFailure[], now: Date) {
  const at = now.toISOString();
  // Bounded as GET /v1/platforms documents them: the texts come from the platform.
  const list = failures.map((f) => ({
    call: f.call.slice(0, 300),
    metric: f.metric?.slice(0, 200) ?? null,
    kind: f.kind,
    scope: f.scope?.slice(0, 200) ?? null,
    message: f.message.slice(0, 400),
    at,
  }));
  return sql<string>`(SELECT coalesce(jsonb_agg(f || jsonb_build_object('since', coalesce(
      (SELECT p->>'since' FROM jsonb_array_elements(platform_connections.sync_failures) p
        WHERE p->>'call' = f->>'call' AND p->'metric' = f->'metric' LIMIT 1),
      f->>'at')) ORDER BY f->>'call', f->>'metric'), '[]'::jsonb)
    FROM jsonb_array_elements(${JSON.stringify(list)}::jsonb) f)`;
}

/**
 * platform.connection_degraded, once per call and metric: a sync stored its data but a call was
 * refused for a permission the brand did not grant (or withdrew), which only the brand can give
 * back by connecting again. Other partial failures (a refused metric, an unreadable answer) are
 * shown in GET /v1/platforms but need nothing from the brand.
 */
async function reportMissingPermissions(
  ctx: AppContext,
  trx: Transaction<DB>,
  connection: SyncTarget,
  failures: readonly PartialFailure[],
  previous: readonly StoredSyncFailure[] | null,
): Promise<void> {
  const before = new Set((previous ?? []).map((p) => `${p.call} ${p.metric ?? ''}`));
  const fresh = failures.filter(
    (f) => f.kind === 'permission_missing' && !before.has(`${f.call} ${f.metric ?? ''}`),
  );
  if (!fresh.length) return;
  await emitEvent(ctx, trx, {
    workspaceId: connection.workspace_id,
    type: 'platform.connection_degraded',
    data: {
      workspace_id: connection.workspace_id,
      platform: connection.platform,
      handle: connection.handle,
      missing: fresh.slice(0, 100).map((f) => ({
        call: f.call.slice(0, 300),
        metric: f.metric?.slice(0, 200) ?? null,
        scope: f.scope?.slice(0, 200) ?? null,
      })),
      reconnect: `POST /v1/platforms/${connection.platform}/connect`,
      degraded_at: ctx.now().toISOString(),
    },
  });
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
    .where(isConnected)
    .execute();
  const out: Array<SyncResult | { platform: Platform; error: string }> = [];
  for (const { platform } of live) {
    try {
      out.push(await syncPlatform(ctx, workspaceId, platform, options));
    } catch (error) {
      if (!(error instanceof ConnectorError) && !isSyncRefusal(error)) throw error;
      out.push({ platform, error: error.message });
    }
  }
  return out;
}
