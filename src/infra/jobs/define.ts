import type { Transaction } from 'kysely';
import type { JobWithMetadata } from 'pg-boss';
import type { AppContext } from '../../context.ts';
import type { DB } from '../db/types.ts';
import type { QueueSpec } from './jobs.ts';

/**
 * One job, declared once (River's JobArgs + Worker in one place): its queue name, payload type,
 * retry/expiry/heartbeat policy, schedule, worker options and handler. Domains list their
 * definitions in DomainModule.jobs; the service registers them; callers enqueue through
 * `enqueue`, so the payload is typed and the policy cannot drift between sender and queue.
 */
export interface JobDefinition<P extends object> extends Readonly<QueueSpec> {
  /** Declares the queue, worker and schedule on this service's engine (before it starts). */
  register(ctx: AppContext): void;
  /**
   * Sends one job with the declared policy; inside `trx` when given, so it exists exactly when that
   * commits; not before `startAfter` seconds from now when given; workers take higher `priority`
   * first (default 0), then the oldest.
   */
  enqueue(
    ctx: Pick<AppContext, 'jobs'>,
    payload: P,
    options?: { trx?: Transaction<DB>; startAfter?: number; priority?: number },
  ): Promise<string | null>;
  /** Sends many jobs in one statement, each with the declared policy; inside `trx` when given. */
  enqueueMany(
    ctx: Pick<AppContext, 'jobs'>,
    payloads: readonly P[],
    options?: { trx?: Transaction<DB> },
  ): Promise<void>;
}

export interface JobDeclaration<P extends object> extends Omit<QueueSpec, 'worker'> {
  worker?: Omit<NonNullable<QueueSpec['worker']>, 'localConcurrency'> & {
    /** Workers in this process; a function when it depends on the service (its database, say). */
    localConcurrency?: number | ((ctx: AppContext) => number);
  };
  /**
   * One attempt. Throwing makes pg-boss retry per `retry`; on the last attempt `job.retryCount`
   * equals `job.retryLimit`. Must be idempotent: a job interrupted by a crash runs again.
   */
  handler: (ctx: AppContext, job: JobWithMetadata<P>) => Promise<unknown>;
}

/** Declares a job; the payload type is the type argument (`defineJob<{ auditId: string }>({ ... })`). */
export function defineJob<P extends object>(declaration: JobDeclaration<P>): JobDefinition<P> {
  const { handler, worker, ...policy } = declaration;
  const specFor = (ctx: AppContext): QueueSpec => {
    if (!worker) return policy;
    const { localConcurrency, ...rest } = worker;
    const concurrency = typeof localConcurrency === 'function' ? localConcurrency(ctx) : localConcurrency;
    return {
      ...policy,
      worker: { ...rest, ...(concurrency === undefined ? {} : { localConcurrency: concurrency }) },
    };
  };
  return {
    ...policy,
    register(ctx) {
      ctx.jobs.register<P>(specFor(ctx), (job) => handler(ctx, job));
    },
    enqueue(ctx, payload, options = {}) {
      const { trx, startAfter, priority } = options;
      return ctx.jobs.enqueue(policy, payload, trx, {
        ...(startAfter === undefined ? {} : { startAfter }),
        ...(priority === undefined ? {} : { priority }),
      });
    },
    enqueueMany(ctx, payloads, options = {}) {
      return ctx.jobs.enqueueMany(policy, payloads, options.trx);
    },
  };
}
