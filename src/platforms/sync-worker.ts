import { sql, type Transaction } from 'kysely';
import type { AppContext } from '../context.ts';
import { emitEvent } from '../webhooks/emit.ts';
import type { EventData } from '../webhooks/events.ts';
import type { DB, HealthReason, SyncErrorClass } from '../infra/db/types.ts';
import { defineJob, type JobDefinition } from '../infra/jobs/define.ts';
import { platformEndpoints } from './oauth-config.ts';
import { isConnected } from '../ingest/connection-state.ts';
import {
  accessTokenRefused,
  getAccessToken,
  ReauthRequired,
  TOKEN_COLUMNS,
  TokenRefreshFailed,
} from './vault.ts';
import { ConnectorError } from '../ingest/connectors/index.ts';
import { isSyncRefusal, syncConnection, type SyncOptions } from '../ingest/sync.ts';
import { PLATFORMS, type Platform } from '../core/catalog.ts';
import { wallClockMs } from '../infra/wall-clock.ts';
import { stateSlot } from '../infra/state.ts';

/**
 * The sync worker (docs/ingestion.md "Scheduled sync"): the scheduled tick that claims due
 * connections, the per-platform sync jobs that run one connection's sync (syncConnection) and
 * record its failures, the circuit breaker, and token-expiry warnings. Every minute a tick claims
 * the live connections whose slot is due: in one transaction it moves each one's next_sync_at to
 * its next slot and enqueues one job per connection on that platform's queue. Rows are claimed with
 * FOR UPDATE SKIP LOCKED, so instances ticking at once take disjoint sets, and a claimed round's
 * job exists exactly when its claim committed: each connection is synced once per round.
 */

/** Attempts per round for a connection the platform throttles (429) or fails (5xx, network). */
export const MAX_SYNC_ATTEMPTS = 5;
/** Failed attempts in a row before platform.connection_failed is emitted (once per streak). */
export const FAILURE_ALERT_AFTER = 3;
/** Backoff without Retry-After: 30 s, 60 s, 120 s, ... capped at 15 minutes. */
const BACKOFF_BASE_SECONDS = 30;
const BACKOFF_MAX_SECONDS = 900;
/** A sync_started_at older than this is a crashed attempt, not a running one. */
export const SYNCING_STALE_MS = 15 * 60_000;
export const SYNC_HEARTBEAT_SECONDS = 10;
/** Connections claimed per tick; the rest stay due for the next one. */
const CLAIM_LIMIT = 20_000;

export interface SyncJob {
  connectionId: string;
  /** The slot this job syncs (ISO instant): one job per connection and round. */
  round: string;
  attempt: number;
  manual?: boolean;
}

/** FNV-1a: a stable spread of connections over the interval. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

/**
 * A connection's first slot after `after`: slots repeat every interval at a fixed offset derived
 * from its id, so a round is spread evenly over the interval and a connection keeps its time of day.
 */
export function nextSlot(connectionId: string, after: Date, intervalMinutes: number): Date {
  const interval = intervalMinutes * 60_000;
  const offset = hash(connectionId) % interval;
  const k = Math.floor((after.getTime() - offset) / interval) + 1;
  return new Date(k * interval + offset);
}

/** Claims every due connection and enqueues its sync. Returns the number claimed. */
export async function claimDueConnections(ctx: AppContext, limit = CLAIM_LIMIT): Promise<number> {
  const now = ctx.now();
  const interval = ctx.config.sync.intervalMinutes;
  return ctx.db.transaction().execute(async (trx) => {
    // Only connections with a token on file: handle-only ones (CLI, sandbox) sync from the CLI.
    const due = await trx
      .selectFrom('platform_connections')
      .select(['id', 'platform', 'next_sync_at'])
      .where(isConnected)
      .where('access_token', 'is not', null)
      .where((eb) => eb.or([eb('next_sync_at', 'is', null), eb('next_sync_at', '<=', now)]))
      .orderBy('next_sync_at')
      .limit(limit)
      .forUpdate()
      .skipLocked()
      .execute();
    if (!due.length) return 0;
    const next = due.map((c) => nextSlot(c.id, now, interval));
    await sql`
      UPDATE platform_connections c SET next_sync_at = v.next
      FROM unnest(${due.map((c) => c.id)}::text[], ${next}::timestamptz[]) AS v(id, next)
      WHERE c.id = v.id`.execute(trx);
    for (const platform of PLATFORMS) {
      const jobs = due
        .filter((c) => c.platform === platform)
        .map((c): SyncJob => ({
          connectionId: c.id,
          round: (c.next_sync_at ?? now).toISOString(),
          attempt: 1,
        }));
      await syncJob(platform).enqueueMany(ctx, jobs, { trx });
    }
    return due.length;
  });
}

