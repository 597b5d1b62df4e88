import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { makeJpeg, makeMp4, makePng } from './media-files.ts';

/**
 * What the local sandbox (`npm run demo`) offers beside the service so that webhooks and studio media
 * can be tried on one machine, where the service otherwise reaches public internet addresses only:
 *
 * - a webhook inspector: any POST under /webhooks/ is kept (the newest 100) and listed at GET /webhooks
 *   (HTML for a browser, JSON for `Accept: application/json`), with the Standard Webhooks headers, so a
 *   delivery and its signature can be looked at;
 * - sample media under /media/: real, minimal image and video files at the sizes the studio judges
 *   (portrait, square, landscape, vertical video), to score with `content_type` image or video.
 *
 * The demo's service runs with ALLOW_LOOPBACK_FETCH, so it delivers to and fetches from this server on
 * the loopback address (over plain http); docs/webhooks.md "Trying webhooks locally".
 */
export interface ReceivedWebhook {
  received_at: string;
  path: string;
  headers: { 'webhook-id'?: string; 'webhook-timestamp'?: string; 'webhook-signature'?: string };
  body: unknown;
}

export interface LocalTools {
  /** http://host:port */
  url: string;
  /** Deliveries kept, newest first. */
  webhooks(): ReceivedWebhook[];
  close(): Promise<void>;
}

const KEPT = 100;
const MAX_BODY_BYTES = 256 * 1024;

/** The sample files, built once: name -> [content type, bytes]. */
function sampleMedia(): Map<string, [string, Buffer]> {
  return new Map([
    ['portrait-1080x1350.jpg', ['image/jpeg', makeJpeg(1080, 1350)]],
    ['square-1080x1080.png', ['image/png', makePng(1080, 1080)]],
    ['landscape-1280x720.png', ['image/png', makePng(1280, 720)]],
    ['tiny-200x200.png', ['image/png', makePng(200, 200)]],
    [
      'vertical-1080x1920-30s.mp4',
      ['video/mp4', makeMp4({ width: 1080, height: 1920, durationSeconds: 30, audio: true })],
    ],
    [
      'landscape-1920x1080-8min.mp4',
      ['video/mp4', makeMp4({ width: 1920, height: 1080, durationSeconds: 480, audio: true })],
    ],
  ]);
}

const escape = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escape(title)}</title>
<style>body{font:14px system-ui,sans-serif;margin:2rem;max-width:70rem}pre{background:#f4f4f4;padding:.5rem;overflow:auto}td,th{text-align:left;padding:.25rem .5rem;vertical-align:top}</style>
</head><body><h1>${escape(title)}</h1>${body}</body></html>`;
}

export async function startLocalTools(options: { port?: number; host?: string } = {}): Promise<LocalTools> {
  const host = options.host ?? '127.0.0.1';
  const received: ReceivedWebhook[] = [];
  const media = sampleMedia();

  const send = (res: ServerResponse, status: number, type: string, body: string | Buffer) => {
    res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
    res.end(body);
  };

  const receive = (req: IncomingMessage, res: ServerResponse, path: string) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        send(res, 413, 'text/plain', 'body too large for the inspector\n');
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (res.headersSent) return;
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // Kept as text: the inspector shows what arrived.
      }
      const header = (name: string) => {
        const v = req.headers[name];
        return typeof v === 'string' ? v : undefined;
      };
      received.unshift({
        received_at: new Date().toISOString(),
        path,
        headers: {
          'webhook-id': header('webhook-id'),
          'webhook-timestamp': header('webhook-timestamp'),
          'webhook-signature': header('webhook-signature'),
        },
        body,
      });
      received.length = Math.min(received.length, KEPT);
      res.writeHead(204).end();
    });
  };

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://local');
    const path = url.pathname;
    if (req.method === 'POST' && path.startsWith('/webhooks/')) return receive(req, res, path);
    if (req.method === 'GET' && (path === '/webhooks' || path === '/webhooks/')) {
      if (String(req.headers.accept ?? '').includes('application/json')) {
        return send(res, 200, 'application/json', JSON.stringify({ webhooks: received }));
      }
      const rows = received
        .map(
          (w) =>
            `<tr><td>${escape(w.received_at)}</td><td>${escape(w.path)}</td><td>${escape(
              String((w.body as { type?: unknown })?.type ?? ''),
            )}</td><td><pre>${escape(JSON.stringify(w.headers, null, 2))}</pre><pre>${escape(
              JSON.stringify(w.body, null, 2),
            )}</pre></td></tr>`,
        )
        .join('');
      return send(
        res,
        200,
        'text/html; charset=utf-8',
        page(
          'Webhook inspector',
          `<p>Register a webhook with a URL under <code>${escape(`http://${host}:${port()}/webhooks/`)}</code> ` +
            `(for example <code>/webhooks/demo</code>); each delivery appears here, newest first (the last ${KEPT}).</p>` +
            (rows
              ? `<table><tr><th>received</th><th>path</th><th>event</th><th>headers and body</th></tr>${rows}</table>`
              : '<p>Nothing received yet.</p>'),
        ),
      );
    }
    if (req.method === 'GET' && (path === '/media' || path === '/media/')) {
      const items = [...media.keys()].map((name) => `<li><a href="/media/${name}">${name}</a></li>`).join('');
      return send(
        res,
        200,
        'text/html; charset=utf-8',
        page(
          'Sample media for the studio',
          `<p>Score one with its URL as the studio's content.</p><ul>${items}</ul>`,
        ),
      );
    }
    const file = req.method === 'GET' && path.startsWith('/media/') ? media.get(path.slice(7)) : undefined;
    if (file) return send(res, 200, file[0], file[1]);
    send(res, 404, 'text/plain', 'not found: POST /webhooks/<name>, GET /webhooks, GET /media/\n');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const port = () => (server.address() as AddressInfo).port;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port()}`,
    webhooks: () => [...received],
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
