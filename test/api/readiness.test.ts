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
      const started = performance.now();
      const ready = await t.request({ method: 'GET', url: '/readyz' });
      expect(ready.statusCode, ready.body).toBe(200);
      expect(performance.now() - started).toBeLessThan(2500);
    } finally {
      await Promise.all(busy);
    }
  });
});