/**
 * Per-platform circuit breaker, per instance: after BREAKER_THRESHOLD failed attempts in a row
 * (5xx, network, timeouts) the platform's jobs wait BREAKER_OPEN_MS without calling it; then one
 * attempt is let through, and its success closes the breaker. Other platforms are untouched.
 */
export const BREAKER_THRESHOLD = 5;
export const BREAKER_OPEN_MS = 60_000;

class CircuitBreaker {
  failures = 0;
  openUntil = 0;
  /** Milliseconds to wait before calling the platform; 0 = go ahead. */
  wait(now: number): number {
    return this.failures >= BREAKER_THRESHOLD && now < this.openUntil ? this.openUntil - now : 0;
  }
  success(): void {
    this.failures = 0;
    this.openUntil = 0;
  }
  failure(now: number): void {
    this.failures++;
    if (this.failures >= BREAKER_THRESHOLD) this.openUntil = now + BREAKER_OPEN_MS;
  }
  /**
   * The platform answered (refusing one account's request): it is up, so a run of failures in a row
   * is broken, but an open breaker stays open until an attempt it lets through succeeds.
   */
  answered(): void {
    if (this.failures < BREAKER_THRESHOLD) this.failures = 0;
  }
}

/** Per service: until when (epoch ms) a platform's app-wide quota is spent (QUOTA_PER_APP). */
const APP_QUOTAS = stateSlot('ingest.app-quotas', () => new Map<Platform, number>());
function holdAppQuota(ctx: AppContext, platform: Platform, until: number): void {
  const map = ctx.state.get(APP_QUOTAS);
  map.set(platform, Math.max(map.get(platform) ?? 0, until));
}
function appQuotaWait(ctx: AppContext, platform: Platform, now: number): number {
  const until = ctx.state.get(APP_QUOTAS).get(platform) ?? 0;
  return until > now ? until - now : 0;
}

/** Per service: each platform's circuit breaker. */
const BREAKERS = stateSlot('ingest.breakers', () => new Map<Platform, CircuitBreaker>());
function breaker(ctx: AppContext, platform: Platform): CircuitBreaker {
  const map = ctx.state.get(BREAKERS);
  let b = map.get(platform);
  if (!b) map.set(platform, (b = new CircuitBreaker()));
  return b;
}

export type SyncJobOutcome = 'synced' | 'skipped' | 'deferred' | 'failed' | 'reauth_required';

/**
 * Platforms whose quota is the app's (one Cloud project or developer app for every connection), not
 * each account's: an exhausted quota defers the platform's other syncs on this instance too.
 * YouTube: 10,000 units a day per Cloud project, reset at midnight Pacific Time
 * (https://developers.google.com/youtube/data/determine_quota_cost). X: the monthly post-read cap is
 * per app (https://docs.x.com/x-api/fundamentals/post-cap). Meta's Business Use Case limits are per
 * app and Page (https://developers.facebook.com/docs/graph-api/overview/rate-limiting/), so one Page's
 * exhausted budget leaves the others alone; TikTok's are not documented as per app.
 */
export const QUOTA_PER_APP: Readonly<Record<Platform, boolean>> = {
  instagram: false,
  facebook: false,
  tiktok: false,
  youtube: true,
  twitter: true,
};

/**
 * What the scheduler does with one failed attempt (docs/ingestion.md "Scheduled sync"), one policy
 * per error kind (ConnectorError.kind):
 * - retry: again this round after `wait` seconds (when that is before the next slot and attempts are
 *   left); otherwise the connection waits for its next slot, never before `retryAt`.
 * - reauth: the brand must act (reconnect, grant a permission, pick a live account); no retry.
 * - stop: no retry this round; the next slot tries again.
 */
