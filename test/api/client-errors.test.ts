import net from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, workspaceWithKey, type TestService } from '../helpers/service.ts';

// Answers Node gives before the application sees a request, and clients that hang up mid-body,
// over real sockets (inject() has no socket to overflow or abort).
let t: TestService;
let port: number;
let key: string;
const lines: Array<{ level: number; msg: string }> = [];

beforeAll(async () => {
  const logStream = new Writable({
    write(chunk, _encoding, callback) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      callback();
    },
  });
  t = await startTestService(
    {},
    { LOG_LEVEL: 'debug', REQUEST_TIMEOUT_MS: '500', CONNECTION_TIMEOUT_MS: '5000' },
    { logStream },
  );
  ({ key } = await workspaceWithKey(t.db, { plan: 'agency', accountType: 'agency' }));
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.app.server.address() as net.AddressInfo).port;
});
afterAll(async () => t?.close());

/** Writes `text`, then collects what the server answers until it closes the connection. */
function exchange(text: string, options: { hangUpAfterMs?: number } = {}): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    const received: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    const done = () => resolve(Buffer.concat(received).toString('latin1'));
    socket.on('close', done);
    socket.on('error', () => {});
    socket.on('connect', () => {
      socket.write(text);
      if (options.hangUpAfterMs !== undefined) setTimeout(() => socket.destroy(), options.hangUpAfterMs);
    });
  });
}

function problemOf(raw: string) {
  const [head, body] = raw.split('\r\n\r\n') as [string, string];
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]);
  const contentType = /content-type: ([^\r\n]+)/i.exec(head)?.[1];
  const requestId = /x-request-id: ([^\r\n]+)/i.exec(head)?.[1];
  return { status, contentType, requestId, body: JSON.parse(body) };
}

describe("Node's own answers", () => {
  it('answers headers over 16 KB with 431 problem+json', async () => {
    const raw = await exchange(
      `GET /v1/workspace HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(20_000)}\r\n\r\n`,
    );
    const res = problemOf(raw);
    expect(res.status).toBe(431);
    expect(res.contentType).toBe('application/problem+json');
    expect(res.body).toMatchObject({
      type: '/problems/request-header-fields-too-large',
      title: 'Request Header Fields Too Large',
      status: 431,
      request_id: res.requestId,
    });
    expect(typeof res.body.detail).toBe('string');
  });

  it('answers headers that do not arrive in time with 408 problem+json', async () => {
    // The headers never end; Node checks requestTimeout every 500 ms here.
    const raw = await exchange('GET /v1/workspace HTTP/1.1\r\nHost: x\r\n');
    const res = problemOf(raw);
    expect(res.status).toBe(408);
    expect(res.contentType).toBe('application/problem+json');
    expect(res.body).toMatchObject({ title: 'Request Timeout', status: 408, request_id: res.requestId });
  });
});

describe('a client that hangs up mid-body', () => {
  it('is logged as an aborted request, never as a database outage', async () => {
    const before = lines.length;
    for (let i = 0; i < 3; i++) {
      await exchange(
        `POST /v1/campaigns HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n` +
          `Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"name": "half`,
        { hangUpAfterMs: 100 },
      );
    }
    // Each hang-up is logged when the server notices it: wait for the three, however loaded the machine.
    const abortedLines = () => lines.slice(before).filter((l) => /client aborted/.test(l.msg));
    await expect.poll(() => abortedLines().length, { timeout: 15_000 }).toBe(3);
    const logged = lines.slice(before);
    expect(logged.filter((l) => /database unavailable/.test(l.msg))).toEqual([]);
    expect(logged.filter((l) => l.level >= 40)).toEqual([]); // no warning or error at all
    const aborted = logged.filter((l) => /client aborted/.test(l.msg));
    expect(aborted).toHaveLength(3);
    for (const l of aborted) expect(l.level).toBeLessThanOrEqual(30); // info or below
    // And the service is fine.
    const ok = await t.request({ method: 'GET', url: '/v1/workspace', key });
    expect(ok.statusCode).toBe(200);
  });
});
