import { startAdminSocket, type AdminSocket } from './infra/admin-socket.ts';
import type { Config } from './infra/config.ts';
import { describeStartupFailure } from './infra/startup-errors.ts';
import type { MetricsListener } from './infra/observability/metrics.ts';
import { createService, type Service } from './service.ts';

/**
 * Runs the service as this process's server: `createService` on the configuration `load` returns, then
 * the HTTP listener, the job workers, the metrics listener and the admin socket. A start-up failure
 * (including a configuration `load` refuses) exits with one clean line naming the setting and a
 * documented code (src/infra/startup-errors.ts, docs/operations.md); SIGTERM and SIGINT drain and stop
 * it (from the end of createService on). Resolves once the service listens. `node src/main.ts` runs it
 * on the environment's configuration; the live demo sandbox (simulator/live.ts) on the same with the
 * platform simulator's URL.
 */
export async function serve(load: () => Config): Promise<Service> {
  let config: Config | undefined;
  let service: Service | undefined;
  // Set by the start-up steps below, in a function: typed as such so the checker does not narrow them to null.
  let adminSocket = null as AdminSocket | null;
  let metrics = null as MetricsListener | null;
  /** The steps after createService (listen, workers, metrics, admin socket); a shutdown waits for them. */
  let starting: Promise<void> | null = null;
  let stopping = false;
  async function shutdown(signal: string) {
    if (stopping) return;
    stopping = true;
    const running = service!;
    const drainMs = config!.shutdownDrainMs;
    const { app } = running;
    app.log.info({ signal }, 'shutting down: finishing in-flight requests and jobs');
    const force = setTimeout(() => {
      app.log.error('shutdown took too long; exiting');
      process.exit(1);
    }, drainMs + 30_000);
    force.unref();
    try {
      // A failed start-up exits on its own (below).
      await starting;
      await running.drain(drainMs);
      await adminSocket?.close();
      await running.stop();
      process.exit(0);
    } catch (error) {
      app.log.error({ err: error }, 'unclean shutdown');
      process.exit(1);
    }
  }

  try {
    config = load();
    const running = await createService(config);
    service = running;
    // From here a signal shuts the service down cleanly (once the steps below are done) instead of
    // killing the process: a balancer or the bench may stop it as soon as /readyz answers 200.
    process.on('SIGTERM', () => void shutdown('SIGTERM'));
    process.on('SIGINT', () => void shutdown('SIGINT'));
    const settings = config;
    starting = (async () => {
      await running.app.listen({ port: settings.port, host: settings.host });
      // After listening: /readyz answers for the database, the migrations and the job queue, which
      // createService has made ready; requests may enqueue jobs before the workers poll for them.
      await running.startWorkers();
      metrics = await running.listenMetrics();
      adminSocket = await serveAdminCommands(settings, running);
    })();
    await starting;
  } catch (error) {
    const failure = describeStartupFailure(error, config);
    console.error(`brand-health: ${failure.message}`);
    if (config?.logLevel === 'debug' || config?.logLevel === 'trace') console.error(error);
    await adminSocket?.close().catch(() => {});
    await service?.stop().catch(() => {});
    process.exit(failure.exitCode);
  }

  service.app.log.info(
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
  return service;
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