type Failure = FailurePolicy &
  ({ action: 'retry' | 'stop'; reason: HealthReason } | { action: 'reauth'; reason: ReauthReason });

/** Why a connection needs the brand: the `reason` platform.reauth_required documents. */
type ReauthReason = NonNullable<EventData<'platform.reauth_required'>['reason']>;

interface FailurePolicy {
  errorClass: SyncErrorClass;
  /** Seconds before another attempt this round (action retry). */
  wait: number;
  /** The platform's own time to call again; no sync of the connection before it. */
  retryAt: Date | null;
  /** Whether it is a failure of the connection (the streak that raises platform.connection_failed). */
  counts: boolean;
  /** Whether it counts against the platform's breaker: the platform itself is down, for everyone. */
  platformDown: boolean;
  /** The permission the platform named (permission_missing). */
  scope?: string | null;
  /** An app-wide quota: the platform's other syncs on this instance wait for `retryAt` too. */
  appWide?: boolean;
}

function backoff(attempt: number): number {
  return Math.min(BACKOFF_MAX_SECONDS, BACKOFF_BASE_SECONDS * 2 ** (attempt - 1));
}

export function classify(error: unknown, attempt: number, now = wallClockMs()): Failure | null {
  const final = attempt >= MAX_SYNC_ATTEMPTS;
  if (error instanceof TokenRefreshFailed) {
    // The token endpoint is down (network, 5xx) for everyone, or refused this one request (a 4xx that
    // is not a refusal of the grant): only the former counts against the breaker.
    return {
      action: 'retry',
      errorClass: 'platform_unavailable',
      reason: 'token_refresh_failed',
      wait: backoff(attempt),
      retryAt: null,
      counts: true,
      platformDown: error.platformDown,
    };
  }
  if (error instanceof ConnectorError) {
    const signalled = error.retryAfterSeconds(now);
    switch (error.kind) {
      // A rate limit is the platform pacing us, not a failure: its own reset time (Retry-After, a
      // reset header, a code's estimated time), else backoff; never counted, never the breaker.
      case 'throttled':
        return {
          action: 'retry',
          errorClass: 'rate_limited',
          reason: 'throttled',
          wait: signalled ?? backoff(attempt),
          retryAt: error.retryAt,
          counts: false,
          platformDown: false,
        };
      // A spent daily or monthly quota: nothing until its reset; without a known reset, the next slot.
      case 'quota_exhausted':
        return {
          action: signalled === null ? 'stop' : 'retry',
          errorClass: 'rate_limited',
          reason: 'quota_exhausted',
          wait: signalled ?? 0,
          retryAt: error.retryAt,
          counts: false,
          platformDown: false,
          appWide: QUOTA_PER_APP[error.platform],
        };
      // A refused token with a refresh token on file (accessTokenRefused marked it expired): the next
      // attempt refreshes it. Routine for short-lived tokens, so a failure only when attempts run out.
      case 'token_refused':
        return {
          action: 'retry',
          errorClass: 'platform_error',
          reason: 'token_refused',
          wait: backoff(attempt),
          retryAt: null,
          counts: final,
          platformDown: false,
        };
      case 'permission_missing':
        return {
          action: 'reauth',
          errorClass: 'reauth_required',
          reason: 'permission_missing',
          wait: 0,
          retryAt: null,
          counts: false,
          platformDown: false,
          scope: error.scope,
        };
      case 'account_gone':
        return {
          action: 'reauth',
          errorClass: 'reauth_required',
          reason: 'account_gone',
          wait: 0,
          retryAt: null,
          counts: false,
          platformDown: false,
        };
      // The one kind that says the platform is down for everyone: it alone feeds the breaker.
      case 'unavailable':
        return {
          action: 'retry',
          errorClass: 'platform_unavailable',
          reason: 'platform_unavailable',
          wait: signalled ?? backoff(attempt),
          retryAt: null,
          counts: true,
          platformDown: true,
        };
      case 'invalid_response':
        return {
          action: 'stop',
          errorClass: 'invalid_response',
          reason: 'invalid_response',
          wait: 0,
          retryAt: null,
          counts: true,
          platformDown: false,
        };
      case 'invalid_request':
        return {
          action: 'stop',
          errorClass: 'platform_error',
          reason: 'platform_refused',
          wait: 0,
          retryAt: null,
          counts: true,
          platformDown: false,
        };
    }
  }
  if (isSyncRefusal(error)) {
    return {
      action: 'stop',
      errorClass: 'platform_error',
      reason: 'sync_failed',
      wait: 0,
      retryAt: null,
      counts: true,
      platformDown: false,
    };
  }
  return null;
}

