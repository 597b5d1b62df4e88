import type { ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { generate } from 'selfsigned';
import { afterEach, describe, expect, it } from 'vitest';
import { StudioError } from '../../src/studio/errors.ts';
import { ImageProbe, Mp4Probe } from '../../src/studio/media-probe.ts';
import { fetchMedia } from '../../src/studio/safe-fetch.ts';
import type { BodySink, SafeFetchOptions } from '../../src/studio/safe-fetch.ts';
import { listen, makeJpeg, makePng, mp4PrefixWithHugeMdat } from '../helpers/media.ts';
import type { TestServer } from '../helpers/media.ts';

const FAST = { connectMs: 1000, headersMs: 300, totalMs: 2000 };
const local: SafeFetchOptions = { allowLoopback: true, timeouts: FAST };

/** Collects the whole body. */
class Collect implements BodySink {
  chunks: Buffer[] = [];
  write(chunk: Buffer): boolean {
    this.chunks.push(chunk);
    return false;
  }
  get body() {
    return Buffer.concat(this.chunks);
  }
}

let servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});

async function serve(handler: Parameters<typeof listen>[0]): Promise<TestServer> {
  const server = await listen(handler);
  servers.push(server);
  return server;
}

async function failure(promise: Promise<unknown>): Promise<StudioError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(StudioError);
  return error as StudioError;
}

/** Streams `unit` forever (with back-pressure) until the client goes away; resolves with bytes sent. */
function streamForever(res: ServerResponse, unit: Buffer): Promise<number> {
  return new Promise((resolve) => {
    let sent = 0;
    let open = true;
    res.on('close', () => {
      open = false;
      resolve(sent);
    });
    const pump = () => {
      while (open) {
        sent += unit.length;
        if (!res.write(unit)) {
          res.once('drain', pump);
          return;
        }
      }
    };
    pump();
  });
}

