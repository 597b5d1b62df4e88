import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, startTestService, workspaceWithKey, type TestService } from '../helpers/service.ts';

// Files that pass the MP4 sniff (an 'ftyp' box first) and then break the parser. What the caller
// reads in `detail` must be the class of problem, never the parser's message (mp4box quotes the
// four bytes of a box type it refuses) nor an exception's text. ISO BMFF boxes: a 32-bit size, a
// four-character type, the payload.
const MARKER = 'QZ\x7fJ';

function box(size: number, type: string, payload: Buffer = Buffer.alloc(0)): Buffer {
  const header = Buffer.alloc(8);
  header.writeUInt32BE(size, 0);
  header.write(type, 4, 'latin1');
  return Buffer.concat([header, payload]);
}
const ftyp = box(24, 'ftyp', Buffer.from('isom\0\0\x02\0isomiso2', 'latin1'));

const BODIES: Record<string, Buffer> = {
  // mp4box refuses a box type outside printable ASCII and says so, quoting the type.
  'a box type the parser refuses': Buffer.concat([ftyp, box(16, MARKER), Buffer.alloc(64, 0x41)]),
  // A movie header shorter than its own header: the movie has no duration to read.
  'a movie header shorter than a box header': Buffer.concat([
    ftyp,
    box(40, 'moov', Buffer.concat([box(4, 'mvhd'), Buffer.from(MARKER.repeat(7), 'latin1')])),
  ]),
  // A movie header with a marker where its fields should be: mp4box reads past its end (RangeError).
  'a movie header with a marker for payload': Buffer.concat([
    ftyp,
    box(
      40,
      'moov',
      Buffer.concat([
        box(16, 'mvhd', Buffer.from(MARKER.repeat(2), 'latin1')),
        box(8, MARKER),
        box(8, 'trak'),
      ]),
    ),
  ]),
};

let t: TestService;
let key: string;
let server: http.Server;
let origin: string;
beforeAll(async () => {
  t = await startTestService({ allowLoopbackFetch: true });
  ({ key } = await workspaceWithKey(t.db, { plan: 'agency', accountType: 'agency' }));
  server = http.createServer((req, res) => {
    const name = decodeURIComponent((req.url ?? '/').slice(1));
    const body = BODIES[name];
    if (!body) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': String(body.length) }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  await t?.close();
});

describe('studio errors carry no fetched bytes and no parser text', () => {
  for (const name of Object.keys(BODIES)) {
    it(`answers ${name} with the class of problem only`, async () => {
      const res = await t.request({
        method: 'POST',
        url: '/v1/studio/score',
        key,
        payload: {
          content_type: 'video',
          content: `${origin}/${encodeURIComponent(name)}`,
          platform: 'tiktok',
        },
      });
      const body = expectProblem(res, 422, 'Unsupported Media');
      const detail = String(body.detail);
      for (const piece of ['QZ', 'ZX', 'XJ', '\x7f']) expect(detail).not.toContain(piece);
      expect(detail).not.toMatch(/Error|typed array|DataView|undefined|position|ISOFile|BoxParser/);
      expect(detail).toMatch(/^the MP4 (could not be parsed|has no complete moov box)/);
    });
  }
});