async function lockedConnection(trx: Transaction<DB>, id: string) {
  return trx
    .selectFrom('platform_connections')
    .select(['id', 'workspace_id', 'platform', 'handle', 'status', 'consecutive_failures', 'next_sync_at'])
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
}

/**
 * Records a failed attempt: its class and reason, the streak (when it counts), and a platform's own
 * retry time past the next slot (next_sync_at moves to it). Emits platform.connection_failed when
 * the streak reaches FAILURE_ALERT_AFTER. Answers whether this round retries: `retry` when the next
 * attempt comes before the next slot.
 */
async function recordFailure(ctx: AppContext, job: SyncJob, failure: Failure): Promise<boolean> {
  const now = ctx.now();
  return ctx.db.transaction().execute(async (trx) => {
    const c = await lockedConnection(trx, job.connectionId);
    if (!c) return false;
    const failures = c.consecutive_failures + (failure.counts ? 1 : 0);
    const retryAt = failure.retryAt && failure.retryAt > now ? failure.retryAt : null;
    const nextSlot = c.next_sync_at;
    const retry =
      failure.action === 'retry' &&
      job.attempt < MAX_SYNC_ATTEMPTS &&
      (nextSlot === null || now.getTime() + failure.wait * 1000 < nextSlot.getTime());
    await trx
      .updateTable('platform_connections')
      .set({
        sync_started_at: null,
        last_error_class: failure.errorClass,
        last_error_at: now,
        consecutive_failures: failures,
        health_reason: failure.reason,
        health_scope: null,
        // Not before the platform's own retry time, even when it lies past the next slot.
        ...(retryAt && !retry && (nextSlot === null || retryAt > nextSlot) ? { next_sync_at: retryAt } : {}),
      })
      .where('id', '=', c.id)
      .execute();
    if (failure.counts && failures === FAILURE_ALERT_AFTER && c.status === 'connected') {
      await emitEvent(ctx, trx, {
        workspaceId: c.workspace_id,
        type: 'platform.connection_failed',
        data: {
          workspace_id: c.workspace_id,
          platform: c.platform,
          handle: c.handle,
          error_class: failure.errorClass,
          consecutive_failures: failures,
          failed_at: now.toISOString(),
        },
      });
    }
    return retry;
  });
}

/**
 * Moves a connection that needs the brand to reauth_required with its reason (a refused refresh or
 * access token, a missing permission, an account gone); platform.reauth_required fires once, when
 * the connection enters the state. The vault has already moved it for a refused token.
 */
async function recordReauth(
  ctx: AppContext,
  job: SyncJob,
  reason: ReauthReason,
  scope: string | null = null,
): Promise<void> {
  const now = ctx.now();
  await ctx.db.transaction().execute(async (trx) => {
    const c = await lockedConnection(trx, job.connectionId);
    if (!c || c.status === 'disconnected') return;
    const moved = await trx
      .updateTable('platform_connections')
      .set({
        status: 'reauth_required',
        reauth_at: sql<Date>`coalesce(reauth_at, ${now}::timestamptz)`,
        sync_started_at: null,
        last_error_class: 'reauth_required',
        last_error_at: now,
        health_reason: reason,
        health_scope: scope,
      })
      .where('id', '=', c.id)
      .where((eb) =>
        eb.or([eb('last_error_class', 'is', null), eb('last_error_class', '!=', 'reauth_required')]),
      )
      .executeTakeFirst();
    if (!moved.numUpdatedRows) return;
    await emitEvent(ctx, trx, {
      workspaceId: c.workspace_id,
      type: 'platform.reauth_required',
      data: {
        workspace_id: c.workspace_id,
        platform: c.platform,
        handle: c.handle,
        reason,
        ...(scope ? { scope } : {}),
        reconnect: `POST /v1/platforms/${c.platform}/connect`,
        required_at: now.toISOString(),
      },
    });
    await ctx.workspaceChanged(trx, { workspaceId: c.workspace_id });
  });
}

