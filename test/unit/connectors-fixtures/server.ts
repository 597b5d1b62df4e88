import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';

/** One recorded exchange: the first route whose method, path and query subset match answers. */
export interface Route {
  method: string;
  path: string;
  query?: Record<string, string>;
  status?: number;
  body: unknown;
}

export interface Seen {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
}

export function loadFixture(name: string): Route[] {
  return JSON.parse(readFileSync(new URL(`./${name}.json`, import.meta.url), 'utf8')) as Route[];
}

/**
 * A platform API stand-in on 127.0.0.1 serving recorded responses. `{BASE}` in a body is
 * replaced with the server's origin (for pagination links).
 */
export async function fixtureServer(
  routes: Route[],
): Promise<{ origin: string; seen: Seen[]; close(): Promise<void> }> {
  const seen: Seen[] = [];
  let origin = '';
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://fixture');
    const query = Object.fromEntries(url.searchParams);
    seen.push({ method: req.method ?? 'GET', path: url.pathname, query, headers: req.headers });
    const route = routes.find(
      (r) =>
        r.method === req.method &&
        r.path === url.pathname &&
        Object.entries(r.query ?? {}).every(([k, v]) => query[k] === v),
    );
    const status = route ? (route.status ?? 200) : 404;
    const body = route
      ? JSON.stringify(route.body).replaceAll('{BASE}', origin)
      : JSON.stringify({ error: { message: `no fixture for ${url.pathname}` } });
    res.writeHead(status, { 'content-type': 'application/json' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    seen,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
