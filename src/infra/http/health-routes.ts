import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { migrationsApplied, ping } from '../db/database.ts';

const Health = Type.Object({
  status: Type.String(),
  database: Type.Optional(Type.String()),
  migrations: Type.Optional(Type.String()),
});

export async function healthRoutes(app: FastifyInstance): Promise<void> {
  let migrated = false;

  app.get(
    '/healthz',
    {
      schema: { tags: ['operations'], summary: 'Process liveness', security: [], response: { 200: Health } },
    },
    async () => ({ status: 'ok' }),
  );

  app.get(
    '/readyz',
    {
      schema: {
        tags: ['operations'],
        summary: 'Readiness: database reachable and migrations applied',
        security: [],
        response: { 200: Health, 503: Health },
      },
    },
    async (_request, reply) => {
      try {
        await ping(app.ctx.db);
        migrated ||= await migrationsApplied(app.ctx.db);
      } catch {
        reply.header('Retry-After', '5');
        return reply.code(503).send({ status: 'unavailable', database: 'unreachable' });
      }
      if (!migrated)
        return reply.code(503).send({ status: 'unavailable', database: 'ok', migrations: 'pending' });
      return { status: 'ok', database: 'ok', migrations: 'applied' };
    },
  );
}
