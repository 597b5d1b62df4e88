import Fastify, { type FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { randomBytes } from 'node:crypto';
import type { DestinationStream } from 'pino';
import type { AppContext } from './context.ts';
import { DOMAINS } from './domains.ts';
import { authPlugin } from './infra/auth/auth-plugin.ts';
import { apiReferencePlugin } from './infra/http/api-reference.ts';
import { bodyDeadline } from './infra/http/body-deadline.ts';
import { errorsPlugin } from './infra/http/errors-plugin.ts';
import { clientErrorHandler, frameworkErrors, inputGuards } from './infra/http/input-guards.ts';
import { buildValidator, closeQueryStrings } from './infra/http/validation.ts';
import { healthRoutes } from './infra/http/health-routes.ts';
import { dashboardPlugin } from './infra/http/dashboard.ts';
import { Problem } from './infra/http/schemas.ts';
import { metricsPlugin } from './infra/observability/metrics.ts';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

// Request ids: a random per-process prefix plus a counter. Unique across instances and restarts
// without drawing random bytes on every request (that showed up in profiles of the hot feeds).
const PROCESS_PREFIX = randomBytes(6).toString('base64url');
let requestCounter = 0;
function nextRequestId(): string {
  requestCounter = (requestCounter + 1) % Number.MAX_SAFE_INTEGER;
  // Fixed width: a response's length must not vary with the request id (uniform TACSI denials).
  return `req_${PROCESS_PREFIX}${requestCounter.toString(36).padStart(11, '0')}`;
}

export interface AppOptions {
  /** Where log lines go instead of stdout (tests read them). */
  logStream?: DestinationStream;
}

/** Builds the HTTP application around an already opened context. Does not listen. */
export async function buildApp(ctx: AppContext, options: AppOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger:
      ctx.config.logLevel === 'silent'
        ? false
        : {
            level: ctx.config.logLevel,
            ...(options.logStream ? { stream: options.logStream } : {}),
            // Keys and secrets must never reach a log line.
            redact: {
              paths: ['req.headers.authorization', 'req.headers.cookie', '*.secret', '*.token'],
              censor: '[redacted]',
            },
            serializers: {
              // An OAuth callback's query carries the authorization code and state: credentials, not logged.
              req: (req: { method: string; url: string; host?: string; ip?: string }) => ({
                method: req.method,
                url: req.url.replace(
                  /([?&](?:code|state|access_token|refresh_token)=)[^&]*/g,
                  '$1[redacted]',
                ),
                host: req.host,
                remoteAddress: req.ip,
              }),
            },
          },
    requestIdHeader: false,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : nextRequestId();
    },
    bodyLimit: 1024 * 1024,
    // Slow clients: a connection idle for CONNECTION_TIMEOUT_MS (30 s) is closed; headers must
    // arrive within REQUEST_TIMEOUT_MS (30 s) or Node answers 408 (checked every
    // connectionsCheckingInterval: 30 s by default, never less often than the timeout), and the
    // body within the same time after its headers (bodyDeadline below).
    connectionTimeout: ctx.config.connectionTimeoutMs,
    requestTimeout: ctx.config.requestTimeoutMs,
    http: { connectionsCheckingInterval: Math.min(30_000, ctx.config.requestTimeoutMs) },
    keepAliveTimeout: 5_000,
    forceCloseConnections: 'idle',
    return503OnClosing: true,
    routerOptions: { maxParamLength: 200 },
    frameworkErrors,
    clientErrorHandler: clientErrorHandler(nextRequestId),
    // Bodies are validated without coercion, query strings and path parameters with it (strictly).
    schemaController: { compilersFactory: { buildValidator } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.decorate('ctx', ctx);
  // The API speaks JSON only: any other request body type is 415, not a string to validate.
  app.removeContentTypeParser('text/plain');
  app.addSchema(Problem);
  app.addHook('onRequest', async (request, reply) => {
    reply.header('X-Request-Id', request.id);
  });
  await bodyDeadline(app, ctx.config.requestTimeoutMs);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Brand Health API',
        version: '1.0.0',
        description:
          'Brand Credit Score (IMPRS), Brand Audits, campaigns, content scoring, webhooks, agency exports and the TACSI sector index. Errors are RFC 9457 problem+json.',
      },
      components: {
        securitySchemes: {
          bearerAuth: {
            type: 'http',
            scheme: 'bearer',
            description: 'API key: `bh_live_<id>_<secret>` (sandbox keys: `bh_test_<id>_<secret>`)',
          },
        },
      },
      security: [{ bearerAuth: [] }],
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  await apiReferencePlugin(app);

  // Applied to the root instance (not registered as encapsulated plugins) so that the error
  // handler and hooks cover every route, including the domains' own plugins.
  await errorsPlugin(app);
  await inputGuards(app);
  closeQueryStrings(app);
  await metricsPlugin(app, ctx.metrics);
  await authPlugin(app, { authenticator: ctx.authenticator, rateLimits: ctx.rateLimits });
  await app.register(healthRoutes);
  for (const domain of DOMAINS) if (domain.routes) await app.register(domain.routes);

  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  await dashboardPlugin(app);
  return app;
}