async function defer(
  ctx: AppContext,
  platform: Platform,
  job: SyncJob,
  seconds: number,
  attempt = job.attempt,
) {
  await syncJob(platform).enqueue(
    ctx,
    { ...job, attempt },
    {
      startAfter: Math.max(1, Math.ceil(seconds)),
    },
  );
}

/**
 * Runs one connection's sync job. Idempotent: snapshots are upserted and the scores recomputed, so a
 * job retried after a crash (or a duplicate) rewrites the same rows. Errors are recorded on the
 * connection and never escape, so one connection's failure never fails another's job.
 */
export async function runSyncJob(
  ctx: AppContext,
  job: SyncJob,
  options: Pick<SyncOptions, 'fetch' | 'timeoutMs'> = {},
): Promise<SyncJobOutcome> {
  // The running mark, the connection and its tokens, in one statement.
  const connection = await ctx.db
    .updateTable('platform_connections')
    .set({ sync_started_at: ctx.now() })
    .where('id', '=', job.connectionId)
    .where(isConnected)
    .returning([...TOKEN_COLUMNS, 'workspace_id', 'handle', 'account_id', 'last_sync_at'])
    .executeTakeFirst();
  if (!connection) return 'skipped';
  const { platform } = connection;
  const circuit = breaker(ctx, platform);
  const now = wallClockMs();
  const wait = Math.max(circuit.wait(now), appQuotaWait(ctx, platform, now));
  if (wait > 0) {
    // Not an attempt: the platform was not called (its breaker is open, or its app-wide quota is spent).
    await ctx.db
      .updateTable('platform_connections')
      .set({ sync_started_at: null })
      .where('id', '=', connection.id)
      .execute();
    await defer(ctx, platform, job, wait / 1000);
    return 'deferred';
  }
  try {
    const token = await getAccessToken(ctx, connection.id, connection);
    await syncConnection(ctx, connection, {
      ...options,
      tokens: { [platform]: token },
      baseUrls: Object.fromEntries(
        Object.entries(platformEndpoints(ctx.config, platform).apiBaseUrls).map(([api, url]) => [
          `${platform}.${api}`,
          url,
        ]),
      ),
    });
    circuit.success();
    return 'synced';
  } catch (caught) {
    let error = caught;
    if (error instanceof ConnectorError && error.tokenRefused) {
      error = await accessTokenRefused(ctx, connection).then(
        () => caught,
        (refused: unknown) => refused,
      );
    }
    if (error instanceof ReauthRequired) {
      await recordReauth(
        ctx,
        job,
        error.healthReason ?? (caught === error ? 'refresh_refused' : 'token_refused'),
      );
      return 'reauth_required';
    }
    const failure = classify(error, job.attempt);
    if (!failure) {
      // Unexpected (a bug or the database): clear the running mark and let pg-boss retry the job.
      await ctx.db
        .updateTable('platform_connections')
        .set({ sync_started_at: null })
        .where('id', '=', connection.id)
        .execute()
        .catch(() => {});
      throw error;
    }
    if (failure.action === 'reauth') {
      await recordReauth(ctx, job, failure.reason, failure.scope?.slice(0, 200) ?? null);
      return 'reauth_required';
    }
    if (failure.platformDown) circuit.failure(wallClockMs());
    else if (failure.reason !== 'throttled' && failure.reason !== 'quota_exhausted') circuit.answered();
    if (failure.appWide && failure.retryAt) holdAppQuota(ctx, platform, failure.retryAt.getTime());
    const retry = await recordFailure(ctx, job, failure);
    if (retry) {
      await defer(ctx, platform, job, failure.wait, job.attempt + 1);
      return 'deferred';
    }
    return failure.counts ? 'failed' : 'deferred';
  }
}

/**
 * Days before a token that cannot be refreshed lapses that platform.token_expiring fires: a week
 * leaves the brand time to connect again (Meta's long-lived token lasts about 60 days and Facebook
 * Login offers no refresh: https://developers.facebook.com/docs/facebook-login/guides/access-tokens/get-long-lived).
 */
