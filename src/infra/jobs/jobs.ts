import {
  PgBoss,
  fromKysely,
  fromPglite,
  type Queue,
  type SendOptions,
  type WorkHandler,
  type WorkOptions,
} from 'pg-boss';
import type { Transaction } from 'kysely';
import type { Database } from '../db/database.ts';
import type { DB } from '../db/types.ts';

/**
 * Durable jobs on the service's own database (pg-boss): one engine for PGlite and PostgreSQL.
 * Domains declare their queues and workers here; enqueueing inside a Kysely transaction makes
 * the job exist exactly when the rows that asked for it were committed.
 */
const NO_JOB = '00000000-0000-0000-0000-000000000000';

export class Jobs {
  readonly boss: PgBoss;
  readonly #queues = new Map<string, Omit<Queue, 'name'>>();
  readonly #workers: Array<() => Promise<unknown>> = [];
  readonly #schedules: Array<{ name: string; cron: string }> = [];
  #started = false;

  constructor(database: Database, options: { schedule: boolean; supervise: boolean }) {
    const common = {
      schema: 'pgboss',
      schedule: options.schedule,
      supervise: options.supervise,
      migrate: true,
      // Short maintenance cadence: audits are minutes long and stuck jobs must come back soon.
      superviseIntervalSeconds: 10,
    };
    this.boss =
      database.kind === 'pglite'
        ? new PgBoss({ ...common, backend: 'pglite', db: fromPglite(database.pglite!) })
        : new PgBoss({ ...common, connectionString: database.connectionString!, max: 4 });
    // pg-boss reports transient database errors here; they must never crash the process.
    this.boss.on('error', (error) => this.onError(error));
  }

  onError: (error: unknown) => void = () => {};

  /** Declares a queue (created on start). */
  queue(name: string, options: Omit<Queue, 'name'> = {}): void {
    this.#queues.set(name, options);
  }

  /** Registers a worker (started on startWorkers). */
  worker<T extends object>(name: string, options: WorkOptions, handler: WorkHandler<T>): void {
    this.#workers.push(() => this.boss.work<T>(name, options, handler as never));
  }

  /** Registers a cron schedule (UTC). */
  schedule(name: string, cron: string): void {
    this.#schedules.push({ name, cron });
  }

  async start(): Promise<void> {
    if (this.#started) return;
    await this.boss.start();
    for (const [name, options] of this.#queues) {
      const existing = await this.boss.getQueue(name);
      if (!existing) await this.boss.createQueue(name, options);
      // pg-boss caches queue metadata at start, before these queues existed, and fills a miss
      // with a query on its own connection. On PGlite (one connection) that query inside a
      // caller's transaction (sendInTransaction) would wait for the transaction forever, so
      // warm the cache for every declared queue now.
      await this.boss.getJobById(name, NO_JOB);
    }
    this.#started = true;
  }

  async startWorkers(): Promise<void> {
    for (const start of this.#workers) await start();
    for (const { name, cron } of this.#schedules) await this.boss.schedule(name, cron, null, { tz: 'UTC' });
  }

  /** Enqueues inside the caller's transaction. */
  async sendInTransaction(trx: Transaction<DB>, name: string, data: object, options: SendOptions = {}) {
    return this.boss.send(name, data, { ...options, db: fromKysely(trx) });
  }

  async send(name: string, data: object, options: SendOptions = {}) {
    return this.boss.send(name, data, options);
  }

  async stop(timeoutMs = 10_000): Promise<void> {
    if (!this.#started) return;
    this.#started = false;
    await this.boss.stop({ graceful: true, timeout: timeoutMs, close: true });
  }
}
