import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/admin/keys.ts';
import { expectProblem, startTestService, workspaceWithKey, type TestService } from '../helpers/service.ts';
import { PLAN_LIMITS } from '../../src/core/catalog.ts';

let t: TestService;
beforeAll(async () => {
  t = await startTestService({ authCacheTtlMs: 60_000 });
});
afterAll(async () => t?.close());

async function burst(service: TestService, key: string, n: number) {
  const out = [];
  for (let i = 0; i < n; i++) out.push(await service.request({ method: 'GET', url: '/v1/workspace', key }));
  return out;
}

describe('per-key rate limits', () => {
  it('answers the request past the plan limit with 429, Retry-After and RateLimit headers', async () => {
    // A free key is denied the endpoint (403) but is still counted: limits apply before plan checks.
    const { key } = await workspaceWithKey(t.db, { plan: 'free' });
    const limit = PLAN_LIMITS.free.requestsPerMinute;
    const responses = await burst(t, key, limit);
    expect(responses.every((r) => r.statusCode === 403)).toBe(true);
    expect(responses.at(-1)!.headers['ratelimit']).toMatch(/^"per-key";r=0;t=\d+$/);
    expect(responses[0]!.headers['ratelimit-policy']).toBe(`"per-key";q=${limit};w=60`);
    const limited = await t.request({ method: 'GET', url: '/v1/workspace', key });
    expectProblem(limited, 429, 'Rate Limited');
    const retryAfter = Number(limited.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // Another key of the same workspace has its own budget.
    const other = await createApiKey(t.db, {
      workspaceId: (
        await t.db
          .selectFrom('api_keys')
          .select('workspace_id')
          .where('id', '=', `key_${key.split('_')[2]}`)
          .executeTakeFirstOrThrow()
      ).workspace_id!,
    });
    expectProblem(
      await t.request({ method: 'GET', url: '/v1/workspace', key: other.key }),
      403,
      'Plan Required',
    );
  });
});

/** A free key whose row exists in both instances' databases (each has its own database). */
async function keyInBoth(a: TestService, b: TestService): Promise<string> {
  const { key, keyId, workspace } = await workspaceWithKey(a.db, { plan: 'free' });
  const row = await a.db.selectFrom('api_keys').selectAll().where('id', '=', keyId).executeTakeFirstOrThrow();
  await b.db
    .insertInto('workspaces')
    .values({ id: workspace.id, name: workspace.name, plan: 'free' })
    .execute();
  await b.db
    .insertInto('api_keys')
    .values({ ...row, created_at: undefined, last_used_at: null })
    .execute();
  return key;
}

describe.runIf(process.env.TEST_REDIS_URL)('rate limits shared through Redis', () => {
  it('two instances enforce one limit for a key', async () => {
    const redisUrl = process.env.TEST_REDIS_URL!;
    // A Redis command slower than its 250 ms timeout (a loaded machine) makes an instance count on its
    // own for a while, by design (docs/adr/0149-redis-outage-per-instance-limits.md); the services log
    // it, and an attempt it touched proves nothing about sharing.
    let degraded = 0;
    const logStream = new Writable({
      write(chunk, _encoding, done) {
        if (String(chunk).includes('rate limit store unavailable')) degraded++;
        done();
      },
    });
    const env = { LOG_LEVEL: 'warn' };
    const a = await startTestService({ redisUrl, authCacheTtlMs: 60_000 }, env, { logStream });
    const b = await startTestService({ redisUrl, authCacheTtlMs: 60_000 }, env, { logStream });
    try {
      const limit = PLAN_LIMITS.free.requestsPerMinute;
      // Windows are fixed minutes of the real clock: a run that crosses a minute boundary starts a new
      // window halfway and proves nothing, so it is run again with a fresh key (at most three times).
      for (let attempt = 1; ; attempt++) {
        const minute = Math.floor(Date.now() / 60_000);
        const degradedBefore = degraded;
        const key = await keyInBoth(a, b);
        await burst(a, key, limit / 2);
        await burst(b, key, limit / 2);
        const [fromA, fromB] = [
          await a.request({ method: 'GET', url: '/v1/workspace', key }),
          await b.request({ method: 'GET', url: '/v1/workspace', key }),
        ];
        const untouched = Math.floor(Date.now() / 60_000) === minute && degraded === degradedBefore;
        if (!untouched && attempt < 3) {
          // Past the breaker's open time, so the next attempt counts in Redis again.
          await new Promise((resolve) => setTimeout(resolve, 5_000));
          continue;
        }
        expectProblem(fromA, 429, 'Rate Limited');
        expectProblem(fromB, 429, 'Rate Limited');
        break;
      }
    } finally {
      await a.close();
      await b.close();
    }
  });
});