export const TOKEN_WARNING_DAYS = 7;

/**
 * Raises platform.token_expiring once per token for live connections whose access token expires
 * within TOKEN_WARNING_DAYS and has no refresh token. The mark (token_warned_for = the expiry warned
 * about) is set in the statement that finds them, so instances ticking at once warn once; a new
 * token (a reconnect) has a new expiry and is warned about again. Returns the number warned.
 */
export async function warnExpiringTokens(ctx: AppContext): Promise<number> {
  const now = ctx.now();
  const horizon = new Date(now.getTime() + TOKEN_WARNING_DAYS * 86_400_000);
  return ctx.db.transaction().execute(async (trx) => {
    const expiring = await trx
      .updateTable('platform_connections')
      .set({ token_warned_for: sql<Date>`token_expires_at` })
      .where(isConnected)
      .where('refresh_token', 'is', null)
      .where('token_expires_at', 'is not', null)
      .where('token_expires_at', '>', now)
      .where('token_expires_at', '<=', horizon)
      .where((eb) =>
        eb.or([eb('token_warned_for', 'is', null), eb('token_warned_for', '!=', eb.ref('token_expires_at'))]),
      )
      .returning(['workspace_id', 'platform', 'handle', 'token_expires_at'])
      .execute();
    for (const c of expiring) {
      await emitEvent(ctx, trx, {
        workspaceId: c.workspace_id,
        type: 'platform.token_expiring',
        data: {
          workspace_id: c.workspace_id,
          platform: c.platform,
          handle: c.handle,
          expires_at: c.token_expires_at!.toISOString(),
          reconnect: `POST /v1/platforms/${c.platform}/connect`,
          warned_at: now.toISOString(),
        },
      });
    }
    return expiring.length;
  });
}

/**
 * Every minute: claims the due connections, and warns about tokens that will lapse (warnExpiringTokens).
 * A tick missed while no instance ran is harmless: due connections stay due.
 */
export const syncTickJob = defineJob<object>({
  queue: 'platforms.sync-tick',
  retry: { retryLimit: 0, retryDelay: 0, retryBackoff: false },
  expireInSeconds: 300,
  schedule: '* * * * *',
  worker: { pollingIntervalSeconds: 5 },
  handler: async (ctx) => {
    const claimed = await claimDueConnections(ctx);
    await warnExpiringTokens(ctx);
    return claimed;
  },
});

/** One platform's sync queue; its workers run this many of the platform's syncs at once per instance. */
function defineSyncJob(platform: Platform): JobDefinition<SyncJob> {
  return defineJob<SyncJob>({
    queue: `platforms.sync.${platform}`,
    // Retries here are for crashes and unexpected errors; platform errors are retried by runSyncJob.
    retry: { retryLimit: 5, retryDelay: 30, retryBackoff: true, retryDelayMax: 900 },
    expireInSeconds: 300,
    // A worker that died mid-sync (kill -9) stops beating: its job is retried within seconds.
    heartbeatSeconds: SYNC_HEARTBEAT_SECONDS,
    worker: { pollingIntervalSeconds: 1, localConcurrency: (ctx) => ctx.config.sync.concurrency },
    handler: (ctx, job) => runSyncJob(ctx, job.data),
  });
}

/** The per-platform sync jobs, one definition per platform queue. */
export const syncJobs: Readonly<Record<Platform, JobDefinition<SyncJob>>> = Object.fromEntries(
  PLATFORMS.map((platform) => [platform, defineSyncJob(platform)]),
) as Record<Platform, JobDefinition<SyncJob>>;

export function syncJob(platform: Platform): JobDefinition<SyncJob> {
  return syncJobs[platform];
}

/** Queues an immediate sync of a live connection (the on-demand endpoint). */
export async function enqueueManualSync(
  ctx: AppContext,
  trx: Transaction<DB>,
  connection: { id: string; platform: Platform },
): Promise<void> {
  const now = ctx.now();
  await syncJob(connection.platform).enqueue(
    ctx,
    { connectionId: connection.id, round: now.toISOString(), attempt: 1, manual: true },
    { trx },
  );
}
