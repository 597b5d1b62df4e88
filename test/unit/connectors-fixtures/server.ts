import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';

/**
 * One exchange as the platform's documentation gives it. A route answers a request whose method and
 * path are its own and whose query has exactly the route's parameters (no fewer, no more; the value
 * `*` matches any value): a parameter the platform does not know, a removed metric or a missing one
 * finds no route and gets a 400, as the platform would refuse it.
 */
export interface Route {
  method: string;
  path: string;
  /** Every query parameter the request must send, with its value or `*`; absent means none. */
  query?: Record<string, string>;
  status?: number;
  headers?: Record<string, string>;
  body: unknown;
  /** The documentation page (or production connector source) the request and the answer are copied from. */
  source: string;
}

export interface Seen {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
}

export function loadFixture(name: string): Route[] {
  const routes = JSON.parse(readFileSync(new URL(`./${name}.json`, import.meta.url), 'utf8')) as Route[];
  for (const r of routes) {
    if (typeof r.source !== 'string' || !r.source) {
      throw new Error(
        `${name}.json: ${r.method} ${r.path} does not cite the page it was copied from (source)`,
      );
    }
  }
  return routes;
}

/** Whether a request's query is exactly the route's (every parameter declared, `*` any value). */
export function queryMatches(declared: Record<string, string> = {}, query: Record<string, string>): boolean {
  const keys = Object.keys(query);
  return (
    keys.length === Object.keys(declared).length &&
    keys.every((k) => k in declared && (declared[k] === '*' || declared[k] === query[k]))
  );
}

/**
 * A platform API stand-in on 127.0.0.1 serving the documented exchanges. `{BASE}` in a body is
 * replaced with the server's origin (for pagination links). A request no route matches is refused
 * with 400 and a body saying what was asked, so a connector sending what the platform would refuse
 * fails its test.
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
      (r) => r.method === req.method && r.path === url.pathname && queryMatches(r.query, query),
    );
    const status = route ? (route.status ?? 200) : 400;
    const body = route
      ? JSON.stringify(route.body).replaceAll('{BASE}', origin)
      : JSON.stringify({
          error: { message: `no documented exchange for ${req.method} ${url.pathname}${url.search}` },
        });
    res.writeHead(status, { 'content-type': 'application/json', ...(route?.headers ?? {}) }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    seen,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
