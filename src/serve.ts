import { startAdminSocket, type AdminSocket } from './infra/admin-socket.ts';
import type { Config } from './infra/config.ts';
import { describeStartupFailure } from './infra/startup-errors.ts';
import type { MetricsListener } from './infra/observability/metrics.ts';
import { createService, type Service } from './service.ts';

/**
 * Runs the service as this process's server: `createService` on the configuration `load` returns, then
 * the job workers, the HTTP listener, the metrics listener and the admin socket. A start-up failure
 * (including a configuration `load` refuses) exits with one clean line naming the setting and a
 * documented code (src/infra/startup-errors.ts, docs/operations.md); SIGTERM and SIGINT drain and stop
 * it. Resolves once the service listens. `node src/main.ts` runs it on the environment's configuration;
 * the live demo sandbox (simulator/live.ts) on the same with the platform simulator's URL.
 */
export async function serve(load: () => Config): Promise<Service> {
  let config: Config | undefined;
  let service: Service | undefined;
  let adminSocket: AdminSocket | null = null;
  let metrics: MetricsListener | null = null;
  try {
    config = load();
    service = await createService(config);
    await service.startWorkers();
    await service.app.listen({ port: config.port, host: config.host });
    metrics = await service.listenMetrics();
    adminSocket = await serveAdminCommands(config, service);
  } catch (error) {
    const failure = describeStartupFailure(error, config);
    console.error(`brand-health: ${failure.message}`);
    if (config?.logLevel === 'debug' || config?.logLevel === 'trace') console.error(error);
    await adminSocket?.close().catch(() => {});
    await service?.stop().catch(() => {});
    process.exit(failure.exitCode);
  }

  const { app } = service;
  app.log.info(
    {
      database: service.ctx.database.kind,
      docs: '/reference',
      swaggerUi: '/docs',
      openapi: '/openapi.json',
      metrics: metrics?.url ?? 'off',
      // `npm start` adds V8 flags that bound memory (docs/operations.md); a bare `node src/main.ts` has none.
      nodeFlags: process.execArgv.join(' ') || 'none',
    },
    'brand-health is ready',
  );

  const running = service;
  const drainMs = config.shutdownDrainMs;
  let stopping = false;
  async function shutdown(signal: string) {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'shutting down: finishing in-flight requests and jobs');
    const force = setTimeout(() => {
      app.log.error('shutdown took too long; exiting');
      process.exit(1);
    }, drainMs + 30_000);
    force.unref();
    try {
      await running.drain(drainMs);
      await adminSocket?.close();
      await running.stop();
      process.exit(0);
    } catch (error) {
      app.log.error({ err: error }, 'unclean shutdown');
      process.exit(1);
    }
  }
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  return running;
}

/** The admin CLI's commands, run on this service's context for a CLI on the admin socket. */
async function serveAdminCommands(config: Config, running: Service): Promise<AdminSocket | null> {
  if (!config.adminSocket) return null;
  const { runCli } = await import('./cli/program.ts');
  return startAdminSocket(
    config.adminSocket,
    (argv, io) => runCli(argv, io, (fn) => fn(running.ctx)),
    (reason) =>
      running.app.log.warn({ reason }, 'admin socket not available; the CLI will open the database itself'),
  );
}
