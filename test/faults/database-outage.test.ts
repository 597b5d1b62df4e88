import pg from 'pg';
import { createApiKey } from '../../src/admin/keys.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usingPostgres } from '../helpers/database.ts';
import { startTestService, workspaceWithKey, type TestService } from '../helpers/service.ts';
import { expectProblemJson, http, listenOnLoopback, problemOf, until, type HttpResult } from './support.ts';

// PostgreSQL under the service goes away while requests keep coming: its backends are killed
// again and again, then the database refuses connections for a while. Requests must fail fast
// with 503 problem+json and Retry-After (never a 500, never a hang), /readyz must say 503, and
// the service must come back by itself. PostgreSQL only: it is the server that goes away.
describe.runIf(usingPostgres())('PostgreSQL restarted under load', () => {
  let t: TestService;
  let origin: string;
  let key: string;
  const loadKeys: string[] = [];
  let admin: pg.Client;
  let dbName: string;

  beforeAll(async () => {
    // As in production: job workers running (their polls fail too) and the 5 s auth cache, so
    // some requests authenticate from memory and fail in the handler's query, others fail while
    // authenticating; both must answer 503.
    t = await startTestService({ runWorkers: true }, { AUTH_CACHE_TTL_MS: '5000' });
    await t.service.startWorkers();
    let workspaceId: string;
    ({
      key,
      workspace: { id: workspaceId },
    } = await workspaceWithKey(t.db, { plan: 'enterprise' }, { platforms: [{ platform: 'instagram' }] }));
    // One key per load client: the test measures outages, not the per-key rate limit.
    for (let i = 0; i < 4; i++) loadKeys.push((await createApiKey(t.db, { workspaceId })).key);
    origin = await listenOnLoopback(t.app);
    dbName = new URL(t.ctx.database.connectionString!).pathname.slice(1);
    admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.query(`ALTER DATABASE ${dbName} ALLOW_CONNECTIONS true`).catch(() => {});
    await admin?.end();
    await t?.close();
  });

  const terminateBackends = () =>
    admin.query(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
      [dbName],
    );

  /** A request may succeed or fail with a proper 503 while the database is unstable; nothing else. */
  function expectOkOr503(res: HttpResult, what: string) {
    if (res.status === 200) return;
    expectProblemJson(problemOf(res), 503, 'Service Unavailable');
    expect(res.headers.get('retry-after'), what).toMatch(/^\d+$/);
  }

  /** Keeps `workers` clients busy on a database-backed endpoint until `stop()`; returns every answer. */
  function load(workers: number) {
    let running = true;
    const results: HttpResult[] = [];
    const loops = loadKeys.slice(0, workers).map(async (loadKey) => {
      while (running) {
        results.push(await http(origin, 'GET', '/v1/workspace', { key: loadKey, timeoutMs: 30_000 }));
      }
    });
    return {
      results,
      async stop() {
        running = false;
        await Promise.all(loops);
        return results;
      },
    };
  }

  const healthy = async () => {
    const [ready, ws] = await Promise.all([
      http(origin, 'GET', '/readyz'),
      http(origin, 'GET', '/v1/workspace', { key }),
    ]);
    return ready.status === 200 && ws.status === 200 ? true : undefined;
  };

  it('answers 200 or 503 while its connections are killed repeatedly, then recovers', async () => {
    expect(await healthy()).toBe(true);
    const traffic = load(4);
    const until3s = Date.now() + 3000;
    let killed = 0;
    while (Date.now() < until3s) {
      killed += (await terminateBackends()).rowCount ?? 0;
      await new Promise((r) => setTimeout(r, 100));
    }
    const results = await traffic.stop();
    expect(killed, 'backends terminated').toBeGreaterThan(0);
    const unavailable = results.filter((r) => r.status === 503).length;
    console.info(
      `backend kills: ${killed} backends terminated, ${results.length} requests, ${unavailable} answered 503`,
    );
    expect(results.length).toBeGreaterThan(10);
    for (const res of results) {
      expectOkOr503(res, 'under repeated backend termination');
      expect(res.ms, 'a request took too long').toBeLessThan(10_000);
    }
    // Recovery without a restart: the pool reconnects on its own.
    await until('the service to answer 200 again', healthy, { timeoutMs: 20_000, intervalMs: 200 });
  });

  it('fails fast with 503 and Retry-After while the database refuses connections, then recovers', async () => {
    await admin.query(`ALTER DATABASE ${dbName} ALLOW_CONNECTIONS false`);
    try {
      // A connection whose handshake began before the ALTER can still land: kill until none is left.
      await until(
        'the service to have no connection left',
        async () => {
          await terminateBackends();
          const { rows } = await admin.query(
            'SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
            [dbName],
          );
          return rows[0].n === 0 ? true : undefined;
        },
        { timeoutMs: 10_000, intervalMs: 50 },
      );
      const awayUntil = Date.now() + 4000;
      const seen: HttpResult[] = [];
      while (Date.now() < awayUntil) {
        // /readyz pings the database on every call; /v1/workspace needs it for the key and the data.
        const [ws, ready] = await Promise.all([
          http(origin, 'GET', '/v1/workspace', { key, timeoutMs: 30_000 }),
          http(origin, 'GET', '/readyz', { timeoutMs: 30_000 }),
        ]);
        seen.push(ws);
        expect(ready.status).toBe(503);
        expect(ready.headers.get('retry-after')).toMatch(/^\d+$/);
        expect(ready.json).toMatchObject({ status: 'unavailable', database: 'unreachable' });
        expect(ready.ms).toBeLessThan(10_000);
        await terminateBackends(); // pg-boss or a racing pool connection slipping in
      }
      expect(seen.length).toBeGreaterThan(1);
      for (const res of seen) {
        expectProblemJson(problemOf(res), 503, 'Service Unavailable');
        expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
        // The pool's connect timeout is 3 s; the request timeout is 30 s.
        expect(res.ms, 'a request while the database is away took too long').toBeLessThan(5_000);
      }
    } finally {
      await admin.query(`ALTER DATABASE ${dbName} ALLOW_CONNECTIONS true`);
    }
    await until('the service to answer 200 again', healthy, { timeoutMs: 20_000, intervalMs: 200 });
    // Writes work again too.
    const run = await http(origin, 'POST', '/v1/audit/run', { key, body: {} });
    expect(run.status).toBe(200);
  });
});
