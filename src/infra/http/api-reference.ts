import apiReference from '@scalar/fastify-api-reference';
import type { FastifyInstance } from 'fastify';

export const API_REFERENCE_PATH = '/reference';

/**
 * The Scalar API reference at /reference (docs/decisions.md, "API reference UI"), rendered from the
 * same @fastify/swagger document as /openapi.json. Its script is the copy bundled in the plugin, served
 * from /reference/js/scalar.js: the page needs no outside network (no CDN, no web fonts, no telemetry,
 * no request proxy: "Send" calls this service directly from the browser).
 */
export async function apiReferencePlugin(app: FastifyInstance): Promise<void> {
  await app.register(apiReference, {
    routePrefix: API_REFERENCE_PATH,
    logLevel: 'warn',
    configuration: {
      pageTitle: 'Brand Health API reference',
      withDefaultFonts: false,
      telemetry: false,
      showDeveloperTools: 'never',
      agent: { disabled: true },
      mcp: { disabled: true },
      hideClientButton: false,
      defaultOpenAllTags: true,
      persistAuth: false,
      // "Send" calls the instance that serves this page, whatever servers the document lists.
      servers: [{ url: '/', description: 'This service' }],
      // Paste a key (a sandbox bh_test_ key from sandbox.json) once; every "Send" uses it.
      authentication: { preferredSecurityScheme: 'bearerAuth' },
      defaultHttpClient: { targetKey: 'js', clientKey: 'fetch' },
    },
  });
}
