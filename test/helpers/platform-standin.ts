import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadFixture, type Route } from '../unit/connectors-fixtures/server.ts';
import { GRAPH_API_VERSION } from '../../src/ingest/connectors/index.ts';

/** Where each fixture's recorded paths live on the real platform: `<api>` -> its path prefix. */
const PREFIXES: Record<string, Record<string, string>> = {
  instagram: { graph: `/${GRAPH_API_VERSION}` },
  tiktok: { business: '/open_api/v1.3' },
};

export interface Fault {
  status: number;
  headers?: Record<string, string>;
}

/**
 * The recorded instagram and tiktok answers (test/unit/connectors-fixtures) served at the layout
 * PLATFORM_<NAME>_API_URL expects (`<origin>/<platform>/<api>/...`), with faults queued per
 * platform (a 429 burst, a 5xx) answered before the recorded ones.
 */
export async function platformStandIn() {
  const routes: Record<string, Route[]> = {
    instagram: loadFixture('instagram'),
    tiktok: loadFixture('tiktok'),
  };
  const faults: Record<string, Fault[]> = { instagram: [], tiktok: [] };
  const refuseRefresh = new Set<string>();
  const requests: Array<{ platform: string; path: string; status: number; authorization: string }> = [];
  let origin = '';
  const control = { delayMs: 0 };
  const server: Server = createServer((req, res) => {
    if (control.delayMs > 0 && !req.headers['x-standin-delayed']) {
      req.headers['x-standin-delayed'] = '1';
      setTimeout(() => server.emit('request', req, res), control.delayMs);
      return;
    }
    const url = new URL(req.url ?? '/', 'http://standin');
    const [, platform = '', api = '', ...rest] = url.pathname.split('/');
    const prefix = PREFIXES[platform]?.[api];
    if (api === 'oauth' && platform === 'tiktok') {
      // TikTok API for Business: the refresh endpoint answers in an HTTP 200 envelope, refusals included.
      const refused = refuseRefresh.has(platform);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify(
          refused
            ? { code: 40105, message: 'The refresh token is incorrect or has been revoked.', data: {} }
            : {
                code: 0,
                message: 'OK',
                data: { access_token: 'refreshed-tiktok-token', expires_in: 86400, token_type: 'Bearer' },
              },
        ),
      );
      return;
    }
    if (api === 'oauth') {
      // The token endpoint: refresh grants are refused (revoked consent) or answered with a new token.
      const refused = refuseRefresh.has(platform);
      res.writeHead(refused ? 400 : 200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      res.end(
        JSON.stringify(
          refused
            ? { error: 'invalid_grant', error_description: 'refresh token revoked' }
            : { access_token: `refreshed-${platform}-token`, token_type: 'Bearer', expires_in: 3600 },
        ),
      );
      return;
    }
    const fault = faults[platform]?.shift();
    const auth = String(req.headers.authorization ?? req.headers['access-token'] ?? '');
    if (fault) {
      requests.push({ platform, path: url.pathname, status: fault.status, authorization: auth });
      res.writeHead(fault.status, { 'content-type': 'application/json', ...fault.headers });
      res.end(JSON.stringify({ error: { message: `injected ${fault.status}` } }));
      return;
    }
    const path = `${prefix}/${rest.join('/')}`;
    const query = Object.fromEntries(url.searchParams);
    const route = (routes[platform] ?? []).find(
      (r) =>
        r.method === req.method &&
        r.path === path &&
        Object.entries(r.query ?? {}).every(([k, v]) => (v === '*' ? k in query : query[k] === v)),
    );
    const status = route ? (route.status ?? 200) : 404;
    requests.push({ platform, path: url.pathname, status, authorization: auth });
    const body = route
      ? JSON.stringify(route.body).replaceAll(`{BASE}${prefix}`, `${origin}/${platform}/${api}`)
      : JSON.stringify({ error: { message: `no fixture for ${path}` } });
    res.writeHead(status, { 'content-type': 'application/json' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    faults,
    refuseRefresh,
    /** Slow answers: every request waits this long. */
    control,
    requests,
    /** Environment pointing the service's instagram and tiktok APIs here. */
    env: {
      PLATFORM_INSTAGRAM_API_URL: `${origin}/instagram`,
      PLATFORM_TIKTOK_API_URL: `${origin}/tiktok`,
      PLATFORM_INSTAGRAM_TOKEN_URL: `${origin}/instagram/oauth/token`,
      PLATFORM_TIKTOK_TOKEN_URL: `${origin}/tiktok/oauth/token`,
      PLATFORM_INSTAGRAM_CLIENT_ID: 'standin-instagram',
      PLATFORM_INSTAGRAM_CLIENT_SECRET: 'standin-secret',
      PLATFORM_TIKTOK_CLIENT_ID: 'standin-tiktok',
      PLATFORM_TIKTOK_CLIENT_SECRET: 'standin-secret',
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
