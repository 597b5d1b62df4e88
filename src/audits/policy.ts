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

/** The composite must move by at least this many points (or change grade) to emit score.changed. */
export const SCORE_CHANGED_THRESHOLD = 1.0;

/**
 * The sweeper fails an audit still processing this long after its estimate when no job for it
 * is queued or running, and after SWEEP_HARD_LIMIT_SECONDS whatever the job says (longer than
 * the worst case of every retry expiring: 4 x 300 s plus back-off).
 */
export const SWEEP_GRACE_SECONDS = 300;
export const SWEEP_HARD_LIMIT_SECONDS = 3600;

/**
 * Estimated run time: queue pick-up (workers poll every 2 s) plus scoring, which grows with the
 * platforms and days to read. Deliberately pessimistic so a client polling at the estimate
 * rarely meets 425.
 */
export function estimatedSeconds(platformCount: number, lookbackDays: number): number {
  return 10 + 5 * platformCount + Math.ceil(lookbackDays / 30);
}

/** Retry-After for a processing audit: until its estimate, at least 1 s, 5 s once overdue. */
export function retryAfterSeconds(estimatedCompletion: Date, now: Date): number {
  const left = Math.ceil((estimatedCompletion.getTime() - now.getTime()) / 1000);
  return left >= 1 ? left : 5;
}

/**
 * Audits one process runs at once on PostgreSQL: an audit spends most of its time waiting on
 * queries, so a few in flight keep the CPU busy (they share the DATABASE_POOL_SIZE pool).
 * PGlite is one serialised connection, where more in flight would only queue.
 */
export const AUDIT_LOCAL_CONCURRENCY = 4;
