import {
  PgBoss,
  fromKysely,
  fromPglite,
  type JobInsert,
  type JobWithMetadata,
  type Queue,
  type QueuePolicy,
  type SendOptions,
} from 'pg-boss';
import type { Transaction } from 'kysely';
import type { Database } from '../db/database.ts';
import type { DB } from '../db/types.ts';

/**
 * Durable jobs on the service's own database (pg-boss): one engine for PGlite and PostgreSQL.
 * Domains declare each job once with defineJob (./define.ts); this class turns a declaration
 * into a queue, a worker and a schedule, and enqueues inside a Kysely transaction so the job
 * exists exactly when the rows that asked for it were committed.
 */

/** pg-boss retry options of a queue and of each job sent to it. */
export interface RetryPolicy {
  /** Retries after the first attempt. */
  retryLimit: number;
  /** Seconds before the first retry. */
  retryDelay: number;
  /** Doubles the delay at each retry, with jitter: retryDelay * 2^(n-1) * (1 + [0,1)). */
  retryBackoff: boolean;
  /** Cap of one delay in seconds (with backoff only). */
  retryDelayMax?: number;
}

/** Everything about a queue but its handler: what a declaration gives the engine. */
export interface QueueSpec {
  queue: string;
  retry: RetryPolicy;
  /** An attempt still active after this long is taken back and retried. */
  expireInSeconds: number;
  /** A running attempt not seen for this long (its process died) is failed and retried. */
  heartbeatSeconds?: number;
  /** pg-boss queue policy ('stately': at most one queued and one running). */
  policy?: QueuePolicy;
  /** Cron (UTC) on which the job is sent with an empty payload. */
  schedule?: string;
  worker?: {
    /** Jobs fetched at once (handled one after the other). */
    batchSize?: number;
    /** Workers polling this queue in this process. */
    localConcurrency?: number;
    pollingIntervalSeconds?: number;
  };
}

const NO_JOB = '00000000-0000-0000-0000-000000000000';

export class Jobs {
  readonly boss: PgBoss;
  readonly #queues = new Map<string, Omit<Queue, 'name'>>();
  readonly #workers: Array<() => Promise<unknown>> = [];
  readonly #schedules: Array<{ name: string; cron: string }> = [];
  readonly #retryOverrides = new Map<string, RetryPolicy>();
  #started = false;

  constructor(database: Database, options: { schedule: boolean; supervise: boolean }) {
    const common = {
      schema: 'pgboss',
      schedule: options.schedule,
      supervise: options.supervise,
      migrate: true,
      // Short maintenance cadence: a job whose worker died (no heartbeat for the queue's
      // heartbeatSeconds) is failed and retried at the next pass, so this bounds recovery time.
      superviseIntervalSeconds: 5,
      monitorIntervalSeconds: 5,
    };
    this.boss =
      database.kind === 'pglite'
        ? new PgBoss({ ...common, backend: 'pglite', db: fromPglite(database.pglite!) })
        : new PgBoss({ ...common, connectionString: database.connectionString!, max: 4 });
    // pg-boss reports transient database errors here; they must never crash the process.
    this.boss.on('error', (error) => this.onError(error));
  }

  onError: (error: unknown) => void = () => {};

