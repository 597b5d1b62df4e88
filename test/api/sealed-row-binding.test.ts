import { createCipheriv, randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/program.ts';
import { parseKeyRing } from '../../src/infra/crypto/keyring.ts';
import { resealAll, sealedAt, WEBHOOK_SECRET_PURPOSE } from '../../src/infra/crypto/sealed-columns.ts';
import { runSyncJob, type SyncJob } from '../../src/platforms/sync-worker.ts';
import { oauthConnection } from '../helpers/oauth-connection.ts';
import { attemptDelivery } from '../../src/webhooks/attempt.ts';
import { fanOutEvent } from '../../src/webhooks/jobs.ts';
import { configureWebhooks } from '../../src/webhooks/settings.ts';
import { platformStandIn } from '../helpers/platform-standin.ts';
import { startTestService, workspaceWithKey, type TestService } from '../helpers/service.ts';
import { emit, startReceiver, type Receiver } from './webhooks-receiver.ts';

// Sealed values are bound to their row and column (AES-GCM associated data): a ciphertext copied
// into another row through SQL does not open there, and its owner's secret is never used for the
// other row. Values of the earlier, purpose-only format are counted and bound by the CLI.
const KEY = randomBytes(32);
const NOW = new Date('2025-03-04T06:00:00Z');
let t: TestService;
let rx: Receiver;
let standIn: Awaited<ReturnType<typeof platformStandIn>>;
const logs: string[] = [];

beforeAll(async () => {
  rx = await startReceiver();
  standIn = await platformStandIn();
  const logStream = new Writable({
    write(chunk, _encoding, callback) {
      logs.push(String(chunk));
      callback();
    },
  });
  t = await startTestService(
    { allowLoopbackFetch: true },
    { ...standIn.env, LOG_LEVEL: 'info', ENCRYPTION_KEYS: `k1:${KEY.toString('base64')}` },
    { logStream },
  );
  configureWebhooks(t.ctx, { ca: rx.cert });
});
afterAll(async () => {
  await t?.close();
  await standIn?.close();
  await rx?.close();
});

async function cli(...argv: string[]) {
  let out = '';
  let err = '';
  const code = await runCli(['--json', ...argv], { out: (s) => (out += s), err: (s) => (err += s) }, (fn) =>
    fn(t.ctx),
  );
  expect(code, err).toBe(0);
  return JSON.parse(out);
}

/** What the key ring wrote before row binding: base64(IV || ciphertext || tag), the purpose alone as AAD. */
function sealPurposeOnly(plaintext: string, purpose: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', KEY, iv);
  cipher.setAAD(Buffer.from(purpose, 'utf8'));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64');
}

const tokenConnection = (workspaceId: string) => oauthConnection(t, NOW, workspaceId, 'instagram');

async function register(key: string, path: string) {
  const res = await t.request({
    method: 'POST',
    url: '/v1/webhooks',
    key,
    payload: { url: rx.url(path), events: ['campaign.phase_changed'] },
  });
  expect(res.statusCode).toBe(200);
  return res.json() as { id: string; secret: string };
}

/** Fans the event out and makes each delivery's one (last) attempt, as the workers would. */
async function deliver(eventId: string) {
  for (const id of await fanOutEvent(t.ctx, { eventId }))
    await attemptDelivery(t.ctx, id, { attempt: 1, lastAttempt: true, scheduleNext: async () => {} });
}

async function settled(webhookId: string, eventId: string) {
  return t.db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('event_id', '=', eventId)
    .where('webhook_id', '=', webhookId)
    .executeTakeFirstOrThrow();
}

describe('sealed values bound to their row', { timeout: 60_000 }, () => {
  it("a token copied into another connection's row does not open there: that connection needs reconnecting", async () => {
    t.setNow(NOW);
    try {
      const victim = await workspaceWithKey(t.db, { plan: 'pro' });
      const attacker = await workspaceWithKey(t.db, { plan: 'pro' });
      const a = await tokenConnection(victim.workspace.id);
      const b = await tokenConnection(attacker.workspace.id);
      // The attack: A's sealed access token and its key id written over B's through SQL.
      const source = await t.db
        .selectFrom('platform_connections')
        .select(['access_token', 'access_token_key_id'])
        .where('id', '=', a)
        .executeTakeFirstOrThrow();
      await t.db.updateTable('platform_connections').set(source).where('id', '=', b).execute();

      const before = standIn.requests.length;
      const job: SyncJob = { connectionId: b, round: NOW.toISOString(), attempt: 1 };
      expect(await runSyncJob(t.ctx, job)).toBe('reauth_required');
      // Nothing reached the platform for B, let alone with A's token.
      expect(standIn.requests.slice(before)).toEqual([]);
      expect(JSON.stringify(standIn.requests)).not.toContain(`secret-access-${a}`);
      const row = await t.db
        .selectFrom('platform_connections')
        .select(['status', 'health_reason', 'last_error_class'])
        .where('id', '=', b)
        .executeTakeFirstOrThrow();
      expect(row).toEqual({
        status: 'reauth_required',
        health_reason: 'token_refused',
        last_error_class: 'reauth_required',
      });
      // The brand is told to reconnect, through the API (not a 500).
      const list = await t.request({
        method: 'GET',
        url: `/v1/platforms?workspace_id=${attacker.workspace.id}`,
        key: attacker.key,
      });
      expect(list.statusCode).toBe(200);
      expect(JSON.stringify(list.json())).toContain('reauth_required');
      const logged = logs.filter((l) => l.includes('sealed value refused'));
      expect(
        logged.some((l) => l.includes(`"row":"${b}"`) && l.includes('platform_connections.access_token')),
      ).toBe(true);
      expect(logged.join('')).not.toContain(`secret-access-${a}`);

      // A itself is untouched and still syncs with its own token.
      expect(await runSyncJob(t.ctx, { connectionId: a, round: NOW.toISOString(), attempt: 1 })).toBe(
        'synced',
      );
      expect(
        standIn.requests.slice(before).some((r) => JSON.stringify(r).includes(`secret-access-${a}`)),
      ).toBe(true);
    } finally {
      t.setNow(undefined);
    }
  });

  it("a secret copied into another webhook's row does not open: nothing is sent, the webhook is disabled", async () => {
    const { key, workspace } = await workspaceWithKey(t.db, { plan: 'agency' });
    const first = await register(key, '/first');
    const second = await register(key, '/second');
    const source = await t.db
      .selectFrom('webhooks')
      .select(['secret', 'secret_key_id'])
      .where('id', '=', first.id)
      .executeTakeFirstOrThrow();
    await t.db.updateTable('webhooks').set(source).where('id', '=', second.id).execute();

    const eventId = await emit(t.ctx, workspace.id, 'campaign.phase_changed', { campaign_id: 'cmp_1' });
    await deliver(eventId);
    const refused = await settled(second.id, eventId);
    expect(refused).toMatchObject({ status: 'failed', last_status_code: null });
    expect(refused.last_error).toMatch(/signing secret on file does not open for this webhook/);
    expect(rx.requestsTo('/second')).toEqual([]);
    const hook = await t.db
      .selectFrom('webhooks')
      .selectAll()
      .where('id', '=', second.id)
      .executeTakeFirstOrThrow();
    expect(hook.status).toBe('disabled');
    expect(hook.disabled_reason).toMatch(/signing secret on file does not open/);
    expect(logs.some((l) => l.includes('sealed value refused') && l.includes(`"row":"${second.id}"`))).toBe(
      true,
    );
    // The first webhook is signed with its own secret as before.
    const ok = await settled(first.id, eventId);
    expect(ok.status).toBe('succeeded');
    const [request] = rx.requestsTo('/first');
    expect(new Webhook(first.secret).verify(request!.body, request!.headers)).toMatchObject({ id: eventId });

    // `encryption rotate` does not launder the moved value into its new row: it is left as it is.
    await cli('encryption', 'rotate');
    const after = await t.db
      .selectFrom('webhooks')
      .select(['secret'])
      .where('id', '=', second.id)
      .executeTakeFirstOrThrow();
    expect(after.secret).toBe(source.secret);
  });

  it('values sealed with their purpose only: counted by `encryption status`, bound to their row by `rotate`', async () => {
    const { key } = await workspaceWithKey(t.db, { plan: 'agency' });
    const hook = await register(key, '/legacy');
    const legacySecret = 'whsec_' + randomBytes(24).toString('base64');
    // As the key ring wrote it before row binding (an instance of the earlier version, or a restore).
    await t.db
      .updateTable('webhooks')
      .set({ secret: sealPurposeOnly(legacySecret, WEBHOOK_SECRET_PURPOSE), secret_key_id: 'k1' })
      .where('id', '=', hook.id)
      .execute();

    const status = await cli('encryption', 'status');
    expect(status.sealed).toContainEqual({
      column: 'webhooks.secret',
      key_id: 'k1',
      binding: 'purpose only',
      values: 1,
    });
    const rotated = await cli('encryption', 'rotate');
    expect(rotated.resealed['webhooks.secret']).toBe(1);
    const row = await t.db
      .selectFrom('webhooks')
      .select(['secret', 'secret_key_id'])
      .where('id', '=', hook.id)
      .executeTakeFirstOrThrow();
    expect(
      t.ctx.keyRing.open({ ciphertext: row.secret, keyId: 'k1' }, sealedAt('webhooks.secret', hook.id)),
    ).toBe(legacySecret);
    const again = await cli('encryption', 'status');
    expect(
      again.sealed.filter((r: { binding: string; column: string }) => r.binding === 'purpose only'),
    ).toEqual([]);
    // A second rotate has nothing left to do.
    expect(Object.values((await cli('encryption', 'rotate')).resealed).every((n) => n === 0)).toBe(true);
  });

  it("a stored response copied to another Idempotency-Key is not replayed: 409, not the other webhook's secret", async () => {
    const { key } = await workspaceWithKey(t.db, { plan: 'agency' });
    const create = (idempotencyKey: string) =>
      t.request({
        method: 'POST',
        url: '/v1/webhooks',
        key,
        headers: { 'idempotency-key': idempotencyKey },
        payload: { url: rx.url('/idem'), events: ['campaign.phase_changed'] },
      });
    const first = await create('key-a');
    expect(first.statusCode).toBe(200);
    expect((await create('key-b')).statusCode).toBe(200);
    const source = await t.db
      .selectFrom('idempotency_keys')
      .select(['response_sealed', 'response_key_id'])
      .where('idempotency_key', '=', 'key-a')
      .executeTakeFirstOrThrow();
    await t.db.updateTable('idempotency_keys').set(source).where('idempotency_key', '=', 'key-b').execute();
    const replay = await create('key-b');
    expect(replay.statusCode).toBe(409);
    expect(replay.json().title).toBe('Idempotent Response Unavailable');
    expect(replay.body).not.toContain(first.json().secret);
    // The untouched key still replays its own response.
    expect((await create('key-a')).json().secret).toBe(first.json().secret);
  });

  // Last: it moves every value to a key the service's ring does not hold.
  it('a key rotation re-seals bound values under the new key and leaves moved ones where they are, counted', async () => {
    const ring = parseKeyRing(`k2:${randomBytes(32).toString('base64')},k1:${KEY.toString('base64')}`);
    const logged: string[] = [];
    const { resealed, refused } = await resealAll(t.db, ring, { log: (m) => logged.push(m) });
    expect(refused).toEqual({
      'platform_connections.access_token': 1,
      'webhooks.secret': 1,
      'idempotency_keys.response_sealed': 1,
    });
    expect(resealed['webhooks.secret']).toBe(4); // all but the moved one
    expect(logged).toHaveLength(3);
    expect(logged.join('\n')).toMatch(/webhooks\.secret of row wh_.* does not open there/);
    const left = await t.db
      .selectFrom('webhooks')
      .select(['secret_key_id'])
      .where('secret_key_id', '=', 'k1')
      .execute();
    expect(left).toHaveLength(1);
  });
});
