import { sql, type Expression, type Transaction } from 'kysely';
import type { DB } from '../infra/db/types.ts';
import type { AppContext } from '../context.ts';
import { emitEvent, eventRow, scheduleDelivery } from '../events/emit.ts';
import { round1, signedDelta, type CompositeGrade } from '../scoring/engine/index.ts';
import {
  computeDailyScores,
  CURRENT_FORMULA,
  DAILY_SCORE_BATCH,
  DAILY_WINDOW_DAYS,
  storedGradeBefore,
  upsertDailyScoresQuery,
  type DailyScoreRow,
} from '../scoring/daily-scores.ts';
import { isScoreChange, type ComparableScore } from '../scoring/score-change.ts';
import {
  loadSnapshotsForScoring,
  packedSnapshotRow,
  packedSnapshotsSql,
  unpackSnapshots,
  type PackedSnapshot,
} from '../scoring/snapshots.ts';
import type { DailySnapshot } from '../core/metric-snapshot.ts';
import { ApiClient, CONNECTORS, ConnectorError, type PlatformAnswer } from './connectors/index.ts';
import type { PartialFailure } from './connectors/types.ts';
import type { StoredSyncFailure } from '../infra/db/types.ts';
import { snapshotRow, upsertSnapshotsQuery } from './store.ts';
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
  /** The platform's own id of the account, stored at connect (null: connected before ids were stored, or by handle). */
  account_id?: string | null;
  last_sync_at: Date | null;
  /** The last day with activity held for it (lastActiveDaySql), when the caller read it already. */
  held_day?: string | null;
  /** The score before and scoring window read with the claim (scoringReadSql), kept if still current. */
  prefetched?: PrefetchedScoring;
}

