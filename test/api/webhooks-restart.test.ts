import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, expect, it } from 'vitest';
import { loadConfig, type Config } from '../../src/infra/config.ts';
import { createService, type Service } from '../../src/service.ts';
import { fanOutEvent } from '../../src/webhooks/jobs.ts';
import { configureWebhooks } from '../../src/webhooks/settings.ts';
import { createTestDatabase, usingPostgres } from '../helpers/database.ts';
import { workspaceWithKey } from '../helpers/service.ts';
import { emit, eventually, startReceiver } from './webhooks-receiver.ts';

const cleanup: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const step of cleanup.reverse()) await step().catch(() => {});
});

const RESTART_KEY = `k1:${randomBytes(32).toString('base64')}`;

it('delivers events emitted before a restart once a new process starts its workers', async () => {
  const rx = await startReceiver();
  cleanup.push(() => rx.close());
  // The same database for both processes: a PGlite folder on disk, or one PostgreSQL database.
  const testDb = await createTestDatabase();
  cleanup.push(() => testDb.drop());
  const dataDir = usingPostgres()
    ? 'memory://'
    : fs.mkdtempSync(path.join(os.tmpdir(), 'bh-webhooks-restart-'));
  if (!usingPostgres()) cleanup.push(async () => fs.rmSync(dataDir, { recursive: true, force: true }));
  const config = (runWorkers: boolean): Config => ({
    ...loadConfig({ LOG_LEVEL: 'silent', AUTH_CACHE_TTL_MS: '0' }),
    databaseUrl: testDb.databaseUrl,
    dataDir,
    runWorkers,
    allowLoopbackFetch: true,
    // Both processes must hold the key that sealed the webhook secret (in-memory folders get a
    // fresh key per process otherwise).
    encryptionKeys: RESTART_KEY,
  });

  // First process: serves the API, runs no workers, and stops before anything is delivered.
  let service: Service = await createService(config(false), { dataDir });
  cleanup.push(() => service.stop());
  const { key, workspace } = await workspaceWithKey(service.ctx.db, { plan: 'agency' });
  const res = await service.app.inject({
    method: 'POST',
    url: '/v1/webhooks',
    headers: { authorization: `Bearer ${key}` },
    payload: { url: rx.url('/restart'), events: ['score.changed'] },
  });
  expect(res.statusCode).toBe(200);
  const { secret } = res.json();
  const notFannedOut = await emit(service.ctx, workspace.id, 'score.changed', { score: 10 });
  const fannedOut = await emit(service.ctx, workspace.id, 'score.changed', { score: 11 });
  expect(await fanOutEvent(service.ctx, { eventId: fannedOut })).toHaveLength(1);
  await service.stop();
  expect(rx.received).toHaveLength(0);

  // Second process on the same database, with workers: both events arrive.
  service = await createService(config(true), { dataDir });
  configureWebhooks(service.ctx, { ca: rx.cert });
  await service.startWorkers();
  const db = service.ctx.db;
  const rows = await eventually(
    async () => {
      const found = await db
        .selectFrom('webhook_deliveries')
        .select(['event_id', 'status', 'attempts'])
        .where('event_id', 'in', [notFannedOut, fannedOut])
        .where('status', '=', 'succeeded')
        .execute();
      return found.length === 2 ? found : undefined;
    },
    20_000,
    'both deliveries',
  );
  expect(rows.every((r) => r.attempts === 1)).toBe(true);
  const ids = rx
    .requestsTo('/restart')
    .map((r) => new Webhook(secret).verify(r.body, r.headers) as { id: string });
  expect(ids.map((p) => p.id).sort()).toEqual([notFannedOut, fannedOut].sort());
  // Two service starts on one database plus a 20 s delivery wait: more than the default 30 s on a loaded machine.
}, 120_000);
