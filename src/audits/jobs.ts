import type { Job } from 'pg-boss';
import type { AppContext } from '../context.ts';
import { defineJob } from '../infra/jobs/define.ts';
import { AuditFailure, completeAudit, failAudit } from './complete.ts';
import {
  AUDIT_HEARTBEAT_SECONDS,
  AUDIT_JOB_EXPIRE_SECONDS,
  auditWorkers,
  AUDIT_QUEUE,
  AUDIT_RETRY_DELAY_SECONDS,
  AUDIT_RETRY_LIMIT,
  AUDIT_SWEEP_QUEUE,
  SWEEP_GRACE_SECONDS,
  SWEEP_HARD_LIMIT_SECONDS,
} from './policy.ts';

/** Job data of `audits.run`. */
export interface AuditJobData {
  auditId: string;
}

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
    if (job.retryCount >= auditRunJob.retry.retryLimit) {
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

/** One audit's scoring run, enqueued by startAudit in the transaction that inserts the audit. */
export const auditRunJob = defineJob<AuditJobData>({
  queue: AUDIT_QUEUE,
  retry: { retryLimit: AUDIT_RETRY_LIMIT, retryDelay: AUDIT_RETRY_DELAY_SECONDS, retryBackoff: true },
  expireInSeconds: AUDIT_JOB_EXPIRE_SECONDS,
  heartbeatSeconds: AUDIT_HEARTBEAT_SECONDS,
  // One job per fetch, so a retry concerns one audit; concurrency comes from several local workers.
  worker: {
    batchSize: 1,
    localConcurrency: (ctx) => auditWorkers(ctx.database),
  },
  handler: (ctx, job) => runAuditJob(ctx, job),
});

/** The sweeper, every minute. */
export const auditSweepJob = defineJob<object>({
  queue: AUDIT_SWEEP_QUEUE,
  retry: { retryLimit: 0, retryDelay: 0, retryBackoff: false },
  expireInSeconds: 120,
  schedule: '* * * * *',
  worker: { batchSize: 1 },
  handler: (ctx) => sweepStaleAudits(ctx),
});