/**
 * The last day a platform reported activity for, as a scalar subquery (so a sync job reads it in the
 * statement that claims the connection). Not simply the last row: connectors write a row for every
 * day of the range up to the platform's today (audience only on days it has nothing for yet), so a
 * platform whose data lags (insights a day or two late) would otherwise never be re-read for the days
 * it fills in later.
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
    .where('status', '=', 'connected')
    .executeTakeFirst();
  if (!connection) throw new SyncError(`${platform} is not connected to workspace ${workspaceId}`);
  return syncConnection(ctx, connection, options);
}

/**
 * Syncs one live connection (see syncPlatform). In the same transaction, under a lock on the
 * workspace row (two platforms of one workspace syncing at once compare against each other's
 * result, not the same stale one), it clears the connection's error state and fires
 * `score.changed` when the workspace's latest daily score moved beyond its 90% interval (isScoreChange,
 * the audits' rule; docs/adr/0076-score-changed-from-a-sync.md).
 *
 * Database round trips are most of what a sync costs beyond its fetch (docs/performance.md "Sync
 * scenario"), so the transaction holds two statements: (1) lock the workspace (bumping its
 * sync_version), upsert the snapshots, record the sync and check that the score before and the
 * scoring window the claim read (`connection.prefetched`, scoringReadSql) still hold; (2) write the
 * rescored days, with the score.changed event row when there is one (its delivery job is one more).
 * When the claim's read does not hold (or there is none: the CLI), the score and window are read
 * under the lock in between, as before. The score after is taken from the rows just written.
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
  const held =
    connection.held_day !== undefined
      ? connection.held_day
      : (
          await sql<{
            day: string | null;
          }>`SELECT ${lastActiveDaySql(workspaceId, platform)} AS day`.execute(ctx.db)
        ).rows[0]!.day;
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
  const lastAffected = addDays(range.until, DAILY_WINDOW_DAYS - 1);
  const to = lastAffected < today ? lastAffected : today;
  // What the claim read, usable only on the day it was read (its window ends on that today).
  const prefetched = connection.prefetched?.today === today ? connection.prefetched : undefined;
  const failures = distinctFailures(result.failures ?? []);
  const scoreChanged = await ctx.db.transaction().execute(async (trx) => {
    // (1) The main query reads the locked workspace row first (the UPDATE bumping its sync_version is
    // the lock); the upsert and the update run in the same statement (data-modifying CTEs always run
    // to completion). `fresh`: what the claim read still holds (see scoringReadSql).
    const written = await trx
      .with('ws', (qc) =>
        qc
          .updateTable('workspaces')
          .set({ sync_version: sql<string>`sync_version + 1` })
          .where('id', '=', workspaceId)
          .returning(['id', 'sync_version']),
      )
      // The connection's partial failures before this sync (the statement's snapshot: the old row).
      .with('prev', (qc) =>
        qc.selectFrom('platform_connections').select('sync_failures').where('id', '=', connection.id),
      )
      .with('conn', (qc) =>
        qc
          .updateTable('platform_connections')
          .set({
            followers: result.followers,
            last_sync_at: now,
            ...SYNC_STATE_CLEAN,
            sync_failures: failuresSql(failures, now),
            // An id the connector looked up (a connection made before ids were stored) is kept.
            ...(result.accountId && !connection.account_id ? { account_id: result.accountId } : {}),
          })
          .where('id', '=', connection.id)
          .where('status', '=', 'connected')
          .returning('id'),
      )
      .with('up', (qc) =>
        rows.length
          ? upsertSnapshotsQuery(qc, rows, {
              keepFollowersThrough: result.followersEstimatedThrough ?? null,
            }).returning(packedSnapshotRow('metric_snapshots').as('packed'))
          : qc
              .selectFrom('metric_snapshots')
              .select(['workspace_id', 'day', packedSnapshotRow('metric_snapshots').as('packed')])
              .where(sql<boolean>`false`),
      )
      .selectFrom('ws')
      .select([
        sql<string | null>`(SELECT min(up.day)::text FROM up)`.as('first_changed'),
        sql<PackedSnapshot[] | null>`(SELECT json_agg(up.packed) FROM up)`.as('changed'),
        sql<number>`(SELECT count(*) FROM conn)::int`.as('recorded'),
        sql<StoredSyncFailure[] | null>`(SELECT prev.sync_failures FROM prev)`.as('previous_failures'),
        (prefetched
          ? sql<boolean>`(ws.sync_version = ${prefetched.version}::bigint + 1
              AND ${scoringReadSql(workspaceId, today).fingerprint} = ${prefetched.fingerprint})`
          : sql<boolean>`false`
        ).as('fresh'),
      ])
      .executeTakeFirst();
    const firstChanged = written?.first_changed ?? undefined;
    if (written?.recorded)
      await reportMissingPermissions(ctx, trx, connection, failures, written.previous_failures);

    // (2) The score before (under the lock, before anything is rescored) and a scoring window: the
    // claim's, with this sync's changed rows laid over it, when nothing else wrote since; else read
    // now, for the likely first day to rescore (the first changed one, else today).
    let beforeRow: BeforeTuple | null;
    let held: { from: string; to: string; snapshots: DailySnapshot[] };
    if (prefetched && written?.fresh) {
      beforeRow = prefetched.before;
      const byKey = new Map<string, DailySnapshot>();
      for (const s of unpackSnapshots(prefetched.window)) byKey.set(`${s.platform} ${s.day}`, s);
      for (const s of unpackSnapshots(written.changed)) byKey.set(`${s.platform} ${s.day}`, s);
      held = { ...claimWindow(today), snapshots: [...byKey.values()] };
    } else {
      const from = addDays(firstChanged ?? today, -(DAILY_WINDOW_DAYS - 1));
      const read = await trx
        .selectNoFrom([
          scoringReadSql(workspaceId, today).before.as('before'),
          packedSnapshotsSql(workspaceId, { from, to }).as('window'),
        ])
        .executeTakeFirstOrThrow();
      beforeRow = read.before;
      held = { from, to, snapshots: unpackSnapshots(read.window) };
    }
    const before: (ComparableScore & { day: string }) | null = beforeRow
      ? {
          score: beforeRow[0],
          day: beforeRow[1],
          grade: beforeRow[2],
          formulaVersion: CURRENT_FORMULA,
          interval:
            beforeRow[3] !== null && beforeRow[4] !== null ? { low: beforeRow[3], high: beforeRow[4] } : null,
        }
      : null;
    const fromDay = firstDayToScore(firstChanged, before?.day ?? null, range.since, today);
    let scored: DailyScoreRow[] = [];
    if (fromDay !== null && fromDay <= to) {
      const windowFrom = addDays(fromDay, -(DAILY_WINDOW_DAYS - 1));
      // Days not scored before the window held (a lagging history) need a wider one: read it.
      const snapshots =
        windowFrom >= held.from && to <= held.to
          ? held.snapshots.filter((s) => s.day >= windowFrom && s.day <= to)
          : await loadSnapshotsForScoring(trx, workspaceId, { from: windowFrom, to });
      // Grade hysteresis carries over from the stored day before fromDay: the latest one when the
      // rescore starts after it (a daily sync), else one more read.
      const previousGrade =
        before && before.day < fromDay ? before.grade : await storedGradeBefore(trx, workspaceId, fromDay);
      scored = computeDailyScores(workspaceId, snapshots, fromDay, to, {
        previousGrade: (previousGrade as CompositeGrade | null) ?? null,
      });
    }
    const after = latestAfterWrite(before, scored);
    // The first data (nothing to compare) is not a change, as with a workspace's first audit.
    const event =
      before && after && isScoreChange(after, before)
        ? eventRow(ctx, {
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
          })
        : null;
    // (3) The rescored days, with the event row (if any) in the same statement.
    for (let i = 0; i < scored.length; i += DAILY_SCORE_BATCH) {
      const last = i + DAILY_SCORE_BATCH >= scored.length;
      const qc = event && last ? trx.with('ev', (q) => q.insertInto('events').values(event)) : trx;
      await upsertDailyScoresQuery(qc, scored.slice(i, i + DAILY_SCORE_BATCH)).execute();
    }
    if (!event) return false;
    if (!scored.length) await trx.insertInto('events').values(event).execute();
    await scheduleDelivery(ctx, trx, event.id);
    return true;
  });
  return { platform, ...range, snapshots: rows.length, followers: result.followers, scoreChanged, failures };
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

/** The latest stored score as scoringReadSql packs it: score, day, grade, interval low and high. */
type BeforeTuple = [number, string, CompositeGrade | null, number | null, number | null];

