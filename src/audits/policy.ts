/** Audit lifecycle constants, documented in docs/audits.md. */

export const AUDIT_QUEUE = 'audits.run';
export const AUDIT_SWEEP_QUEUE = 'audits.sweep';

export const DEFAULT_LOOKBACK_DAYS = 90;
export const MAX_LOOKBACK_DAYS = 365;

/** pg-boss retries after the first attempt: 4 attempts in all, 5 s, 10 s, 20 s apart (plus jitter). */
export const AUDIT_RETRY_LIMIT = 3;
export const AUDIT_RETRY_DELAY_SECONDS = 5;
/** An attempt still active after this long is taken back by pg-boss and retried. */
export const AUDIT_JOB_EXPIRE_SECONDS = 300;
/**
 * A running attempt refreshes its job's heartbeat every 5 s; one not seen for this long (its
 * process died) is failed and retried at the next maintenance pass (every 5 s) instead of
 * waiting for the expiry above. 10 s is pg-boss's minimum.
 */
export const AUDIT_HEARTBEAT_SECONDS = 10;

/** score.changed's threshold lives with its rule (src/scoring/score-change.ts). */
export { SCORE_CHANGED_THRESHOLD } from '../scoring/score-change.ts';

/**
 * The sweeper fails an audit still processing this long after its estimate when no job for it
 * is queued or running, and after SWEEP_HARD_LIMIT_SECONDS whatever the job says (longer than
 * the worst case of every retry expiring: 4 x 300 s plus back-off).
 */
export const SWEEP_GRACE_SECONDS = 300;
export const SWEEP_HARD_LIMIT_SECONDS = 3600;

/**
 * Estimated run time with nothing measured yet (a new database, or no audit completed in the
 * last ESTIMATE_WINDOW_HOURS): queue pick-up (workers poll every 2 s) plus scoring, which reads
 * stored metrics only (syncs fetch from the platforms) and grows with the platforms and days to
 * read: about a second per platform and per quarter of look-back, what audits measure on this
 * service. An estimate that is too long makes every first caller wait for a result that is long
 * ready (clients wait as Retry-After says); one that is short costs a poll. Also the duration the
 * sandbox gives its seeded audits, so a sandbox's first audit is estimated from it.
 */
export function estimatedSeconds(platformCount: number, lookbackDays: number): number {
  return 2 + platformCount + Math.ceil(lookbackDays / 90);
}

/** How many recent completed audits (within the window) the estimate is measured from. */
export const ESTIMATE_SAMPLE = 20;
export const ESTIMATE_WINDOW_HOURS = 24;
/** Bounds of an estimate: one worker poll at least, and never past the sweeper's patience. */
export const ESTIMATE_FLOOR_SECONDS = 2;
export const ESTIMATE_CAP_SECONDS = 120;

/**
 * Estimated seconds until a new audit completes: the median measured duration (created to
 * completed) of recent audits, plus the audits processing ahead of it, shared among the workers
 * that run at once; between the floor and the cap. `medianSeconds` null: nothing measured yet.
 */
export function measuredEstimateSeconds(input: {
  medianSeconds: number | null;
  ahead: number;
  concurrency: number;
  platformCount: number;
  lookbackDays: number;
}): number {
  const each = input.medianSeconds ?? estimatedSeconds(input.platformCount, input.lookbackDays);
  const queued = (input.ahead / Math.max(1, input.concurrency)) * each;
  return Math.min(ESTIMATE_CAP_SECONDS, Math.max(ESTIMATE_FLOOR_SECONDS, Math.ceil(each + queued)));
}

/** An overdue audit is usually a poll away from done: ask again soon, not at a fixed 5 s. */
export const OVERDUE_RETRY_SECONDS = 2;

/** Retry-After for a processing audit: until its estimate, at least 1 s; 2 s once overdue. */
export function retryAfterSeconds(estimatedCompletion: Date, now: Date): number {
  const left = Math.ceil((estimatedCompletion.getTime() - now.getTime()) / 1000);
  return left >= 1 ? left : OVERDUE_RETRY_SECONDS;
}

/**
 * Audits one process runs at once on PostgreSQL: an audit spends most of its time waiting on
 * queries, so a few in flight keep the CPU busy (they share the DATABASE_POOL_SIZE pool).
 * PGlite is one serialised connection, where more in flight would only queue.
 */
export const AUDIT_LOCAL_CONCURRENCY = 4;

/** How many audits one process runs at once on this database. */
export function auditWorkers(database: { kind: 'pglite' | 'postgres' }): number {
  return database.kind === 'postgres' ? AUDIT_LOCAL_CONCURRENCY : 1;
}
