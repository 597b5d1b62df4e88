import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliverOnce, NO_RESPONSE } from '../../src/webhooks/deliver-once.ts';
import { expectProblem, startTestService, workspaceWithKey, type TestService } from '../helpers/service.ts';
import { startReceiver, type Receiver } from './webhooks-receiver.ts';

// A webhook on any port of a public host, plus a last_error naming the socket error (refused,
// timed out, TLS), would make the service a port scanner of third parties. Webhooks use port 443 or
// 8443 only (docs/adr/0152-webhook-ports-and-connection-errors.md), and every failure before a
// status line reads the same in last_error. 93.184.215.14 is a public address (no DNS needed);
// nothing connects to it here.
const PUBLIC = '93.184.215.14';
let t: TestService;
let key: string;

beforeAll(async () => {
  t = await startTestService(); // production setting: loopback refused
  key = (await workspaceWithKey(t.db, { plan: 'agency', accountType: 'agency' })).key;
});
afterAll(async () => t?.close());

const register = (url: string) =>
  t.request({ method: 'POST', url: '/v1/webhooks', key, payload: { url, events: ['audit.completed'] } });

describe('webhook ports', () => {
  it('refuses any port but 443 and 8443 on a public host', async () => {
    for (const port of [6379, 22, 80, 444, 8080, 65535]) {
      const body = expectProblem(await register(`https://${PUBLIC}:${port}/hook`), 400);
      expect(body.detail).toContain(`port ${port}`);
    }
    for (const url of [
      `https://${PUBLIC}/hook`,
      `https://${PUBLIC}:443/hook`,
      `https://${PUBLIC}:8443/hook`,
    ]) {
      const res = await register(url);
      expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
    }
  });

  it('refuses plain http to loopback too unless ALLOW_LOOPBACK_FETCH is set', async () => {
    for (const url of ['http://127.0.0.1:8091/webhooks/demo', 'http://localhost:8091/webhooks/demo']) {
      const body = expectProblem(await register(url), 400);
      expect(body.detail).toContain('must use https');
    }
  });

  it('does not deliver to a stored webhook on another port (registered before the rule)', async () => {
    const outcome = await deliverOnce({
      url: `https://${PUBLIC}:6379/`,
      msgId: 'evt_port',
      payload: '{}',
      secrets: [],
      timestamp: new Date(),
    });
    expect(outcome).toMatchObject({ ok: false, statusCode: null, permanent: true });
    expect(outcome.error).toContain('port 6379');
  });
});

describe('last_error of a failure before any response', () => {
  let rx: Receiver;
  let silent: net.Server;
  let silentPort: number;
  let closedPort: number;
  beforeAll(async () => {
    rx = await startReceiver();
    silent = net.createServer(() => {}); // accepts, never answers
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    silentPort = (silent.address() as net.AddressInfo).port;
    const probe = net.createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    closedPort = (probe.address() as net.AddressInfo).port;
    await new Promise<void>((r) => probe.close(() => r()));
  });
  afterAll(async () => {
    await rx?.close();
    silent?.close();
  });

  it('is the same whether the port is closed, silent or speaks TLS with an untrusted certificate', async () => {
    const message = (url: string) => ({
      url,
      msgId: 'evt_x',
      payload: '{}',
      secrets: [],
      timestamp: new Date(),
    });
    const outcomes = [
      await deliverOnce(message(`https://127.0.0.1:${closedPort}/`), { allowLoopback: true, timeoutMs: 500 }),
      await deliverOnce(message(`https://127.0.0.1:${silentPort}/`), { allowLoopback: true, timeoutMs: 500 }),
      await deliverOnce(message(rx.url('/x')), { allowLoopback: true, timeoutMs: 500 }), // no CA given
    ];
    for (const outcome of outcomes) {
      expect(outcome).toMatchObject({ ok: false, statusCode: null, error: NO_RESPONSE, permanent: false });
    }
    // The precise causes differ, and stay out of the stored row.
    expect(new Set(outcomes.map((o) => o.cause)).size).toBe(3);
  });
});
