// The process under test for the HTTP scenarios: the real service and, next to it in the same process,
// the bare "limit" servers. Driven by the bench over IPC (see server-process.ts). Kept apart from the
// bench process so its RSS is the service's own, not the data generator's or the load generator's.
import Fastify, { type FastifyInstance } from 'fastify';
import { loadConfig } from '../../src/infra/config.ts';
import { createService } from '../../src/service.ts';
import { startCpuProfile } from '../profiler.ts';
import { RssSampler } from '../rss.ts';
import type { ServerReply, ServerRequest } from './server-process.ts';

const env = process.env;
const now = env.BENCH_NOW ? new Date(env.BENCH_NOW) : null;
const config = {
  ...loadConfig({
    LOG_LEVEL: 'warn',
    AUTH_CACHE_TTL_MS: env.AUTH_CACHE_TTL_MS,
    RUN_WORKERS: env.RUN_WORKERS,
    SCORE_CACHE_TTL_MS: env.SCORE_CACHE_TTL_MS,
  }),
  databaseUrl: env.BENCH_DATABASE_URL || null,
  dataDir: env.BENCH_DATA_DIR ?? 'memory://',
};
const rss = new RssSampler(100);
const service = await createService(config, { dataDir: config.dataDir, ...(now ? { now: () => now } : {}) });
await service.startWorkers();
const address = await service.app.listen({ port: 0, host: '127.0.0.1' });
const limits = new Map<number, FastifyInstance>();
let stopProfile: ((file: string) => Promise<string>) | null = null;

/**
 * The ceiling for one scenario: a bare Fastify route with nothing but the same response bytes
 * from memory, so the ratio measures what the service adds (auth, validation, queries, serialisation).
 */
async function startLimit(body: string, contentType: string): Promise<number> {
  const bytes = Buffer.from(body);
  const app = Fastify({ logger: false });
  app.get('/*', (_request, reply) => {
    reply.header('content-type', contentType).send(bytes);
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as { port: number }).port;
  limits.set(port, app);
  return port;
}

async function handle(message: ServerRequest): Promise<ServerReply> {
  switch (message.type) {
    case 'limit':
      return { id: message.id, port: await startLimit(message.body, message.contentType) };
    case 'close-limit':
      await limits.get(message.port)?.close();
      limits.delete(message.port);
      return { id: message.id };
    case 'rss':
      return { id: message.id, rss: rss.snapshot() };
    case 'cpu': {
      const { user, system } = process.cpuUsage();
      return { id: message.id, cpuUs: user + system };
    }
    case 'reset-rss':
      rss.resetPeak();
      return { id: message.id };
    case 'profile-start':
      stopProfile = await startCpuProfile();
      return { id: message.id };
    case 'profile-stop':
      await stopProfile?.(message.file);
      stopProfile = null;
      return { id: message.id };
    case 'stop':
      rss.stop();
      for (const app of limits.values()) await app.close();
      await service.stop();
      return { id: message.id, rss: rss.snapshot() };
  }
}

process.on('message', (message: ServerRequest) => {
  handle(message).then(
    (reply) => {
      process.send!(reply);
      if (message.type === 'stop') process.disconnect();
    },
    (error: unknown) => process.send!({ id: message.id, error: String((error as Error)?.stack ?? error) }),
  );
});
process.send!({ id: 0, url: address, rss: rss.snapshot() });
