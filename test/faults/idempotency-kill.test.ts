import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/infra/db/database.ts';
import { IDEMPOTENCY_LEASE_MS } from '../../src/infra/http/idempotency.ts';
import { createDataDir, usingPostgres } from '../helpers/database.ts';
import { workspaceWithKey } from '../helpers/service.ts';
import { STANDIN_DNS_MARKER } from './dns-standin.ts';
import { http, killService, spawnService, until, type ChildService } from './support.ts';

// kill -9 of the real service while it runs a POST carrying an Idempotency-Key (its handler is
// held on a DNS lookup that never answers), then a new process on the same data folder. The
// key's claim must not outlive the dead process: a retry with the key is told to wait while the
// lease runs (409 + Retry-After), then runs the request, exactly once.
const PRELOAD = fileURLToPath(new URL('./dns-standin.ts', import.meta.url));
const NAME = 'receiver.standin.example';

describe.skipIf(usingPostgres())('kill -9 during an idempotent POST', () => {
  let dataDir: string | undefined;
  const children: ChildService[] = [];
  afterAll(async () => {
    for (const c of children) await killService(c, 'SIGKILL').catch(() => {});
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('lets a retry with the same key run the request once the dead process lease lapses', async () => {
    dataDir = await createDataDir('bh-idem-kill-');
    const seed = await openDatabase({ databaseUrl: null, dataDir });
    const { key } = await workspaceWithKey(seed.db, { plan: 'agency', accountType: 'agency' });
    await seed.close();

    const env = (mode: string) => ({
      DATA_DIR: dataDir!,
      NODE_OPTIONS: `--import=${PRELOAD}`,
      STANDIN_DNS_NAME: NAME,
      STANDIN_DNS_MODE: mode,
    });
    const post = (origin: string) =>
      http(origin, 'POST', '/v1/webhooks', {
        key,
        headers: { 'idempotency-key': 'crash-retry-1' },
        body: { url: `https://${NAME}/hooks`, events: ['audit.completed'] },
        timeoutMs: 20_000,
      });

    const first = await spawnService(env('hang'));
    children.push(first);
    const inFlight = post(first.origin).catch(() => null);
    await until('the request to be held inside its handler', () =>
      first.output().includes(STANDIN_DNS_MARKER) ? true : undefined,
    );
    await killService(first, 'SIGKILL');
    const killedAt = Date.now();
    expect(await inFlight, 'the killed process never answered').toBeNull();

    const second = await spawnService(env('answer'));
    children.push(second);
    const early = await post(second.origin);
    if (Date.now() - killedAt < IDEMPOTENCY_LEASE_MS - 2_000) {
      expect(early.status, early.text).toBe(409);
      const retryAfter = Number(early.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(IDEMPOTENCY_LEASE_MS / 1000);
    }
    const done = await until(
      'a retry with the same key to run the request',
      async () => {
        const res = await post(second.origin);
        if (res.status === 409) return undefined;
        return res;
      },
      { timeoutMs: IDEMPOTENCY_LEASE_MS + 15_000, intervalMs: 1_000 },
    );
    expect(done.status, done.text).toBe(200);
    expect(done.headers.get('idempotent-replayed')).toBeNull();
    expect(Date.now() - killedAt).toBeLessThan(IDEMPOTENCY_LEASE_MS + 15_000);

    const replay = await post(second.origin);
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.json.id).toBe(done.json.id);
    const list = await http(second.origin, 'GET', '/v1/webhooks', { key });
    expect(list.json.webhooks.map((w: { id: string }) => w.id)).toEqual([done.json.id]);
    await killService(second, 'SIGTERM');
  }, 180_000);
});
