import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/admin/keys.ts';
import { createWorkspace } from '../../src/admin/workspaces.ts';
import type { AppContext } from '../../src/context.ts';
import { authPlugin } from '../../src/infra/auth/auth-plugin.ts';
import { Authenticator } from '../../src/infra/auth/authenticator.ts';
import { parseKeyRing } from '../../src/infra/crypto/keyring.ts';
import { openDatabase, type Database } from '../../src/infra/db/database.ts';
import { errorsPlugin } from '../../src/infra/http/errors-plugin.ts';
import { idempotent } from '../../src/infra/http/idempotency.ts';
import { problems } from '../../src/infra/http/problem.ts';
import { DomainError } from '../../src/core/errors.ts';
import { MemoryRateLimitStore } from '../../src/infra/ratelimit/store.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';

// Idempotency keys on a bare Fastify (auth and errors plugins, test routes) over a real database
// from the test image: replay, reuse with another body, in-progress, stored 4xx, forgotten 5xx.
let testDb: TestDatabase;
let database: Database;
let app: FastifyInstance;
let key: string;
let runs = 0;
let release: (() => void) | null = null;

beforeAll(async () => {
  testDb = await createTestDatabase({ migrated: true });
  database = await openDatabase({
    databaseUrl: testDb.databaseUrl,
    dataDir: testDb.dataDir,
    pgliteImage: testDb.pgliteImage,
    poolSize: 4,
  });
  const ctx = {
    db: database.db,
    now: () => new Date(),
    keyRing: parseKeyRing(`t1:${Buffer.alloc(32, 7).toString('base64')}`),
  } as Pick<AppContext, 'db' | 'now' | 'keyRing'> as AppContext;
  app = Fastify({ logger: false });
  await errorsPlugin(app);
  await authPlugin(app, {
    authenticator: new Authenticator(database.db, 0),
    rateLimits: new MemoryRateLimitStore(),
  });
  const auth = { audience: 'workspace', action: 'audit.run' } as const;
  const tooEarly = {
    auditId: 'aud_1',
    estimatedCompletion: '2030-01-01T00:00:00.000Z',
    retryAfterSeconds: 9,
  };
  app.post('/things', { config: { auth, idempotencyKey: true } }, (request, reply) =>
    idempotent(ctx, request, reply, async () => {
      runs += 1;
      const body = request.body as { fail?: 'client' | 'domain' | 'server'; wait?: boolean };
      if (body.wait) await new Promise<void>((resolve) => (release = resolve));
      if (body.fail === 'client') throw problems.conflict('Taken', 'that name is taken');
      if (body.fail === 'domain') throw new DomainError('too_early', 'not yet', tooEarly);
      if (body.fail === 'server') throw new Error('our side broke');
      return { status: 201, body: { run: runs } };
    }),
  );
  await app.ready();
  const ws = await createWorkspace(database.db, { name: 'idem', plan: 'pro' });
  key = (await createApiKey(database.db, { workspaceId: ws.id }, { scopes: ['read', 'write'] })).key;
});
afterAll(async () => {
  await app?.close();
  await database?.close();
  await testDb?.drop();
});

const post = (idempotencyKey: string | undefined, payload: object) =>
  app.inject({
    method: 'POST',
    url: '/things',
    headers: {
      authorization: `Bearer ${key}`,
      ...(idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey }),
    },
    payload,
  });

describe('idempotency keys', () => {
  it('replays the first response for the same key and body, in any key order', async () => {
    const first = await post('k-1', { a: 1, b: 2 });
    expect(first.statusCode).toBe(201);
    const again = await post('k-1', { b: 2, a: 1 });
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(first.json());
    const without = await post(undefined, { a: 1, b: 2 });
    expect(without.json().run).toBe(first.json().run + 1);
  });

  it('refuses the same key with another body (422) and a malformed key (400)', async () => {
    await post('k-2', { a: 1 });
    const reused = await post('k-2', { a: 2 });
    expect(reused.statusCode).toBe(422);
    expect(reused.json().title).toBe('Idempotency Key Reused');
    const bad = await post('with space', { a: 1 });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().title).toBe('Invalid Idempotency Key');
  });

  it('answers 409 while the first request with the key is still running', async () => {
    const first = post('k-3', { wait: true });
    while (!release) await new Promise((r) => setTimeout(r, 5));
    const during = await post('k-3', { wait: true });
    expect(during.statusCode).toBe(409);
    expect(during.json().title).toBe('Request In Progress');
    release();
    release = null;
    expect((await first).statusCode).toBe(201);
  });

  it('stores a 4xx problem and replays it, but forgets a 5xx so the client can retry', async () => {
    const conflict = await post('k-4', { fail: 'client' });
    expect(conflict.statusCode).toBe(409);
    const replay = await post('k-4', { fail: 'client' });
    expect(replay.statusCode).toBe(409);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.headers['content-type']).toMatch(/^application\/problem\+json/);

    // A domain error is stored as the problem the edge table makes of it.
    const early = await post('k-6', { fail: 'domain' });
    expect(early.statusCode).toBe(425);
    const again = await post('k-6', { fail: 'domain' });
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.statusCode).toBe(425);
    expect(again.json()).toEqual(early.json());
    expect(again.json()).toMatchObject({ title: 'Too Early', detail: 'not yet', audit_id: 'aud_1' });

    const before = runs;
    expect((await post('k-5', { fail: 'server' })).statusCode).toBe(500);
    expect((await post('k-5', { fail: 'server' })).statusCode).toBe(500);
    expect(runs).toBe(before + 2); // not replayed: run again
  });
});
