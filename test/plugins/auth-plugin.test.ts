import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, revokeApiKey } from '../../src/admin/keys.ts';
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
  app.post(
    '/read',
    { config: { auth: { audience: 'workspace', action: 'score.read' } } },
    async (request) => ({
      kind: anyPrincipal(request).kind,
    }),
  );
  app.get('/write', { config: { auth: { audience: 'workspace', action: 'audit.run' } } }, async () => ({}));
  app.get(
    '/pro',
    { config: { auth: { audience: 'workspace', action: 'score.read', plan: 'pro' } } },
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

describe('auth plugin with the key cache on (verified headers answered from memory)', () => {
  let cached: FastifyInstance;
  let authenticator: Authenticator;
  const TTL_MS = 60_000;

  beforeAll(async () => {
    authenticator = new Authenticator(database.db, TTL_MS);
    cached = Fastify({ logger: false });
    await errorsPlugin(cached);
    await authPlugin(cached, { authenticator, rateLimits: new MemoryRateLimitStore() });
    cached.get(
      '/read',
      { config: { auth: { audience: 'workspace', action: 'score.read' } } },
      async (request) => ({
        keyId: anyPrincipal(request).keyId,
      }),
    );
    await cached.ready();
  });
  afterAll(async () => {
    await cached?.close();
  });

  it('admits a repeated key from memory, still counting every request against its limit', async () => {
    const ws = await createWorkspace(database.db, { name: 'cached', plan: 'pro' });
    const { key } = await createApiKey(database.db, { workspaceId: ws.id }, { scopes: ['read'] });
    const remaining: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await cached.inject({ method: 'GET', url: '/read', headers: bearer(key) });
      expect(res.statusCode).toBe(200);
      remaining.push(String(res.headers['ratelimit']).split(';')[1]!);
    }
    expect(remaining).toEqual(['r=599', 'r=598', 'r=597']);
  });

  it('refuses a wrong secret, another mode or a mangled header for a key whose header is cached', async () => {
    const ws = await createWorkspace(database.db, { name: 'cached-wrong', plan: 'pro' });
    const { key } = await createApiKey(database.db, { workspaceId: ws.id }, { scopes: ['read'] });
    expect((await cached.inject({ method: 'GET', url: '/read', headers: bearer(key) })).statusCode).toBe(200);
    const last = key.at(-1) === 'A' ? 'B' : 'A';
    for (const wrong of [
      `Bearer ${key.slice(0, -1)}${last}`, // one character of the secret changed
      `Bearer ${key.replace(/^bh_live_/, 'bh_test_')}`,
      `Bearer ${key}x`,
      `Bearer ${key.slice(0, -1)}`,
    ]) {
      const res = await cached.inject({ method: 'GET', url: '/read', headers: { authorization: wrong } });
      expect(res.statusCode, wrong).toBe(401);
    }
    // The valid key is still admitted, and the same key in another accepted spelling too.
    expect((await cached.inject({ method: 'GET', url: '/read', headers: bearer(key) })).statusCode).toBe(200);
    const spaced = { authorization: `bearer   ${key}` };
    expect((await cached.inject({ method: 'GET', url: '/read', headers: spaced })).statusCode).toBe(200);
  });

  it('drops a forgotten key at once, sees a revocation after the TTL and checks expiry on every request', async () => {
    const ws = await createWorkspace(database.db, { name: 'cached-revoked', plan: 'pro' });
    const revoked = await createApiKey(database.db, { workspaceId: ws.id }, { scopes: ['read'] });
    const header = `Bearer ${revoked.key}`;
    const t0 = Date.now();
    expect(await authenticator.authenticate(header, t0)).not.toBeNull();
    expect(authenticator.authenticateCached(header, t0 + 1)).not.toBeUndefined();
    await revokeApiKey(database.db, revoked.id, new Date());
    // Within the TTL the cached verification stands (documented: revocation by another process
    // is seen within AUTH_CACHE_TTL_MS); after it, the key row is read again.
    expect(authenticator.authenticateCached(header, t0 + TTL_MS - 1)).not.toBeUndefined();
    expect(authenticator.authenticateCached(header, t0 + TTL_MS)).toBeUndefined();
    expect(await authenticator.authenticate(header, t0 + TTL_MS)).toBeNull();
    // In-process revocation: forget drops the verified header with the key.
    const other = await createApiKey(database.db, { workspaceId: ws.id }, { scopes: ['read'] });
    expect(
      (await cached.inject({ method: 'GET', url: '/read', headers: bearer(other.key) })).statusCode,
    ).toBe(200);
    await revokeApiKey(database.db, other.id, new Date());
    authenticator.forget(other.id);
    expect(
      (await cached.inject({ method: 'GET', url: '/read', headers: bearer(other.key) })).statusCode,
    ).toBe(401);

    const expiring = await createApiKey(
      database.db,
      { workspaceId: ws.id },
      { scopes: ['read'], expiresAt: new Date(t0 + 10_000) },
    );
    const expiringHeader = `Bearer ${expiring.key}`;
    expect(await authenticator.authenticate(expiringHeader, t0)).not.toBeNull();
    expect(authenticator.authenticateCached(expiringHeader, t0 + 9_999)).not.toBeNull();
    expect(authenticator.authenticateCached(expiringHeader, t0 + 10_000)).toBeNull();
  });
});