describe('safe media fetch', () => {
  it('fetches from loopback only when allowed', async () => {
    let hits = 0;
    const server = await serve((_req, res) => {
      hits++;
      res.end('hello');
    });
    const sink = new Collect();
    const outcome = await fetchMedia(`${server.origin}/a`, sink, local);
    expect(sink.body.toString()).toBe('hello');
    expect(outcome).toMatchObject({ complete: true, bytesRead: 5, declaredBytes: 5 });

    const refused = await failure(fetchMedia(`${server.origin}/a`, new Collect(), { timeouts: FAST }));
    expect(refused.kind).toBe('media_refused');
    expect(refused.detail).toContain('loopback');
    expect(hits).toBe(1);
  });

  it.each([
    'http://10.0.0.1/',
    'http://169.254.169.254/latest/meta-data/',
    'http://[::ffff:169.254.169.254]/',
    'http://[fd00::1]/',
    'http://metadata.google.internal/computeMetadata/v1/',
    'http://192.168.0.1:8080/admin',
  ])('refuses a redirect to %s', async (location) => {
    let hits = 0;
    const server = await serve((_req, res) => {
      hits++;
      res.writeHead(302, { location }).end();
    });
    const error = await failure(fetchMedia(`${server.origin}/start`, new Collect(), local));
    expect(error.kind).toBe('media_refused');
    expect(hits).toBe(1);
  });

  it.each([
    'http://0x7f.1/',
    'http://2130706433/',
    'http://017700000001/',
    'http://[::1]/',
    'http://localhost/',
  ])('sees through the loopback spelling %s', async (url) => {
    const error = await failure(fetchMedia(url, new Collect(), { timeouts: FAST }));
    expect(error.kind).toBe('media_refused');
  });

  it('refuses non-http schemes, credentials and garbage', async () => {
    for (const url of ['ftp://example.com/a.png', 'file:///etc/passwd', 'gopher://x/', 'not a url']) {
      expect((await failure(fetchMedia(url, new Collect(), local))).kind).toBe('media_refused');
    }
    expect((await failure(fetchMedia('http://user:pw@example.com/', new Collect(), local))).detail).toContain(
      'credentials',
    );
  });

  it('follows up to 3 redirects and refuses a 4th', async () => {
    const server = await serve((req, res) => {
      const n = Number(req.url?.slice(1));
      if (n > 0) res.writeHead(302, { location: `/${n - 1}` }).end();
      else res.end('done');
    });
    const sink = new Collect();
    const outcome = await fetchMedia(`${server.origin}/3`, sink, local);
    expect(sink.body.toString()).toBe('done');
    expect(outcome.url).toBe(`${server.origin}/0`);
    const error = await failure(fetchMedia(`${server.origin}/4`, new Collect(), local));
    expect(error).toMatchObject({ kind: 'media_refused', detail: 'more than 3 redirects' });
  });

  it('connects to the address it checked, asking DNS only once per hop', async () => {
    let host: string | undefined;
    const server = await serve((req, res) => {
      host = req.headers.host;
      res.end('pinned');
    });
    const port = new URL(server.origin).port;
    // A rebinding resolver: the first answer passes the check, later answers are private.
    const answers = [['127.0.0.1'], ['10.0.0.1']];
    const queried: string[] = [];
    const resolve = async (name: string) => {
      queried.push(name);
      return answers.shift() ?? ['10.0.0.1'];
    };
    const sink = new Collect();
    await fetchMedia(`http://media.test:${port}/x`, sink, { ...local, resolve });
    expect(sink.body.toString()).toBe('pinned');
    expect(queried).toEqual(['media.test']);
    expect(host).toBe(`media.test:${port}`);
  });

  it('keeps TLS verification of the name while connecting to the pinned address', async () => {
    const pems = await generate([{ name: 'commonName', value: 'media.test' }], {
      keyType: 'ec',
      algorithm: 'sha256',
      extensions: [{ name: 'subjectAltName', altNames: [{ type: 2, value: 'media.test' }] }],
    });
    let sni: string | undefined;
    const server = https.createServer({ key: pems.private, cert: pems.cert }, (req, res) => {
      sni = (req.socket as import('node:tls').TLSSocket).servername || undefined;
      res.end('secure');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const resolve = async () => ['127.0.0.1'];
      const sink = new Collect();
      await fetchMedia(`https://media.test:${port}/`, sink, { ...local, resolve, ca: pems.cert });
      expect(sink.body.toString()).toBe('secure');
      expect(sni).toBe('media.test');
      // Same address, other name: the certificate does not match, so the fetch fails.
      const error = await failure(
        fetchMedia(`https://other.test:${port}/`, new Collect(), { ...local, resolve, ca: pems.cert }),
      );
      expect(error.kind).toBe('media_unreachable');
      expect(error.detail).toBe(`the TLS certificate of other.test:${port} could not be verified`);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('refuses a name when any of its addresses is private', async () => {
    const resolve = async () => ['93.184.216.34', '10.1.2.3'];
    const error = await failure(
      fetchMedia('http://mixed.test/a.png', new Collect(), { resolve, timeouts: FAST }),
    );
    // Unreachable, in the same words as a name that does not resolve: our DNS answers stay unsaid.
    expect(error.kind).toBe('media_unreachable');
    expect(error.detail).toBe('host "mixed.test" has no public internet address');
  });

  it('refuses a declared Content-Length over the cap without reading the body', async () => {
    let closed: Promise<number> | undefined;
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-length': String(5 * 1024 * 1024) });
      closed = streamForever(res, Buffer.alloc(16 * 1024));
    });
    const sink = new Collect();
    const error = await failure(fetchMedia(server.origin, sink, { ...local, maxBytes: 1024 * 1024 }));
    expect(error.kind).toBe('content_too_large');
    expect(error.detail).toContain('Content-Length is 5,242,880');
    expect(sink.chunks).toHaveLength(0);
    await closed;
  });

  it('stops a chunked body as soon as it passes the cap', async () => {
    const cap = 256 * 1024;
    let sent: Promise<number> | undefined;
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'video/mp4' });
      res.write(mp4PrefixWithHugeMdat(0xffffffff));
      sent = streamForever(res, Buffer.alloc(16 * 1024));
    });
    const error = await failure(fetchMedia(server.origin, new Mp4Probe(), { ...local, maxBytes: cap }));
    expect(error.kind).toBe('content_too_large');
    // The server notices the hang-up; what it sent is bounded by socket buffers, not the stream.
    expect(await sent).toBeLessThan(64 * 1024 * 1024);
  });

  it('stops an image whose header never ends at the cap', async () => {
    const segment = Buffer.concat([Buffer.from([0xff, 0xe2, 0xff, 0xff]), Buffer.alloc(0xfffd)]);
    const server = await serve((_req, res) => {
      res.write(Buffer.from([0xff, 0xd8]));
      void streamForever(res, segment);
    });
    const error = await failure(
      fetchMedia(server.origin, new ImageProbe(), { ...local, maxBytes: 512 * 1024 }),
    );
    expect(error.kind).toBe('content_too_large');
  });

  it('reads only the header of a large image', async () => {
    let sent: Promise<number> | undefined;
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-length': String(50 * 1024 * 1024) });
      res.write(makePng(1080, 1080));
      sent = streamForever(res, Buffer.alloc(64 * 1024));
    });
    const probe = new ImageProbe();
    const outcome = await fetchMedia(server.origin, probe, local);
    expect(outcome.complete).toBe(false);
    expect(outcome.declaredBytes).toBe(50 * 1024 * 1024);
    expect(outcome.bytesRead).toBeLessThan(1024 * 1024);
    expect(probe.result()).toEqual({ type: 'png', width: 1080, height: 1080 });
    await sent;
  });

  it('times out quickly when the server never sends headers', async () => {
    const server = await serve(() => {
      /* never answers */
    });
    const error = await failure(
      fetchMedia(server.origin, new Collect(), {
        allowLoopback: true,
        timeouts: { headersMs: 200, totalMs: 5000 },
      }),
    );
    expect(error.kind).toBe('media_unreachable');
    // The headers timeout ended it, not the total one.
    expect(error.detail).toContain('timed out after 200 ms waiting for response headers');
  });

  it('gives up on a DNS lookup that never answers', async () => {
    const resolve = () => new Promise<string[]>(() => undefined);
    const error = await failure(
      fetchMedia('http://slow-dns.test/', new Collect(), {
        resolve,
        timeouts: { connectMs: 150, totalMs: 5000 },
      }),
    );
    expect(error).toMatchObject({
      kind: 'media_unreachable',
      detail: 'host "slow-dns.test" has no public internet address',
    });
    const missing = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    };
    expect(await failure(fetchMedia('http://nx.test/', new Collect(), { resolve: missing }))).toMatchObject({
      kind: 'media_unreachable',
      detail: 'host "nx.test" has no public internet address',
    });
  });

  it('enforces the total deadline while the body trickles', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200);
      res.write(Buffer.from([0xff, 0xd8, 0xff, 0xe0]));
      // then nothing more
    });
    const error = await failure(
      fetchMedia(server.origin, new ImageProbe(), { allowLoopback: true, timeouts: { totalMs: 300 } }),
    );
    expect(error).toMatchObject({
      kind: 'media_unreachable',
      detail: 'timed out after 300 ms fetching the media',
    });
  });

  it('reports error statuses and refused connections as unreachable', async () => {
    const server = await serve((_req, res) => res.writeHead(404).end('nope'));
    expect(await failure(fetchMedia(server.origin, new Collect(), local))).toMatchObject({
      kind: 'media_unreachable',
      detail: 'the media server did not return the media (an error status)',
    });
    const gone = await serve(() => undefined);
    const origin = gone.origin;
    await gone.close();
    servers = servers.filter((s) => s !== gone);
    const closed = await failure(fetchMedia(origin, new Collect(), local));
    expect(closed.detail).toBe(`could not connect to ${new URL(origin).host}`);
  });

  it('sniffs the bytes instead of trusting Content-Type', async () => {
    const server = await serve((req, res) => {
      if (req.url === '/html')
        res.writeHead(200, { 'content-type': 'image/png' }).end('<!DOCTYPE html><html></html>');
      else res.writeHead(200, { 'content-type': 'text/html' }).end(makeJpeg(800, 600));
    });
    const html = await failure(fetchMedia(`${server.origin}/html`, new ImageProbe(), local));
    expect(html).toMatchObject({ kind: 'media_unsupported' });
    expect(html.detail).toBe('expected a PNG, JPEG, GIF or WebP image but got an HTML page');
    const probe = new ImageProbe();
    await fetchMedia(`${server.origin}/jpeg`, probe, local);
    expect(probe.result()).toEqual({ type: 'jpg', width: 800, height: 600 });
  });
});
