import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/admin/keys.ts';
import { createWorkspace } from '../../src/admin/workspaces.ts';
import { anyPrincipal, authPlugin } from '../../src/infra/auth/auth-plugin.ts';
import { Authenticator } from '../../src/infra/auth/authenticator.ts';
import { openDatabase, type Database } from '../../src/infra/db/database.ts';
import { errorsPlugin } from '../../src/infra/http/errors-plugin.ts';
import { MemoryRateLimitStore } from '../../src/infra/ratelimit/store.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';

// The auth plugin on a bare Fastify (plus the errors plugin that renders its problems) over a
// real database from the test image: keys, scopes, plans and the per-key rate limit.
let testDb: TestDatabase;
let database: Database;
let app: FastifyInstance;
const keys: Record<string, string> = {};

beforeAll(async () => {
  testDb = await createTestDatabase({ migrated: true });
  database = await openDatabase({
    databaseUrl: testDb.databaseUrl,
    dataDir: testDb.dataDir,
    pgliteImage: testDb.pgliteImage,
    poolSize: 2,
  });
  app = Fastify({ logger: false });
  await errorsPlugin(app);
  await authPlugin(app, {
    authenticator: new Authenticator(database.db, 0),
    rateLimits: new MemoryRateLimitStore(),
  });
  app.get('/open', async () => ({ open: true }));
  app.post('/read', { config: { auth: { audience: 'workspace', scope: 'read' } } }, async (request) => ({
    kind: anyPrincipal(request).kind,
  }));
  app.get('/write', { config: { auth: { audience: 'workspace', scope: 'write' } } }, async () => ({}));
  app.get(
    '/pro',
    { config: { auth: { audience: 'workspace', scope: 'read', plan: 'pro' } } },
    async () => ({}),
  );
  await app.ready();

  const free = await createWorkspace(database.db, { name: 'free', plan: 'free' });
  const pro = await createWorkspace(database.db, { name: 'pro', plan: 'pro' });
  keys.freeRead = (await createApiKey(database.db, { workspaceId: free.id }, { scopes: ['read'] })).key;
  keys.proRead = (await createApiKey(database.db, { workspaceId: pro.id }, { scopes: ['read'] })).key;
});
afterAll(async () => {
  await app?.close();
  await database?.close();
  await testDb?.drop();
});

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

describe('auth plugin', () => {
  it('leaves routes without config.auth open', async () => {
    expect((await app.inject({ method: 'GET', url: '/open' })).statusCode).toBe(200);
  });

  it('answers 401 with WWW-Authenticate before parsing the body of an unauthenticated request', async () => {
    for (const headers of [{}, bearer('bh_live_not_a_real_key')]) {
      const res = await app.inject({
        method: 'POST',
        url: '/read',
        headers: { ...headers, 'content-type': 'application/json' },
        payload: '{"not json',
      });
      expect(res.statusCode).toBe(401);
      expect(res.headers['www-authenticate']).toContain('Bearer');
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    }
  });

  it('admits a valid key and reports the rate-limit policy and what is left of it', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/read',
      headers: bearer(keys.proRead!),
      payload: {},
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ kind: 'workspace' });
    expect(res.headers['ratelimit-policy']).toBe('"per-key";q=600;w=60');
    expect(res.headers['ratelimit']).toMatch(/^"per-key";r=599;t=\d+$/);
  });

  it('refuses a missing scope (403 Forbidden) and a plan below the route’s (403 Plan Required)', async () => {
    const scope = await app.inject({ method: 'GET', url: '/write', headers: bearer(keys.proRead!) });
    expect(scope.statusCode).toBe(403);
    expect(scope.json()).toMatchObject({ title: 'Forbidden' });
    const plan = await app.inject({ method: 'GET', url: '/pro', headers: bearer(keys.freeRead!) });
    expect(plan.statusCode).toBe(403);
    expect(plan.json()).toMatchObject({ title: 'Plan Required' });
  });

  it('answers 429 past the plan’s requests per minute', async () => {
    // The free plan allows 60 a minute; the plan test above spent one of this key's.
    const statuses: number[] = [];
    for (let i = 0; i < 60; i++) {
      const res = await app.inject({
        method: 'POST',
        url: '/read',
        headers: bearer(keys.freeRead!),
        payload: {},
      });
      statuses.push(res.statusCode);
    }
    expect(statuses.slice(0, 59).every((s) => s === 200)).toBe(true);
    expect(statuses[59]).toBe(429);
  });
});
