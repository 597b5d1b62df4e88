import type { Job } from 'pg-boss';
import type { AppContext } from '../context.ts';
import { AuditFailure, completeAudit, failAudit } from './complete.ts';
import {
  AUDIT_JOB_EXPIRE_SECONDS,
  AUDIT_LOCAL_CONCURRENCY,
  AUDIT_QUEUE,
  AUDIT_RETRY_DELAY_SECONDS,
  AUDIT_RETRY_LIMIT,
  AUDIT_SWEEP_QUEUE,
  SWEEP_GRACE_SECONDS,
  SWEEP_HARD_LIMIT_SECONDS,
} from './policy.ts';
import type { AuditJobData } from './start.ts';

const LIVE_JOB_STATES = new Set(['created', 'retry', 'active']);

const RETRIES_EXHAUSTED =
  `The audit could not be completed after ${AUDIT_RETRY_LIMIT + 1} attempts because of an internal error. ` +
  'It did not count toward the monthly quota; run it again.';

/**
 * One attempt of an audit job. A deterministic failure (nothing to score) fails the audit at
 * once; any other error is rethrown so pg-boss retries with back-off, and on the last attempt
 * the audit is failed instead, so it never stays processing.
 */
export async function runAuditJob(
  ctx: AppContext,
  job: Pick<Job<AuditJobData>, 'data' | 'retryCount'>,
): Promise<string> {
  const { auditId } = job.data;
  try {
    return await completeAudit(ctx, auditId);
  } catch (error) {
    if (error instanceof AuditFailure) {
      await failAudit(ctx, auditId, error.message);
      return 'failed';
    }
    if (job.retryCount >= AUDIT_RETRY_LIMIT) {
      ctx.jobs.onError(error);
      await failAudit(ctx, auditId, RETRIES_EXHAUSTED);
      return 'failed';
    }
    throw error;
  }
}

/**
 * Fails audits that can no longer finish: still processing SWEEP_GRACE_SECONDS after their
 * estimate with no queued or running job (the job was lost, or its last attempt expired), or
 * SWEEP_HARD_LIMIT_SECONDS after it in any case. Returns the ids it failed.
 */
export async function sweepStaleAudits(ctx: AppContext): Promise<string[]> {
  const now = ctx.now();
  const stale = await ctx.db
    .selectFrom('audits')
    .select(['id', 'estimated_completion'])
    .where('status', '=', 'processing')
    .where('estimated_completion', '<', new Date(now.getTime() - SWEEP_GRACE_SECONDS * 1000))
    .orderBy('estimated_completion')
    .limit(500)
    .execute();
  const failed: string[] = [];
  for (const audit of stale) {
    const overdue = now.getTime() - audit.estimated_completion.getTime() > SWEEP_HARD_LIMIT_SECONDS * 1000;
    if (!overdue) {
      const jobs = await ctx.jobs.boss.findJobs<AuditJobData>(AUDIT_QUEUE, { data: { auditId: audit.id } });
      if (jobs.some((j) => LIVE_JOB_STATES.has(j.state))) continue;
    }
    const reason = overdue
      ? 'The audit did not finish within an hour of its estimated completion and was stopped. It did not count toward the monthly quota; run it again.'
      : 'The audit job was lost before it could finish. It did not count toward the monthly quota; run it again.';
    if (await failAudit(ctx, audit.id, reason, now)) failed.push(audit.id);
  }
  return failed;
}

/** Queues, workers and the sweeper schedule of the audits domain. */
export function auditJobs(ctx: AppContext): void {
  ctx.jobs.queue(AUDIT_QUEUE, {
    retryLimit: AUDIT_RETRY_LIMIT,
    retryDelay: AUDIT_RETRY_DELAY_SECONDS,
    retryBackoff: true,
    expireInSeconds: AUDIT_JOB_EXPIRE_SECONDS,
  });
  // One job per fetch, so a retry concerns one audit; concurrency comes from several local workers.
  const localConcurrency = ctx.database.kind === 'postgres' ? AUDIT_LOCAL_CONCURRENCY : 1;
  ctx.jobs.worker<AuditJobData>(AUDIT_QUEUE, { batchSize: 1, localConcurrency }, async (jobs) => {
    for (const job of jobs) await runAuditJob(ctx, job);
  });
  ctx.jobs.queue(AUDIT_SWEEP_QUEUE, { retryLimit: 0, expireInSeconds: 120 });
  ctx.jobs.worker(AUDIT_SWEEP_QUEUE, { batchSize: 1 }, async () => {
    await sweepStaleAudits(ctx);
  });
  ctx.jobs.schedule(AUDIT_SWEEP_QUEUE, '* * * * *');
}
