import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { json } from './schemas.ts';
import { migrationsApplied } from '../db/database.ts';

const Health = Type.Object(
  {
    status: Type.Enum(['ok', 'unavailable']),
    database: Type.Optional(Type.Enum(['ok', 'unreachable'])),
    migrations: Type.Optional(Type.Enum(['applied', 'pending'])),
    /**
     * `degraded`: the shared rate-limit store (Redis) is unreachable and this instance enforces
     * each key's limit on its own; the instance still serves (200).
     */
    rate_limits: Type.Optional(Type.Enum(['ok', 'degraded'])),
  },
  { $id: 'Health' },
);

export async function healthRoutes(app: FastifyInstance): Promise<void> {
  let migrated = false;

  app.get(
    '/healthz',
    {
      schema: {
        operationId: 'getLiveness',
        tags: ['operations'],
        summary: 'Process liveness',
        description: 'Answers 200 while the process runs; needs no key and no database.',
        security: [],
        response: { 200: json(Health, 'Alive', { status: 'ok' }) },
      },
    },
    async () => ({ status: 'ok' }),
  );

  app.get(
    '/readyz',
    {
      schema: {
        operationId: 'getReadiness',
        tags: ['operations'],
        summary: 'Readiness: database reachable and migrations applied',
        description:
          'Answers 200 when the database is reachable and migrated, 503 with Retry-After otherwise (also while the instance drains before shutting down). `rate_limits: degraded` on a 200 says the shared rate-limit store (Redis) is unreachable and this instance counts limits on its own.',
        security: [],
        response: {
          200: json(Health, 'Ready', {
            status: 'ok',
            database: 'ok',
            migrations: 'applied',
            rate_limits: 'ok',
          }),
          503: json(Health, 'Not ready (honour Retry-After)', {
            status: 'unavailable',
            database: 'unreachable',
          }),
        },
      },
    },
    async (_request, reply) => {
      // Shutting down (src/infra/http/drain.ts): out of the balancer before the listener closes.
      if (app.drain.active) {
        reply.header('Retry-After', '5');
        return reply.code(503).send({ status: 'unavailable' });
      }
      try {
        await app.ctx.database.ping();
        migrated ||= await migrationsApplied(app.ctx.db);
      } catch {
        reply.header('Retry-After', '5');
        return reply.code(503).send({ status: 'unavailable', database: 'unreachable' });
      }
      if (!migrated)
        return reply.code(503).send({ status: 'unavailable', database: 'ok', migrations: 'pending' });
      // A Redis outage does not take the instance out of rotation: every instance shares the one
      // Redis, so 503 here would turn it into an outage of the whole API
      // (docs/adr/0149-redis-outage-per-instance-limits.md).
      return {
        status: 'ok',
        database: 'ok',
        migrations: 'applied',
        rate_limits: app.ctx.rateLimits.health?.() ?? 'ok',
      };
    },
  );
}
