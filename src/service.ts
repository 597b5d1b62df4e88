import type { FastifyInstance } from 'fastify';
import { buildApp, type AppOptions } from './app.ts';
import type { AppContext } from './context.ts';
import { DOMAINS } from './domains.ts';
import { Authenticator } from './infra/auth/authenticator.ts';
import type { Config } from './infra/config.ts';
import { loadKeyRing } from './infra/crypto/keyring.ts';
import { assertKeysPresent, sealUnbound } from './infra/crypto/sealed-columns.ts';
import { migrateToLatest, openDatabase } from './infra/db/database.ts';
import { Jobs } from './infra/jobs/jobs.ts';
import { createMetrics, listenMetrics, type MetricsListener } from './infra/observability/metrics.ts';
import { MemoryRateLimitStore, type StoreHealth } from './infra/ratelimit/store.ts';
import { Gauge } from 'prom-client';
import { ServiceState } from './infra/state.ts';
import { Mailer } from './infra/mail/mailer.ts';
import { timelineOf } from './annotations/timeline.ts';
import { memberAccess } from './people/principal.ts';

export interface Service {
  ctx: AppContext;
  app: FastifyInstance;
  /** Starts job workers and schedules (when configured). */
  startWorkers(): Promise<void>;
  /** Starts the Prometheus listener on METRICS_HOST:METRICS_PORT; null when METRICS_PORT=off. */
  listenMetrics(): Promise<MetricsListener | null>;
  /**
   * First phase of a shutdown: keeps serving for `ms` while failing readiness and ending
   * keep-alive connections after each response (src/infra/http/drain.ts), then resolves.
   */
  drain(ms: number): Promise<void>;
  /** Finishes in-flight requests and jobs, then closes the database cleanly. */
  stop(): Promise<void>;
}

export interface ServiceOptions {
  now?: () => Date;
  /** PGlite folder override (tests pass 'memory://'). */
  dataDir?: string;
  /** Log destination instead of stdout (tests). */
  logStream?: AppOptions['logStream'];
  /** PGlite data-folder image to start from (see DatabaseOptions.pgliteImage). */
  pgliteImage?: Blob;
}

/** Opens the database, migrates it, starts pg-boss and builds the HTTP app. */
export async function createService(config: Config, options: ServiceOptions = {}): Promise<Service> {
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    poolSize: config.databasePoolSize,
    dataDir: options.dataDir ?? config.dataDir,
    pgliteImage: options.pgliteImage,
  });
  let jobs: Jobs | null = null;
  // Logged once the app's logger exists (the store reports a change only when a request counts).
  let rateLimitHealth: (health: StoreHealth, error?: unknown) => void = () => {};
  try {
    await migrateToLatest(database.db);
    const { keyRing } = loadKeyRing({
      keys: config.encryptionKeys,
      dataDir: options.dataDir ?? config.dataDir,
    });
    jobs = new Jobs(database, { schedule: config.runWorkers, supervise: config.runWorkers });
    const now = options.now ?? (() => new Date());
    const ctx: AppContext = {
      config,
      database,
      db: database.db,
      jobs,
      authenticator: new Authenticator(database.db, config.authCacheTtlMs),
      // ioredis is loaded only when used (about 20 MB resident: docs/performance.md "Memory").
      rateLimits: config.redisUrl
        ? new (await import('./infra/ratelimit/redis-store.ts')).RedisRateLimitStore(config.redisUrl, {
            onHealthChange: (health, error) => rateLimitHealth(health, error),
          })
        : new MemoryRateLimitStore(),
      metrics: createMetrics(),
      mail: new Mailer(config.mail, () => ctx.now()),
      keyRing,
      state: new ServiceState(),
      now,
      timeline: timelineOf(DOMAINS.flatMap((domain) => (domain.timeline ? [domain.timeline] : []))),
      memberAccess: (personId, workspaceId) => memberAccess(ctx.db, personId, workspaceId),
      workspaceChanged: async (trx, change) => {
        for (const domain of DOMAINS) await domain.onWorkspaceChange?.(ctx, trx, change);
      },
    };
    for (const domain of DOMAINS) for (const job of domain.jobs ?? []) job.register(ctx);
    // Three independent steps side by side: the stored secrets' check, pg-boss's start (both mostly
    // waiting on the database) and building the app (on the CPU). All settle before a failure is
    // thrown, so nothing is left running on a database about to close.
    const [sealed, queues, built] = await Promise.allSettled([
      // Part of migrating (it needs the key ring, which a migration does not have): every stored key
      // id must be in the ring, or nothing starts; then rows from before encryption are sealed and
      // values sealed with their purpose only are bound to their row.
      assertKeysPresent(database.db, keyRing).then(() => sealUnbound(database.db, keyRing)),
      jobs.start(),
      readyApp(ctx, options),
    ]);
    const failed = [sealed, queues, built].find((r) => r.status === 'rejected');
    if (failed) {
      if (built.status === 'fulfilled') await built.value.close().catch(() => {});
      throw failed.reason;
    }
    if (built.status === 'rejected') throw built.reason; // (narrows the type)
    const app = built.value;
    jobs.onError = (error) => app.log.warn({ err: error }, 'job engine error');
    rateLimitHealth = (health, error) =>
      health === 'ok'
        ? app.log.info('rate limit store reachable again; limits shared across instances')
        : app.log.warn({ err: error }, 'rate limit store unavailable; each instance counts its own limits');
    ctx.mail.onOutbox = (sent, message) =>
      app.log.info(
        { mail: { to: message.to, subject: message.subject, file: sent.file } },
        'email written to the outbox (SMTP_URL is unset)',
      );
    keyRing.onRefused = (error, at) =>
      app.log.error({ sealed: { place: at.place, row: at.row } }, `sealed value refused: ${error.message}`);

    let stopped = false;
    let metricsListener: MetricsListener | null = null;
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
      async listenMetrics() {
        if (config.metricsPort === null) return null;
        metricsListener ??= await listenMetrics(ctx.metrics, config.metricsPort, config.metricsHost);
        return metricsListener;
      },
      async drain(ms) {
        app.drain.active = true;
        if (ms > 0) await new Promise((resolve) => setTimeout(resolve, ms));
      },
      async stop() {
        if (stopped) return;
        stopped = true;
        await metricsListener?.close();
        await app.close();
        await ctx.jobs.stop();
        await ctx.rateLimits.close();
        ctx.mail.close();
        await database.close();
      },
    };
  } catch (error) {
    await jobs?.stop().catch(() => {});
    await database.close().catch(() => {});
    throw error;
  }
}

/** The HTTP app, its routes' plugins loaded (`app.ready()`), with the service's own gauges. */
async function readyApp(ctx: AppContext, options: ServiceOptions): Promise<FastifyInstance> {
  const app = await buildApp(ctx, { logStream: options.logStream });
  new Gauge({
    name: 'rate_limit_store_degraded',
    help: '1 while the shared rate-limit store (Redis) is unreachable and this instance counts alone',
    registers: [ctx.metrics.registry],
    collect() {
      this.set(ctx.rateLimits.health?.() === 'degraded' ? 1 : 0);
    },
  });
  await app.ready();
  return app;
}
