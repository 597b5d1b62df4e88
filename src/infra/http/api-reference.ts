import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { docPageHeaders, inlineScripts } from './doc-pages.ts';

export const API_REFERENCE_PATH = '/reference';

/**
 * The Scalar API reference at /reference
 * (docs/adr/0125-api-reference-ui-scalar-at-reference-swagger-ui-kept-at-docs.md), rendered from the
 * same @fastify/swagger document as /openapi.json. Its script is the copy bundled in the plugin, served
 * from /reference/js/scalar.js: the page needs no outside network (no CDN, no web fonts, no telemetry,
 * no request proxy: "Send" calls this service directly from the browser).
 */
export async function apiReferencePlugin(app: FastifyInstance): Promise<void> {
  // The plugin module holds Scalar's 5 MB bundle as a string: importing it costs about 30 MB of
  // resident memory in every process (docs/performance.md, "Memory"). So it is loaded on the first
  // request for the page, in a Fastify instance of its own that these two routes hand requests to.
  let reference: Promise<FastifyInstance> | null = null;
  const serve = async (request: FastifyRequest, reply: FastifyReply) => {
    reference ??= referenceApp(() => app.swagger()).catch((error: unknown) => {
      reference = null;
      throw error;
    });
    const answer = await (
      await reference
    ).inject({
      method: 'GET',
      url: request.url,
      headers: { host: request.headers.host ?? 'localhost' },
    });
    // A path the reference does not serve gets the service's own 404 (a problem document).
    if (answer.statusCode === 404) return reply.callNotFound();
    for (const [name, value] of Object.entries(answer.headers)) {
      if (value !== undefined && !HOP_BY_HOP.has(name)) reply.header(name, value);
    }
    // The page boots Scalar with an inline script (its configuration): allowed by its hash only.
    const html = String(answer.headers['content-type'] ?? '').startsWith('text/html');
    docPageHeaders(reply, html ? inlineScripts(answer.payload) : []);
    return reply.code(answer.statusCode).send(answer.rawPayload);
  };
  const route = { schema: { hide: true }, logLevel: 'warn' as const };
  app.get(API_REFERENCE_PATH, route, serve);
  app.get(`${API_REFERENCE_PATH}/*`, route, serve);
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'date']);

async function referenceApp(document: () => unknown): Promise<FastifyInstance> {
  const { default: apiReference } = await import('@scalar/fastify-api-reference');
  const inner = Fastify({ logger: false });
  await inner.register(apiReference, {
    routePrefix: API_REFERENCE_PATH,
    configuration: {
      content: document,
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
  await inner.ready();
  return inner;
}
