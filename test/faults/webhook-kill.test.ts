import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/infra/db/database.ts';
import { seedMetrics } from '../api/audits.fixtures.ts';
import { createDataDir, usingPostgres } from '../helpers/database.ts';
import { workspaceWithKey } from '../helpers/service.ts';
import { startChaosReceiver, type ChaosReceiver } from './chaos-receiver.ts';
import { http, killService, spawnService, until, type ChildService } from './support.ts';

// kill -9 of the real service while a webhook delivery is in flight (the receiver holds the POST),
// then a new process on the same data folder: the interrupted attempt is made again within seconds
// (a heartbeat declares the dead run lost after 10 s; pg-boss retries it 1-2 s later), not after the
// 60 s expiry plus the receiver back-off. Same webhook-id, delivered once.
const RECOVERY_BOUND_MS = 45_000; // restart ~10 s + heartbeat 10 s + maintenance 5 s + retry and poll

describe.skipIf(usingPostgres())('kill -9 during a webhook delivery', () => {
  let dataDir: string | undefined;
  let rx: ChaosReceiver | undefined;
  const children: ChildService[] = [];
  afterAll(async () => {
    for (const c of children) await killService(c, 'SIGKILL').catch(() => {});
    await rx?.close();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('makes the interrupted attempt again within seconds of the restart, and delivers once', async () => {
    // The first attempt is held (answered long after the sender is dead); later ones get 200.
    rx = await startChaosReceiver(
      (_path, _msgId, attempt) => (attempt === 1 ? { kind: 'timeout' } : { kind: 'status', status: 200 }),
      60_000,
    );
    const caFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'bh-ca-')), 'ca.pem');
    fs.writeFileSync(caFile, rx.cert);

    dataDir = await createDataDir('bh-webhook-kill-');
    const seed = await openDatabase({ databaseUrl: null, dataDir });
    const { key, workspace } = await workspaceWithKey(
      seed.db,
      { plan: 'agency', accountType: 'agency' },
      { platforms: [{ platform: 'instagram' }] },
    );
    await seedMetrics(seed.db, workspace.id, { platforms: ['instagram'] });
    await seed.close();
    const env = { DATA_DIR: dataDir, ALLOW_LOOPBACK_FETCH: 'true', NODE_EXTRA_CA_CERTS: caFile };

    const first = await spawnService(env);
    children.push(first);
    const hook = await http(first.origin, 'POST', '/v1/webhooks', {
      key,
      body: { url: rx.url('/hook'), events: ['audit.completed'] },
    });
    expect(hook.status, hook.text).toBe(200);
    const audit = await http(first.origin, 'POST', '/v1/audit/run', { key, body: {} });
    expect(audit.status, audit.text).toBe(200);

    const held = await until(
      'the first delivery attempt to reach the receiver',
      () => rx!.requests.find((r) => r.path === '/hook'),
      { timeoutMs: 90_000 },
    );
    await killService(first, 'SIGKILL');
    const killedAt = Date.now();

    const second = await spawnService(env);
    children.push(second);
    const again = await until(
      'the interrupted delivery to be attempted again',
      () => rx!.requests.find((r) => r.path === '/hook' && r.attempt === 2),
      { timeoutMs: 180_000, intervalMs: 100 },
    );
    const recoveredMs = Date.now() - killedAt;
    console.info(`webhook kill -9: attempted again ${(recoveredMs / 1000).toFixed(1)} s after the kill`);
    expect(recoveredMs).toBeLessThan(RECOVERY_BOUND_MS);
    expect(again.msgId).toBe(held.msgId);

    // Settled once: one 2xx at the receiver, the delivery row succeeded.
    await until('the delivery to be recorded', async () => {
      const res = await http(second.origin, 'GET', `/v1/webhooks/${hook.json.id}/deliveries`, { key });
      return res.json?.deliveries?.[0]?.status === 'succeeded' ? true : undefined;
    });
    await new Promise((r) => setTimeout(r, 3_000)); // room for a duplicate to show up
    const acknowledged = rx.requests.filter(
      (r) => r.path === '/hook' && r.answer.kind === 'status' && r.answer.status === 200,
    );
    expect(acknowledged).toHaveLength(1);
    await killService(second, 'SIGTERM');
  }, 420_000);
});
