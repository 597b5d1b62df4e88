import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usingPostgres } from '../helpers/database.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

/**
 * Found by the scale-out test: /readyz pinged through the pool that requests and jobs share, so a
 * busy job round made every instance fail its health checks at once and the balancer had no server
 * left. The check has a connection of its own on PostgreSQL (PGlite has one connection by design).
 */
describe.runIf(usingPostgres())('/readyz while every pooled connection is busy', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService({ databasePoolSize: 2 });
  });
  afterAll(async () => t?.close());

  it('answers ready at once, not after the busy statements', async () => {
    expect((await t.request({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
    const busy = Array.from({ length: 2 }, () => sql`SELECT pg_sleep(4)`.execute(t.db));
    try {
      // The pool is taken: an ordinary query would now wait for the sleeps.
      const blocked = await Promise.race([
        sql`SELECT 1`.execute(t.db).then(() => 'answered'),
        new Promise((resolve) => setTimeout(() => resolve('waiting'), 1000)),
      ]);
      expect(blocked).toBe('waiting');
      // Ready answers while the statements still hold the pool, not once they are done.
      const first = await Promise.race([
        t.request({ method: 'GET', url: '/readyz' }).then((ready) => ready),
        Promise.all(busy).then(() => 'pool freed' as const),
      ]);
      expect(first === 'pool freed' ? first : first.statusCode).toBe(200);
    } finally {
      await Promise.all(busy);
    }
  });
});
