import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { purgeExpired, retentionPurgeJob } from '../../src/retention/jobs.ts';
import { startTestService, workspaceWithKey, type TestService } from '../helpers/service.ts';

// Tables that would only grow: OAuth states (one per connect, each with a sealed verifier), idempotency
// keys (a sealed response each) and soft-deleted webhooks. The daily purge deletes what outlived
// its retention (docs/operations.md, "Retention") and keeps everything still live.
const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;
let t: TestService;

beforeAll(async () => {
  t = await startTestService({ runWorkers: true, allowLoopbackFetch: true });
  await t.service.startWorkers();
});
afterAll(async () => t?.close());

describe('the retention purge', () => {
  it('is scheduled daily in the job engine', async () => {
    const { rows } = await sql<{
      cron: string;
    }>`SELECT cron FROM pgboss.schedule WHERE name = ${retentionPurgeJob.queue}`.execute(t.db);
    expect(rows).toEqual([{ cron: '17 3 * * *' }]);
  });

  it('purges expired OAuth states, old idempotency keys and long-deleted webhooks, and keeps live rows', async () => {
    const { key, workspace } = await workspaceWithKey(t.db, { plan: 'agency', accountType: 'agency' });
    const start = new Date('2030-01-01T00:00:00Z');
    const at = (ms: number) => new Date(start.getTime() + ms);
    t.setNow(start);

    // Webhooks: one deleted now (purged 30 days on), one live; both created with an Idempotency-Key.
    const create = async (n: number) => {
      const res = await t.request({
        method: 'POST',
        url: '/v1/webhooks',
        key,
        headers: { 'idempotency-key': `retention-${n}` },
        payload: { url: `https://127.0.0.1:9/hook-${n}`, events: ['audit.completed'] },
      });
      expect(res.statusCode, res.body).toBe(200);
      return res.json().id as string;
    };
    const deletedId = await create(1);
    const liveId = await create(2);
    expect((await t.request({ method: 'DELETE', url: `/v1/webhooks/${deletedId}`, key })).statusCode).toBe(
      200,
    );

    // OAuth states: one expired long ago, one expiring in the future.
    const state = (hash: string, expiresAt: Date) => ({
      id: `oc_${hash}`,
      state_hash: hash,
      workspace_id: workspace.id,
      platform: 'tiktok' as const,
      owner_key_id: 'key_x',
      code_verifier: 'sealed',
      code_verifier_key_id: 'k',
      redirect_uri: 'https://example.test/cb',
      created_at: new Date(expiresAt.getTime() - 10 * 60_000),
      expires_at: expiresAt,
    });
    await t.db
      .insertInto('oauth_states')
      .values([state('old', at(-2 * DAY)), state('live', at(10 * 60_000))])
      .execute();

    const remaining = async () => ({
      states: (
        await t.db.selectFrom('oauth_states').select('state_hash').orderBy('state_hash').execute()
      ).map((r) => r.state_hash),
      keys: (
        await t.db
          .selectFrom('idempotency_keys')
          .select('idempotency_key')
          .orderBy('idempotency_key')
          .execute()
      ).map((r) => r.idempotency_key),
      webhooks: (
        await t.db.selectFrom('webhooks').select('id').where('workspace_id', '=', workspace.id).execute()
      )
        .map((r) => r.id)
        .sort(),
    });

    // Now: only the long-expired state goes.
    expect(await purgeExpired(t.ctx)).toEqual({
      oauthStates: 1,
      idempotencyKeys: 0,
      deletedWebhooks: 0,
      auditLog: 0,
    });
    expect(await remaining()).toEqual({
      states: ['live'],
      keys: ['retention-1', 'retention-2'],
      webhooks: [deletedId, liveId].sort(),
    });

    // 25 hours on: the idempotency keys are past their 24 h window (a new key is kept), and the
    // second state expired more than a day ago.
    t.setNow(at(25 * HOUR));
    await create(3);
    expect(await purgeExpired(t.ctx)).toEqual({
      oauthStates: 1,
      idempotencyKeys: 2,
      deletedWebhooks: 0,
      auditLog: 0,
    });
    expect((await remaining()).keys).toEqual(['retention-3']);

    // 31 days on: the deleted webhook goes (with its deliveries); live webhooks stay.
    t.setNow(at(31 * DAY));
    expect(await purgeExpired(t.ctx)).toEqual({
      oauthStates: 0,
      idempotencyKeys: 1,
      deletedWebhooks: 1,
      auditLog: 0,
    });
    expect((await remaining()).webhooks).not.toContain(deletedId);
    expect((await remaining()).webhooks).toContain(liveId);
    // A second run finds nothing more.
    expect(await purgeExpired(t.ctx)).toEqual({
      oauthStates: 0,
      idempotencyKeys: 0,
      deletedWebhooks: 0,
      auditLog: 0,
    });
  });
});
