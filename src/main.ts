import { startAdminSocket, type AdminSocket } from './infra/admin-socket.ts';
import { loadConfig, type Config } from './infra/config.ts';
import { describeStartupFailure } from './infra/startup-errors.ts';
import type { MetricsListener } from './infra/observability/metrics.ts';
import { createService, type Service } from './service.ts';

let config: Config | undefined;
let service: Service | undefined;
let adminSocket: AdminSocket | null = null;
let metrics: MetricsListener | null = null;
try {
  config = loadConfig();
  service = await createService(config);
  await service.startWorkers();
  await service.app.listen({ port: config.port, host: config.host });
  metrics = await service.listenMetrics();
  adminSocket = await serveAdminCommands(config, service);
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

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  app.log.info({ signal }, 'shutting down: finishing in-flight requests and jobs');
  const force = setTimeout(() => {
    app.log.error('shutdown took too long; exiting');
    process.exit(1);
  }, config!.shutdownDrainMs + 30_000);
  force.unref();
  try {
    await service!.drain(config!.shutdownDrainMs);
    await adminSocket?.close();
    await service!.stop();
    process.exit(0);
  } catch (error) {
    app.log.error({ err: error }, 'unclean shutdown');
    process.exit(1);
  }
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));

/** The running service, for what runs in this process after it (`npm run demo`: src/sandbox/live.ts). */
export { service };
