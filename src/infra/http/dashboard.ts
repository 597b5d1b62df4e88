import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { API_REFERENCE_PATH } from './api-reference.ts';

/** Where `npm install` (the `prepare` script) builds the dashboard: dashboard/dist. */
export const DASHBOARD_DIST = fileURLToPath(new URL('../../../dashboard/dist/', import.meta.url));
export const DASHBOARD_PATH = '/app/';

/**
 * Serves the built web dashboard at /app/ when the build exists (a service started from a checkout
 * without devDependencies has no build and simply no dashboard). The page talks to the API on the
 * same origin with the key in a header; its CSP keeps every request on this origin, so the key held in
 * session storage can be sent nowhere else, and no referrer leaves the page.
 */
export async function dashboardPlugin(app: FastifyInstance, dist = DASHBOARD_DIST): Promise<void> {
  const built = fs.existsSync(`${dist}index.html`);
  // The root: a browser goes to the dashboard; a program (or a service without the dashboard's
  // build) gets the map of where things are, never a 404.
  app.get('/', { schema: { hide: true } }, async (request, reply) => {
    if (built && /\btext\/html\b/.test(request.headers.accept ?? '')) {
      return reply.redirect(DASHBOARD_PATH, 302);
    }
    return {
      service: 'brand-health',
      dashboard: built ? DASHBOARD_PATH : null,
      api_reference: API_REFERENCE_PATH,
      openapi: '/openapi.json',
      health: '/healthz',
      readiness: '/readyz',
    };
  });
  if (!built) return;
  await app.register(fastifyStatic, {
    root: dist,
    prefix: DASHBOARD_PATH,
    // The bundle's names carry their content hash; index.html must be revalidated.
    cacheControl: false,
    setHeaders(reply, file) {
      reply.header(
        'Cache-Control',
        file.endsWith('index.html') ? 'no-cache' : 'public, max-age=31536000, immutable',
      );
      reply.header(
        'Content-Security-Policy',
        "default-src 'self'; connect-src 'self'; img-src 'self' data: blob:; style-src 'self' 'unsafe-inline'; " +
          "script-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'",
      );
      reply.header('Referrer-Policy', 'no-referrer');
      reply.header('X-Content-Type-Options', 'nosniff');
    },
  });
  app.get('/app', { schema: { hide: true } }, async (_request, reply) => reply.redirect(DASHBOARD_PATH, 301));
}