  /**
   * Declares the queue of `spec` (created on start), its worker (started by startWorkers) and
   * its schedule. Each job of a fetched batch goes to `handler` in turn.
   */
  register<P extends object>(spec: QueueSpec, handler: (job: JobWithMetadata<P>) => Promise<unknown>): void {
    this.#queues.set(spec.queue, queueOptions(spec));
    const { batchSize, localConcurrency, pollingIntervalSeconds } = spec.worker ?? {};
    const options = {
      includeMetadata: true as const,
      ...(batchSize === undefined ? {} : { batchSize }),
      ...(localConcurrency === undefined ? {} : { localConcurrency }),
      ...(pollingIntervalSeconds === undefined ? {} : { pollingIntervalSeconds }),
    };
    this.#workers.push(() =>
      this.boss.work<P>(spec.queue, options, async (jobs) => {
        // includeMetadata is set above, so each job carries its state and retry counters.
        for (const job of jobs as JobWithMetadata<P>[]) await handler(job);
      }),
    );
    if (spec.schedule) this.#schedules.push({ name: spec.queue, cron: spec.schedule });
  }

  /**
   * Replaces the retry policy of jobs this service sends to `spec`'s queue from now on (tests and
   * the bench shorten webhook retries). The queue's own defaults are left as declared.
   */
  setRetry(spec: Pick<QueueSpec, 'queue'>, retry: RetryPolicy): void {
    this.#retryOverrides.set(spec.queue, retry);
  }

  /** The retry policy of jobs sent to `spec`'s queue by this service. */
  retryOf(spec: Pick<QueueSpec, 'queue' | 'retry'>): RetryPolicy {
    return this.#retryOverrides.get(spec.queue) ?? spec.retry;
  }

  /**
   * Sends one job with its declared policy, inside `trx` when given (the job exists exactly when
   * the transaction commits). Use a definition's typed `enqueue` rather than this.
   */
  async enqueue(
    spec: QueueSpec,
    data: object,
    trx?: Transaction<DB>,
    options: { startAfter?: number; priority?: number } = {},
  ): Promise<string | null> {
    const send: SendOptions = {
      ...this.#policyOf(spec),
      ...(options.startAfter === undefined ? {} : { startAfter: options.startAfter }),
      ...(options.priority === undefined ? {} : { priority: options.priority }),
      ...(trx ? { db: fromKysely(trx) } : {}),
    };
    return this.boss.send(spec.queue, data, send);
  }

  /**
   * Sends many jobs to `spec`'s queue in one statement, each with the declared policy, inside
   * `trx` when given. Use a definition's typed `enqueueMany` rather than this.
   */
  async enqueueMany(spec: QueueSpec, data: readonly object[], trx?: Transaction<DB>): Promise<void> {
    if (!data.length) return;
    const policy = this.#policyOf(spec);
    const jobs: JobInsert[] = data.map((payload) => ({ data: payload, ...policy }));
    await this.boss.insert(spec.queue, jobs, trx ? { db: fromKysely(trx) } : {});
  }

  /** The retry, expiry and heartbeat options every job sent to `spec`'s queue carries. */
  #policyOf(spec: QueueSpec) {
    return {
      ...this.retryOf(spec),
      expireInSeconds: spec.expireInSeconds,
      ...(spec.heartbeatSeconds === undefined ? {} : { heartbeatSeconds: spec.heartbeatSeconds }),
    };
  }

  async start(): Promise<void> {
    if (this.#started) return;
    await this.boss.start();
    const existing = new Map((await this.boss.getQueues([...this.#queues.keys()])).map((q) => [q.name, q]));
    // One at a time: creating a queue is DDL (its partition) under pg-boss's lock.
    for (const [name, options] of this.#queues) {
      const queue = existing.get(name);
      if (!queue) await this.boss.createQueue(name, options);
      else {
        // A database created by an older version keeps its queue settings until told otherwise.
        const { partition: _p, policy: _q, ...updatable } = options;
        const stale = Object.entries(updatable).some(
          ([option, value]) => (queue as unknown as Record<string, unknown>)[option] !== value,
        );
        if (stale) await this.boss.updateQueue(name, updatable);
      }
    }
    // pg-boss caches queue metadata at start, before these queues existed, and fills a miss
    // with a query on its own connection. On PGlite (one connection) that query inside a
    // caller's transaction (enqueue with a trx) would wait for the transaction forever, so
    // warm the cache for every declared queue now.
    await Promise.all([...this.#queues.keys()].map((name) => this.boss.getJobById(name, NO_JOB)));
    this.#started = true;
  }

  async startWorkers(): Promise<void> {
    for (const start of this.#workers) await start();
    for (const { name, cron } of this.#schedules) await this.boss.schedule(name, cron, null, { tz: 'UTC' });
  }

  async stop(timeoutMs = 10_000): Promise<void> {
    if (!this.#started) return;
    this.#started = false;
    await this.boss.stop({ graceful: true, timeout: timeoutMs, close: true });
  }
}

function queueOptions(spec: QueueSpec): Omit<Queue, 'name'> {
  return {
    ...(spec.policy === undefined ? {} : { policy: spec.policy }),
    ...spec.retry,
    expireInSeconds: spec.expireInSeconds,
    ...(spec.heartbeatSeconds === undefined ? {} : { heartbeatSeconds: spec.heartbeatSeconds }),
  };
}
