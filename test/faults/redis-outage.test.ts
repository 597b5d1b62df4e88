import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PLAN_LIMITS } from '../../src/core/catalog.ts';
import { startTestService, workspaceWithKey, type TestService } from '../helpers/service.ts';
import { freePort } from './support.ts';

// The rate-limit store (Redis) unreachable in two ways: a server that accepts TCP connections and
// never answers (a hung Redis, a black-holing proxy) and a closed port (Redis down). Requests must
// not wait on it: each stays under a second (a Redis command is bounded at 250 ms and a failure
// opens a 5 s breaker), readiness says the limiter is degraded while the instance keeps serving,
// and each key's limit is still enforced, counted by the instance alone.
const LATENCY_BOUND_MS = 1_000;

async function blackHole(): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('data', () => {}); // read everything, answer nothing
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `redis://127.0.0.1:${port}`,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe.each([
  ['accepts connections and never answers', 'black-hole'],
  ['refuses connections (closed port)', 'closed'],
] as const)('Redis that %s', (_label, kind) => {
  let t: TestService;
  let hole: Awaited<ReturnType<typeof blackHole>> | undefined;
  beforeAll(async () => {
    hole = kind === 'black-hole' ? await blackHole() : undefined;
    const url = hole?.url ?? `redis://127.0.0.1:${await freePort()}`;
    t = await startTestService({ redisUrl: url });
  });
  afterAll(async () => {
    const started = performance.now();
    await t?.close();
    // Shutdown does not wait on the dead Redis either.
    expect(performance.now() - started).toBeLessThan(5_000);
    await hole?.close();
  });

  it('keeps every request fast, reports the degradation and still enforces the limit', async () => {
    const { key } = await workspaceWithKey(t.db, { plan: 'pro' });
    const limit = PLAN_LIMITS.pro.requestsPerMinute;
    // Fixed one-minute windows: start in a fresh one so the whole run counts in one window.
    const intoWindow = Date.now() % 60_000;
    if (intoWindow > 30_000) await new Promise((r) => setTimeout(r, 60_000 - intoWindow + 50));
    const latencies: number[] = [];
    const statuses: number[] = [];
    for (let i = 0; i < limit + 1; i++) {
      const started = performance.now();
      const res = await t.request({ method: 'GET', url: '/v1/workspace', key });
      latencies.push(performance.now() - started);
      statuses.push(res.statusCode);
    }
    latencies.sort((a, b) => a - b);
    console.info(
      `Redis ${kind}: ${limit + 1} requests, p50 ${latencies[Math.floor(limit / 2)]!.toFixed(1)} ms, ` +
        `max ${latencies.at(-1)!.toFixed(1)} ms`,
    );
    expect(latencies.at(-1), 'slowest request (ms)').toBeLessThan(LATENCY_BOUND_MS);
    // Counted in process while Redis is away: the limit holds (neither fail-open nor fail-closed).
    expect(statuses.slice(0, limit)).toEqual(Array(limit).fill(200));
    expect(statuses[limit]).toBe(429);

    const ready = await t.request({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({
      status: 'ok',
      database: 'ok',
      migrations: 'applied',
      rate_limits: 'degraded',
    });
    const listener = await t.service.listenMetrics();
    const metrics = await (await fetch(`${listener!.url}/metrics`)).text();
    expect(metrics).toMatch(/^rate_limit_store_degraded 1$/m);
  });
});
