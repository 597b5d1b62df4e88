import { ConfigError, loadConfig } from './infra/config.ts';
import { createService } from './service.ts';

let config;
try {
  config = loadConfig();
} catch (error) {
  if (error instanceof ConfigError) {
    console.error(`brand-health: invalid configuration: ${error.message}`);
    process.exit(78); // EX_CONFIG
  }
  throw error;
}

const service = await createService(config);
const { app } = service;
await service.startWorkers();
await app.listen({ port: config.port, host: config.host });
app.log.info(
  { database: service.ctx.database.kind, docs: '/docs', openapi: '/openapi.json' },
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
  }, 30_000);
  force.unref();
  try {
    await service.stop();
    process.exit(0);
  } catch (error) {
    app.log.error({ err: error }, 'unclean shutdown');
    process.exit(1);
  }
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
