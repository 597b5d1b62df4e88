import module from 'node:module';
import { fileURLToPath } from 'node:url';
import { startAdminSocket, type AdminSocket } from './infra/admin-socket.ts';
import { loadConfig, type Config } from './infra/config.ts';
import { describeStartupFailure } from './infra/startup-errors.ts';
import type { MetricsListener } from './infra/observability/metrics.ts';
import type { Service } from './service.ts';

// Node keeps each module's type-stripped source and compiled code in this folder (keyed by the
// source's hash) and reuses them at the next start: half the time spent loading the service's
// modules (docs/performance.md, "Cold start"). Beside the code it caches, so it is exactly as
// trusted. NODE_COMPILE_CACHE=<dir> puts it elsewhere, NODE_DISABLE_COMPILE_CACHE=1 turns it off;
// an unwritable folder only means no cache. Enabled before the service's modules are imported.
module.enableCompileCache(fileURLToPath(new URL('../.cache/node-compile', import.meta.url)));
const { createService } = await import('./service.ts');

let config: Config | undefined;
let service: Service | undefined;
// Set by the start-up steps below, in a function: typed as such so the checker does not narrow them to null.
let adminSocket = null as AdminSocket | null;
let metrics = null as MetricsListener | null;
let stopping = false;
/** The steps after createService (listen, workers, metrics, admin socket); a shutdown waits for them. */
let starting: Promise<void> | null = null;
try {
  config = loadConfig();
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
  // One clean line naming the setting and the cause, and a documented exit code
  // (src/infra/startup-errors.ts, docs/operations.md); the stack only when debugging.
  const failure = describeStartupFailure(error, config);
  console.error(`brand-health: ${failure.message}`);
  if (config?.logLevel === 'debug' || config?.logLevel === 'trace') console.error(error);
  await adminSocket?.close().catch(() => {});
  await service?.stop().catch(() => {});
  process.exit(failure.exitCode);
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

async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  const { app } = service!;
  app.log.info({ signal }, 'shutting down: finishing in-flight requests and jobs');
  const force = setTimeout(() => {
    app.log.error('shutdown took too long; exiting');
    process.exit(1);
  }, config!.shutdownDrainMs + 30_000);
  force.unref();
  try {
    // A failed start-up exits on its own (above).
    await starting;
    await service!.drain(config!.shutdownDrainMs);
    await adminSocket?.close();
    await service!.stop();
    process.exit(0);
  } catch (error) {
    app.log.error({ err: error }, 'unclean shutdown');
    process.exit(1);
  }
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
// Written now rather than at exit, which a killed process never reaches.
module.flushCompileCache();

/** The running service, for what runs in this process after it (`npm run demo`: src/sandbox/live.ts). */
export { service };
