import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.ts';
import type { AppContext } from './context.ts';
import { DOMAINS } from './domains.ts';
import { Authenticator } from './infra/auth/authenticator.ts';
import type { Config } from './infra/config.ts';
import { migrateToLatest, openDatabase } from './infra/db/database.ts';
import { Jobs } from './infra/jobs/jobs.ts';
import { createMetrics } from './infra/observability/metrics.ts';
import { MemoryRateLimitStore, RedisRateLimitStore } from './infra/ratelimit/store.ts';

export interface Service {
  ctx: AppContext;
  app: FastifyInstance;
  /** Starts job workers and schedules (when configured). */
  startWorkers(): Promise<void>;
  /** Finishes in-flight requests and jobs, then closes the database cleanly. */
  stop(): Promise<void>;
}

export interface ServiceOptions {
  now?: () => Date;
  /** PGlite folder override (tests pass 'memory://'). */
  dataDir?: string;
}

/** Opens the database, migrates it, starts pg-boss and builds the HTTP app. */
export async function createService(config: Config, options: ServiceOptions = {}): Promise<Service> {
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    poolSize: config.databasePoolSize,
    dataDir: options.dataDir ?? config.dataDir,
  });
  let jobs: Jobs | null = null;
  try {
    await migrateToLatest(database.db);
    jobs = new Jobs(database, { schedule: config.runWorkers, supervise: config.runWorkers });
    const ctx: AppContext = {
      config,
      database,
      db: database.db,
      jobs,
      authenticator: new Authenticator(database.db, config.authCacheTtlMs),
      rateLimits: config.redisUrl ? new RedisRateLimitStore(config.redisUrl) : new MemoryRateLimitStore(),
      metrics: createMetrics(),
      now: options.now ?? (() => new Date()),
    };
    for (const domain of DOMAINS) domain.jobs?.(ctx);
    await jobs.start();
    const app = await buildApp(ctx);
    jobs.onError = (error) => app.log.warn({ err: error }, 'job engine error');
    await app.ready();

    let stopped = false;
    return {
      ctx,
      app,
      async startWorkers() {
        if (!config.runWorkers) return;
        await ctx.jobs.startWorkers();
        for (const domain of DOMAINS) {
          await domain
            .start?.(ctx)
            .catch((error) => app.log.warn({ err: error, domain: domain.name }, 'domain start failed'));
        }
      },
      async stop() {
        if (stopped) return;
        stopped = true;
        await app.close();
        await ctx.jobs.stop();
        await ctx.rateLimits.close();
        await database.close();
      },
    };
  } catch (error) {
    await jobs?.stop().catch(() => {});
    await database.close().catch(() => {});
    throw error;
  }
}
