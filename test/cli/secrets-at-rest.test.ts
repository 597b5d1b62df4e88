import { createCipheriv, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/admin/keys.ts';
import { createWorkspace } from '../../src/admin/workspaces.ts';
import { loadConfig } from '../../src/infra/config.ts';
import { sealedAt } from '../../src/infra/crypto/sealed-columns.ts';
import { createService, type Service } from '../../src/service.ts';
import { cliLocally } from '../helpers/cli.ts';
import { createDataDir, createTestDatabase, type TestDatabase } from '../helpers/database.ts';

// Secrets at rest: what the database holds, rotation through the CLI, and refusing to start
// without the right key. One database (a PGlite folder, or a PostgreSQL database) opened by one
// process at a time, as an operator would.
const key = (id: string) => `${id}:${randomBytes(32).toString('base64')}`;
const K1_BYTES = randomBytes(32);
const K1 = `k1:${K1_BYTES.toString('base64')}`;
const K2 = key('k2');

let testDb: TestDatabase;
let dataDir: string;
beforeAll(async () => {
  testDb = await createTestDatabase({ migrated: true });
  dataDir = await createDataDir('bh-secrets-');
});
afterAll(async () => {
  await testDb?.drop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

function env(keys: string | null): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    LOG_LEVEL: 'silent',
    DATA_DIR: dataDir,
    DATABASE_URL: testDb.databaseUrl ?? '',
    ALLOW_LOOPBACK_FETCH: 'true',
    ...(keys ? { ENCRYPTION_KEYS: keys } : {}),
  };
}

async function open(keys: string | null): Promise<Service> {
  return createService({ ...loadConfig(env(keys)), runWorkers: false });
}

// The CLI as `brandhealth` runs it with no service running (opening the database itself), in this
// process: what it prints and its exit code, without a Node start per command (the process:
// test/cli/cli.test.ts).
const cli = (keys: string | null, ...args: string[]) => cliLocally(env(keys), '--json', ...args);

const SECRET = 'a-human-chosen-shared-secret-0123456789';
let webhookId: string;
let otherWebhookId: string;
let otherSecret: string;
let apiKey: string;

// Each case opens the database several times (a service or a CLI command each).
describe('secrets at rest', { timeout: 180_000 }, () => {
  it('stores webhook secrets and replayable responses sealed, never in plaintext', async () => {
    const service = await open(K1);
    try {
      const ws = await createWorkspace(service.ctx.db, {
        name: 'Agency',
        plan: 'agency',
        accountType: 'agency',
      });
      apiKey = (await createApiKey(service.ctx.db, { workspaceId: ws.id })).key;
      const create = (idempotencyKey: string) =>
        service.app.inject({
          method: 'POST',
          url: '/v1/webhooks',
          headers: { authorization: `Bearer ${apiKey}`, 'idempotency-key': idempotencyKey },
          // 127.0.0.1 passes registration only with ALLOW_LOOPBACK_FETCH (set above).
          payload: { url: 'https://127.0.0.1:9/hook', events: ['audit.completed'], secret: SECRET },
        });
      const first = await create('same-key');
      expect(first.statusCode).toBe(200);
      webhookId = first.json().id;
      const generated = await create('other-key');
      const generatedSecret: string = generated.json().secret;
      // A replay still returns the secret: it is stored sealed, not dropped.
      const replay = await create('same-key');
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.json().secret).toBe(SECRET);

      const dump = JSON.stringify(
        await Promise.all([
          service.ctx.db.selectFrom('webhooks').selectAll().execute(),
          service.ctx.db.selectFrom('idempotency_keys').selectAll().execute(),
        ]),
      );
      for (const plaintext of [SECRET, generatedSecret, generatedSecret.slice(6)]) {
        expect(dump).not.toContain(plaintext);
      }
      const row = await service.ctx.db
        .selectFrom('webhooks')
        .select(['secret', 'secret_key_id'])
        .where('id', '=', webhookId)
        .executeTakeFirstOrThrow();
      expect(row.secret_key_id).toBe('k1');
      expect(
        service.ctx.keyRing.open(
          { ciphertext: row.secret, keyId: 'k1' },
          sealedAt('webhooks.secret', webhookId),
        ),
      ).toBe(SECRET);

      // A row as it was before encryption (plaintext, no key id): sealed at the next start.
      await sql`UPDATE webhooks SET secret = ${SECRET}, secret_key_id = NULL WHERE id = ${webhookId}`.execute(
        service.ctx.db,
      );
      // A row as the key ring sealed it before row binding (purpose only): bound to its row at the next start.
      otherWebhookId = generated.json().id;
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', K1_BYTES, iv);
      cipher.setAAD(Buffer.from('webhook-secret'));
      const body = Buffer.concat([cipher.update(generatedSecret, 'utf8'), cipher.final()]);
      const legacy = Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64');
      await sql`UPDATE webhooks SET secret = ${legacy}, secret_key_id = 'k1' WHERE id = ${otherWebhookId}`.execute(
        service.ctx.db,
      );
      otherSecret = generatedSecret;
    } finally {
      await service.stop();
    }
  });

  it('seals plaintext, and binds values sealed with their purpose only to their row, at start-up', async () => {
    const service = await open(K1);
    try {
      const row = await service.ctx.db
        .selectFrom('webhooks')
        .select(['secret', 'secret_key_id'])
        .where('id', '=', webhookId)
        .executeTakeFirstOrThrow();
      expect(row.secret_key_id).toBe('k1');
      expect(row.secret).not.toContain(SECRET);
      const other = await service.ctx.db
        .selectFrom('webhooks')
        .select(['secret', 'secret_key_id'])
        .where('id', '=', otherWebhookId)
        .executeTakeFirstOrThrow();
      expect(
        service.ctx.keyRing.open(
          { ciphertext: other.secret, keyId: 'k1' },
          sealedAt('webhooks.secret', otherWebhookId),
        ),
      ).toBe(otherSecret);
      // Bound to its own row: it does not open as the other webhook's.
      expect(() =>
        service.ctx.keyRing.open(
          { ciphertext: other.secret, keyId: 'k1' },
          sealedAt('webhooks.secret', webhookId),
        ),
      ).toThrow(/does not open there/);
    } finally {
      await service.stop();
    }
  });

  it('rotates every secret to a new active key with `brandhealth encryption rotate`', async () => {
    const before = await cli(`${K2},${K1}`, 'encryption', 'status');
    expect(before.code, before.stderr).toBe(0);
    expect(JSON.parse(before.stdout).sealed).toContainEqual({
      column: 'webhooks.secret',
      key_id: 'k1',
      binding: 'row',
      values: 2,
    });

    const rotated = await cli(`${K2},${K1}`, 'encryption', 'rotate');
    expect(rotated.code, rotated.stderr).toBe(0);
    const result = JSON.parse(rotated.stdout);
    expect(result.active_key_id).toBe('k2');
    expect(result.resealed['webhooks.secret']).toBe(2);
    expect(result.resealed['idempotency_keys.response_sealed']).toBe(2);

    // The old key can go: the service starts on k2 alone and opens what k1 sealed before.
    const service = await open(K2);
    try {
      const rows = await service.ctx.db.selectFrom('webhooks').select(['secret', 'secret_key_id']).execute();
      expect(rows.map((r) => r.secret_key_id)).toEqual(['k2', 'k2']);
      const mine = await service.ctx.db
        .selectFrom('webhooks')
        .select(['secret', 'secret_key_id'])
        .where('id', '=', webhookId)
        .executeTakeFirstOrThrow();
      expect(
        service.ctx.keyRing.open(
          { ciphertext: mine.secret, keyId: 'k2' },
          sealedAt('webhooks.secret', webhookId),
        ),
      ).toBe(SECRET);
    } finally {
      await service.stop();
    }
  });

  it('refuses to start, with a clean message, when a stored key id is missing or its key is wrong', async () => {
    const missing = await cli(K1, 'migrate');
    expect(missing.code).toBe(1);
    expect(missing.stderr.trim()).toMatch(
      /^brandhealth: stored secrets are sealed with key id "k2", which the key ring does not hold \(it has "k1"\)\. Add the missing key/,
    );
    expect(missing.stderr).not.toMatch(/\n\s+at /); // no stack trace

    const wrong = await cli(`k2:${randomBytes(32).toString('base64')}`, 'migrate');
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/key "k2" in the key ring does not open the secrets stored under that id/);

    const malformed = await cli('k1:not-32-bytes', 'migrate');
    expect(malformed.code).toBe(1);
    expect(malformed.stderr).toMatch(/ENCRYPTION_KEYS: key "k1" must be 32 bytes/);
  });

  it('without ENCRYPTION_KEYS, generates one key into DATA_DIR (mode 0600) and keeps using it', async () => {
    const otherDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bh-keyfile-'));
    try {
      const { loadKeyRing } = await import('../../src/infra/crypto/keyring.ts');
      const first = loadKeyRing({ keys: null, dataDir: otherDir });
      const again = loadKeyRing({ keys: null, dataDir: otherDir });
      expect(first.source).toBe('file');
      expect(again.keyRing.activeKeyId).toBe(first.keyRing.activeKeyId);
      const at = sealedAt('webhooks.secret', 'wh_1');
      const sealed = first.keyRing.seal('x', at);
      expect(again.keyRing.open(sealed, at)).toBe('x');
      expect(fs.statSync(path.join(otherDir, 'encryption.key')).mode & 0o777).toBe(0o600);
    } finally {
      fs.rmSync(otherDir, { recursive: true, force: true });
    }
  });
});
