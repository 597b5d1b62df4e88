import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, startTestService, workspaceWithKey, type TestService } from '../helpers/service.ts';
import { makeMp4 } from '../helpers/media.ts';

// One small studio request must not make the service download a whole video: a 60 MB MP4 whose
// moov box sits after its media data, served by a local server that counts the bytes it sends.
const MDAT = 60 * 1024 * 1024;
const moovLast = makeMp4({
  width: 1080,
  height: 1920,
  durationSeconds: 30,
  audio: true,
  mdatBeforeMoov: MDAT,
});
const ftypSize = moovLast.readUInt32BE(0);
const moovFirst = Buffer.concat([
  moovLast.subarray(0, ftypSize),
  moovLast.subarray(ftypSize + 8 + MDAT),
  moovLast.subarray(ftypSize, ftypSize + 8 + MDAT),
]);

interface Counter {
  origin: string;
  sent: number;
  requests: Array<string | undefined>;
  close(): Promise<void>;
}

/** Streams `file` in 64 KB writes with backpressure, so `sent` is close to what left the process. */
async function mediaServer(file: Buffer, ranges: boolean): Promise<Counter> {
  const counter = { sent: 0, requests: [] as Array<string | undefined> };
  const server = http.createServer(async (req, res) => {
    counter.requests.push(req.headers.range);
    let start = 0;
    let end = file.length - 1;
    const match = ranges ? /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '') : null;
    if (match) {
      start = Number(match[1]);
      end = Math.min(match[2] ? Number(match[2]) : end, file.length - 1);
      res.writeHead(206, {
        'content-type': 'video/mp4',
        'content-length': String(end - start + 1),
        'content-range': `bytes ${start}-${end}/${file.length}`,
        'accept-ranges': 'bytes',
      });
    } else {
      res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': String(file.length) });
    }
    let closed = false;
    res.on('close', () => (closed = true));
    for (let at = start; at <= end && !closed; at += 64 * 1024) {
      const chunk = file.subarray(at, Math.min(at + 64 * 1024, end + 1));
      counter.sent += chunk.length;
      if (!res.write(chunk)) await new Promise((r) => res.once('drain', r).once('close', r));
    }
    if (!closed) res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get sent() {
      return counter.sent;
    },
    requests: counter.requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

let t: TestService;
let key: string;
const servers: Counter[] = [];
beforeAll(async () => {
  t = await startTestService({ allowLoopbackFetch: true, studioMediaFetchesPerHour: 4 });
  ({ key } = await workspaceWithKey(t.db, { plan: 'agency', accountType: 'agency' }));
});
afterAll(async () => {
  for (const s of servers) await s.close();
  await t?.close();
});

async function scoreVideo(k: string, url: string) {
  return t.request({
    method: 'POST',
    url: '/v1/studio/score',
    key: k,
    payload: { content_type: 'video', content: url, platform: 'tiktok' },
  });
}

const MB = 1024 * 1024;

describe('studio media fetching reads only what it needs', () => {
  it('reads the start and then only the moov at the end of a 60 MB MP4 from a server with ranges', async () => {
    const server = await mediaServer(moovLast, true);
    servers.push(server);
    const res = await scoreVideo(key, `${server.origin}/clip.mp4`);
    expect(res.statusCode, res.body).toBe(200);
    expect(server.sent).toBeLessThan(2 * MB);
    expect(server.requests.length).toBeGreaterThanOrEqual(2);
    expect(server.requests.every((r) => r?.startsWith('bytes='))).toBe(true);
  });

  it('stops early on a fast-start MP4 from a server without ranges', async () => {
    const server = await mediaServer(moovFirst, false);
    servers.push(server);
    const res = await scoreVideo(key, `${server.origin}/clip.mp4`);
    expect(res.statusCode, res.body).toBe(200);
    // What was read, plus what socket buffers held when the connection was dropped.
    expect(server.sent).toBeLessThan(8 * MB);
  });

  it('gives up at the 16 MB probe ceiling when the moov is at the end and ranges are not served', async () => {
    const server = await mediaServer(moovLast, false);
    servers.push(server);
    const body = expectProblem(await scoreVideo(key, `${server.origin}/clip.mp4`), 422, 'Unsupported Media');
    expect(body.detail).toMatch(/not within the first 16 MB/);
    expect(server.sent).toBeLessThan(24 * MB);
  });

  it('holds each workspace to its media fetch budget per hour, answering 429 with Retry-After', async () => {
    // The three requests above spent 3 of this workspace's 4.
    const server = await mediaServer(moovFirst, true);
    servers.push(server);
    expect((await scoreVideo(key, `${server.origin}/clip.mp4`)).statusCode).toBe(200);
    const res = await scoreVideo(key, `${server.origin}/clip.mp4`);
    const body = expectProblem(res, 429, 'Media Budget Exceeded');
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(3600);
    expect(body.detail).toMatch(/4 media URLs this hour/);
    expect(server.requests).toHaveLength(1); // the refused request fetched nothing
    // Text needs no fetch and is not limited; another workspace has its own budget.
    const text = await t.request({
      method: 'POST',
      url: '/v1/studio/score',
      key,
      payload: { content_type: 'text', content: 'hello', platform: 'tiktok' },
    });
    expect(text.statusCode).toBe(200);
    const other = await workspaceWithKey(t.db, { plan: 'agency', accountType: 'agency' });
    expect((await scoreVideo(other.key, `${server.origin}/clip.mp4`)).statusCode).toBe(200);
  });
});
