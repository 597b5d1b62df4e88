import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revokeApiKey } from '../../src/admin/keys.ts';
import { AUTH_FAILURES_PER_MINUTE } from '../../src/infra/auth/auth-plugin.ts';
import { Authenticator } from '../../src/infra/auth/authenticator.ts';
import { startTestService, workspaceWithKey, type TestService } from '../helpers/service.ts';
import { listenOnLoopback, rawExchange } from './support.ts';

// Requests without a valid key, from one address: the connection of an early 401 is not held
// open while the client trickles a body, an address is limited in how many such requests it
// makes per minute (each costs a database lookup), and made-up keys never push real ones out of
// the key cache.
const REQUEST_TIMEOUT_MS = 30_000; // the default: the early answer must not wait for it

let t: TestService;
let origin: string;
let key: string;
let keyId: string;
beforeAll(async () => {
  t = await startTestService(
    {},
    { AUTH_CACHE_TTL_MS: '60000', REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS) },
  );
  const created = await workspaceWithKey(t.db, { plan: 'pro' });
  key = created.key;
  keyId = created.keyId;
  origin = await listenOnLoopback(t.app);
});
afterAll(async () => t?.close());

const madeUpKey = () =>
  `bh_live_01${randomBytes(12).toString('hex').toUpperCase().slice(0, 24)}_${'B'.repeat(43)}`;

describe('an early 401', () => {
  it('ends the connection with the answer instead of reading a trickled body', async () => {
    const head =
      'POST /v1/campaigns HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1048576\r\n\r\n';
    const slow = await rawExchange(origin, [head, ...Array.from({ length: 100 }, () => ' ')], {
      gapMs: 100,
      deadlineMs: 15_000,
    });
    expect(slow.status).toBe(401);
    expect(slow.response).toMatch(/\r\nconnection: close\r\n/i);
    expect(slow.closedByServer, 'the server kept the connection open').toBe(true);
    expect(slow.ms).toBeLessThan(3_000);
  });
});

describe('requests without a valid key, per address', () => {
  it(`allows ${AUTH_FAILURES_PER_MINUTE} a minute, then answers 429 to unverified keys; verified keys and other addresses are unaffected`, async () => {
    // Fixed one-minute windows: run inside one.
    const into = Date.now() % 60_000;
    if (into > 45_000) await new Promise((r) => setTimeout(r, 60_000 - into + 50));
    expect((await t.request({ method: 'GET', url: '/v1/workspace', key })).statusCode).toBe(200); // verified now

    const from = (remoteAddress: string, token?: string) =>
      t.request({
        method: 'GET',
        url: '/v1/workspace',
        remoteAddress,
        ...(token ? { headers: { authorization: `Bearer ${token}` } } : {}),
      });
    const statuses: number[] = [];
    for (let i = 0; i < AUTH_FAILURES_PER_MINUTE; i++)
      statuses.push((await from('198.51.100.7', i % 10 === 0 ? undefined : madeUpKey())).statusCode);
    expect(statuses).toEqual(Array(AUTH_FAILURES_PER_MINUTE).fill(401));

    const limited = await from('198.51.100.7', madeUpKey());
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(limited.json()).toMatchObject({ title: 'Rate Limited', status: 429 });
    expect((await from('198.51.100.7')).statusCode).toBe(429);
    // A key this instance already verified still works from that address.
    expect((await from('198.51.100.7', key)).statusCode).toBe(200);
    // Another address is not affected.
    expect((await from('198.51.100.8', madeUpKey())).statusCode).toBe(401);
  });
});

describe('the key cache under a flood of made-up keys', () => {
  it('keeps a verified key cached while more made-up keys than the cache holds are tried', async () => {
    const authenticator = new Authenticator(t.db, 10 * 60_000);
    expect(await authenticator.authenticate(`Bearer ${key}`)).not.toBeNull();
    // More unknown ids than the 50,000 entries the key cache holds.
    for (let i = 0; i < 50_001; i++) await authenticator.authenticate(`Bearer ${madeUpKey()}`);
    // Revoked in the database: a cached entry still answers (within the cache TTL), an evicted one
    // is read again and refused. Still cached means the flood did not evict it.
    await revokeApiKey(t.db, keyId, t.ctx.now());
    expect(await authenticator.authenticate(`Bearer ${key}`)).not.toBeNull();
  }, 300_000);
});