/** What a sync's claim reads ahead (scoringReadSql) and hands to syncConnection. */
export interface PrefetchedScoring {
  /** The day it was read for (its window ends then). */
  today: string;
  version: string;
  fingerprint: string;
  before: BeforeTuple | null;
  window: PackedSnapshot[] | null;
}

/**
 * The scoring window a claim reads: a daily sync re-reads from RESYNC_OVERLAP_DAYS before yesterday,
 * so it rescores from at most that day, whose window starts DAILY_WINDOW_DAYS - 1 days earlier.
 */
function claimWindow(today: string): { from: string; to: string } {
  return { from: addDays(today, -(DAILY_WINDOW_DAYS - 1) - (RESYNC_OVERLAP_DAYS + 1)), to: today };
}

/**
 * What a sync reads to rescore, as scalar subqueries on a workspace (an outer column in the claim):
 * the latest stored score on or before today (`before`), the claim's scoring window, the
 * workspace's sync_version, and a fingerprint of those rows (their xmins: any insert, update or
 * delete since gives a different one). The sync's lock statement keeps the claim's read only when
 * sync_version moved by exactly its own bump (the UPDATE that takes the lock sees the row's latest
 * version even when it waited, so no other sync committed in between) and the fingerprint, taken in
 * that statement's snapshot, is unchanged (no other writer committed before it); else it reads again
 * under the lock, as it always did. A writer committing during that one statement is the same race
 * the read after the lock has with writers that do not take the workspace lock.
 */
export function scoringReadSql(workspaceId: Expression<string> | string, today: string) {
  const window = claimWindow(today);
  const latest = sql`FROM daily_scores d WHERE d.workspace_id = ${workspaceId}
    AND d.formula_version = ${CURRENT_FORMULA} AND d.day <= ${today} ORDER BY d.day DESC LIMIT 1`;
  return {
    before: sql<BeforeTuple | null>`(SELECT json_build_array(d.score, d.day, d.grade, d.score_low, d.score_high) ${latest})`,
    window: packedSnapshotsSql(workspaceId, window),
    version: sql<string>`(SELECT w.sync_version::text FROM workspaces w WHERE w.id = ${workspaceId})`,
    fingerprint: sql<string>`md5(concat_ws('|',
      (SELECT string_agg(s.xmin::text, ',' ORDER BY s.platform, s.day) FROM metric_snapshots s
        WHERE s.workspace_id = ${workspaceId} AND s.day >= ${window.from} AND s.day <= ${window.to}),
      (SELECT d.xmin::text || ' ' || d.day::text ${latest})))`,
  };
}

/**
 * A number as a `real` column gives it back: rounded to float4, then printed as PostgreSQL prints a
 * float4 (the shortest decimal that rounds to the same float4) and parsed again.
 */
export function asStoredReal(x: number): number {
  const f = Math.fround(x);
  if (!Number.isFinite(f)) return f;
  for (let digits = 1; digits < 9; digits++) {
    const shortest = Number(f.toPrecision(digits));
    if (Math.fround(shortest) === f) return shortest;
  }
  return Number(f.toPrecision(9));
}

/**
 * The workspace's latest daily score on or before today once `written` is stored (what
 * /v1/score/history ends with): written days are never after today and replace the stored ones.
 * Scores are stored as `real`: a written one is taken as reading it back would give it (asStoredReal).
 */
function latestAfterWrite(
  before: (ComparableScore & { day: string }) | null,
  written: readonly DailyScoreRow[],
): ComparableScore | null {
  let latest: (ComparableScore & { day: string }) | null = before;
  for (const r of written) {
    const day = String(r.day);
    if (!latest || day >= latest.day) {
      latest = {
        day,
        score: asStoredReal(Number(r.score)),
        grade: (r.grade as string | null | undefined) ?? null,
        formulaVersion: CURRENT_FORMULA,
        interval:
          r.score_low != null && r.score_high != null
            ? { low: asStoredReal(Number(r.score_low)), high: asStoredReal(Number(r.score_high)) }
            : null,
      };
    }
  }
  return latest;
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
