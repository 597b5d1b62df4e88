import { randomUUID } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import type { Kysely } from 'kysely';
import { createApiKey } from '../../src/admin/keys.ts';
import { connectPlatform } from '../../src/admin/platforms.ts';
import { createWorkspace, type CreateWorkspaceInput } from '../../src/admin/workspaces.ts';
import type { AppContext } from '../../src/context.ts';
import { loadConfig, type Config } from '../../src/infra/config.ts';
import type { DB } from '../../src/infra/db/types.ts';
import { createService, type Service, type ServiceOptions } from '../../src/service.ts';
import { createTestDatabase, type TestDatabase } from './database.ts';
import type { Platform, Scope } from '../../src/core/catalog.ts';

export interface TestService {
  service: Service;
  app: FastifyInstance;
  ctx: AppContext;
  db: Kysely<DB>;
  /** Moves the service's clock (ctx.now) to a fixed instant; undefined restores real time. */
  setNow(date: Date | undefined): void;
  request(options: InjectOptions & { key?: string }): Promise<LightMyRequestResponse>;
  /** Starts a real HTTP listener on 127.0.0.1 (a free port) and returns its base URL. */
  listen(): Promise<string>;
  close(): Promise<void>;
}

export async function startTestService(
  overrides: Partial<Config> = {},
  env: Record<string, string> = {},
  options: Pick<ServiceOptions, 'logStream'> & {
    /** A database prepared by the caller (the end-to-end suite's seeded sandbox); dropped at close. */
    database?: TestDatabase;
  } = {},
): Promise<TestService> {
  const { database, ...serviceOptions } = options;
  const testDb: TestDatabase = database ?? (await createTestDatabase({ migrated: true }));
  const loaded = loadConfig({
    LOG_LEVEL: 'silent',
    AUTH_CACHE_TTL_MS: '0',
    SCORE_CACHE_TTL_MS: '0',
    EXPORT_CACHE_TTL_MS: '0',
    ...env,
  });
  const config: Config = {
    ...loaded,
    // Without SMTP_URL mail goes to a folder of this test's own (never the checkout's ./data).
    mail: {
      ...loaded.mail,
      outboxDir: env.MAIL_OUTBOX_DIR ?? path.join(os.tmpdir(), `bh-outbox-${randomUUID()}`),
    },
    databaseUrl: testDb.databaseUrl,
    dataDir: testDb.dataDir,
    runWorkers: false,
    ...overrides,
  };
  let fixedNow: Date | undefined;
  const service = await createService(config, {
    now: () => fixedNow ?? new Date(),
    dataDir: testDb.dataDir,
    pgliteImage: testDb.pgliteImage,
    ...serviceOptions,
  });
  return {
    service,
    app: service.app,
    ctx: service.ctx,
    db: service.ctx.db,
    setNow(date) {
      fixedNow = date;
    },
    request({ key, headers, ...options }) {
      return service.app.inject({
        ...options,
        headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers },
      });
    },
    async listen() {
      const address = service.app.server.address();
      if (address && typeof address === 'object') return `http://127.0.0.1:${address.port}`;
      return service.app.listen({ port: 0, host: '127.0.0.1' });
    },
    async close() {
      await service.stop();
      await testDb.drop();
    },
  };
}

/**
 * A second service on the PostgreSQL database of `t` (PGlite is one process's database), without
 * workers, with the given environment and clock: another instance, for what must cross instances.
 */
export function secondInstance(
  t: TestService,
  env: Record<string, string>,
  now: () => Date,
): Promise<Service> {
  return createService(
    {
      ...loadConfig({ LOG_LEVEL: 'silent', ...env }),
      databaseUrl: t.ctx.config.databaseUrl,
      runWorkers: false,
    },
    { now },
  );
}

/** A workspace with an API key, the unit most tests start from. */
export async function workspaceWithKey(
  db: Kysely<DB>,
  input: Partial<CreateWorkspaceInput> & { plan: CreateWorkspaceInput['plan'] },
  options: {
    scopes?: Scope[];
    platforms?: Array<{ platform: Platform; handle?: string; followers?: number }>;
  } = {},
) {
  const workspace = await createWorkspace(db, { name: `${input.plan} workspace`, ...input });
  const key = await createApiKey(
    db,
    { workspaceId: workspace.id },
    { scopes: options.scopes ?? ['read', 'write'] },
  );
  for (const p of options.platforms ?? []) {
    await connectPlatform(db, {
      workspaceId: workspace.id,
      platform: p.platform,
      handle: p.handle ?? `@${workspace.id.slice(-6).toLowerCase()}_${p.platform}`,
      followers: p.followers ?? 1000,
    });
  }
  return { workspace, key: key.key, keyId: key.id };
}

export function expectProblem(res: LightMyRequestResponse, status: number, title?: string) {
  const body = res.json();
  const problems: string[] = [];
  if (res.statusCode !== status) problems.push(`status ${res.statusCode} != ${status}: ${res.body}`);
  if (!String(res.headers['content-type']).startsWith('application/problem+json')) {
    problems.push(`content-type ${res.headers['content-type']}`);
  }
  if (body.status !== status) problems.push(`body.status ${body.status}`);
  if (title !== undefined && body.title !== title) problems.push(`title "${body.title}" != "${title}"`);
  for (const field of ['type', 'title', 'detail', 'request_id']) {
    if (typeof body[field] !== 'string' || body[field] === '') problems.push(`missing ${field}`);
  }
  if (body.request_id !== res.headers['x-request-id']) problems.push('request_id differs from X-Request-Id');
  if (problems.length) throw new Error(`not the expected problem+json:\n${problems.join('\n')}`);
  return body;
}
