import cookie from '@fastify/cookie';
import Fastify, { type FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { randomBytes } from 'node:crypto';
import type { DestinationStream } from 'pino';
import type { AppContext } from './context.ts';
import { DOMAINS } from './domains.ts';
import { authPlugin } from './infra/auth/auth-plugin.ts';
import { sessionPrincipal } from './people/principal.ts';
import { apiReferencePlugin } from './infra/http/api-reference.ts';
import { bodyDeadline } from './infra/http/body-deadline.ts';
import { docPageHeaders } from './infra/http/doc-pages.ts';
import { errorsPlugin } from './infra/http/errors-plugin.ts';
import { clientErrorHandler, frameworkErrors, inputGuards } from './infra/http/input-guards.ts';
import { buildValidator, closeQueryStrings } from './infra/http/validation.ts';
import { drainSupport } from './infra/http/drain.ts';
import { healthRoutes } from './infra/http/health-routes.ts';
import { requestChildLogger } from './infra/http/request-logger.ts';
import { dashboardPlugin } from './infra/http/dashboard.ts';
import { Problem } from './infra/http/schemas.ts';
import { documentRoute, finishDocument } from './infra/http/openapi.ts';
import { webhookDocuments } from './webhooks/events.ts';
import { metricsPlugin } from './infra/observability/metrics.ts';
import { stateSlot } from './infra/state.ts';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/**
 * Request ids: a random per-service prefix plus a counter. Unique across services, instances and
 * restarts without drawing random bytes on every request (the hot feeds serve many per second).
 */
const REQUEST_IDS = stateSlot('app.request-ids', () => {
  const prefix = randomBytes(6).toString('base64url');
  let counter = 0;
  return (): string => {
    counter = (counter + 1) % Number.MAX_SAFE_INTEGER;
    // Fixed width: a response's length must not vary with the request id (uniform TACSI denials).
    return `req_${prefix}${counter.toString(36).padStart(11, '0')}`;
  };
});

/** The document's tags, in the order the reference lists them. */
const API_TAGS = [
  {
    name: 'people',
    description:
      'Accounts, sign-in and browser sessions (cookie `bh_session`, CSRF header; docs/security.md)',
  },
  {
    name: 'teams',
    description:
      'Members and roles, invitations, and API keys managed by people (docs/security.md "Teams and invitations")',
  },
  { name: 'workspace', description: "The API key owner's workspace: plan, quotas and current score" },
  {
    name: 'platforms',
    description: 'Connected social platforms: OAuth connection, sync health, on-demand sync',
  },
  { name: 'scores', description: 'The Brand Credit Score (IMPRS) and its stored daily history' },
  {
    name: 'audits',
    description: 'Brand Audits: asynchronous scoring runs with recommendations and a benchmark',
  },
  { name: 'campaigns', description: 'Narrative Arc campaigns and their phases (Agency plan)' },
  {
    name: 'studio',
    description: 'Scoring of draft content per platform, with ranked suggestions (Agency plan)',
  },
  {
    name: 'webhooks',
    description: 'Signed Standard Webhooks deliveries of events (see the webhooks section)',
  },
  {
    name: 'exports',
    description: "An agency's clients, creators and score log (JSON, or CSV with Accept: text/csv)",
  },
  { name: 'annotations', description: "Notes on a workspace's timeline (day, text, category, author)" },
  {
    name: 'alerts',
    description: 'Alert rules on the score and the connections, by email, webhook and Slack (Agency plan)',
  },
  {
    name: 'reports',
    description:
      'Scheduled PDF reports (weekly or monthly), emailed and downloadable, with an agency white label',
  },
  { name: 'tacsi', description: 'The differentially private TACSI sector index (subscriber keys)' },
  { name: 'operations', description: 'Liveness and readiness probes (no key)' },
];

export interface AppOptions {
  /** Where log lines go instead of stdout (tests read them). */
  logStream?: DestinationStream;
}

/** Builds the HTTP application around an already opened context. Does not listen. */
export async function buildApp(ctx: AppContext, options: AppOptions = {}): Promise<FastifyInstance> {
  const nextRequestId = ctx.state.get(REQUEST_IDS);
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
    ...(ctx.config.logLevel === 'silent' ? {} : { childLoggerFactory: requestChildLogger }),
    requestIdHeader: false,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : nextRequestId();
    },
    bodyLimit: 1024 * 1024,
    // request.ip: the peer, or the client a trusted load balancer names (TRUST_PROXY).
    ...(ctx.config.trustProxy ? { trustProxy: ctx.config.trustProxy } : {}),
    // Slow clients: a connection idle for CONNECTION_TIMEOUT_MS (30 s) is closed; headers must
    // arrive within REQUEST_TIMEOUT_MS (30 s) or Node answers 408 (checked every
    // connectionsCheckingInterval: 30 s by default, never less often than the timeout), and the
    // body within the same time after its headers (bodyDeadline below).
    connectionTimeout: ctx.config.connectionTimeoutMs,
    requestTimeout: ctx.config.requestTimeoutMs,
    http: { connectionsCheckingInterval: Math.min(30_000, ctx.config.requestTimeoutMs) },
    keepAliveTimeout: 5_000,
    forceCloseConnections: 'idle',
    // A request that still arrives on an open connection while the server closes is served (with
    // Connection: close, and before the database closes) rather than refused with Fastify's own
    // non-problem 503 body: the instance is healthy until its last connection ends.
    return503OnClosing: false,
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
  // The shared hooks are callback hooks: no promise and no microtask per request on every route.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('X-Request-Id', request.id);
    done();
  });
  await bodyDeadline(app, ctx.config.requestTimeoutMs);
  await drainSupport(app);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Brand Health API',
        version: '1.0.0',
        description:
          'Brand Credit Score (IMPRS), Brand Audits, campaigns, content scoring, webhooks, agency exports and the ' +
          'TACSI sector index. Errors are RFC 9457 `application/problem+json`. Every answer carries `X-Request-Id`; ' +
          'authenticated ones the `RateLimit` and `RateLimit-Policy` headers of the key. Sandbox keys (`bh_test_`) ' +
          'and live keys (`bh_live_`) use the same server.',
        contact: {
          name: 'Brand Health maintainers',
          email: 'maintainers@users.noreply.a-seed-9fceedd6.example',
        },
        license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
      },
      // Relative: the document is served by the API it describes (production or a local sandbox alike).
      servers: [
        {
          url: '/',
          description:
            'the server this document is served from (production, or a local sandbox from `npm run demo`)',
          'x-internal': false,
        } as never,
      ],
      tags: API_TAGS,
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
      webhooks: webhookDocuments() as never,
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
    transform: documentRoute as never,
    transformObject: finishDocument as never,
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    // Swagger UI's page loads only scripts of its own (no inline script): docPageHeaders' policy.
    uiHooks: {
      onRequest: (_request, reply, done) => {
        docPageHeaders(reply);
        done();
      },
    },
  });
  await apiReferencePlugin(app);

  // Applied to the root instance (not registered as encapsulated plugins) so that the error
  // handler and hooks cover every route, including the domains' own plugins.
  await errorsPlugin(app);
  await inputGuards(app);
  closeQueryStrings(app);
  await metricsPlugin(app, ctx.metrics);
  // Cookies first: the auth hook reads the session cookie of a request without an API key.
  await app.register(cookie);
  await authPlugin(app, {
    authenticator: ctx.authenticator,
    rateLimits: ctx.rateLimits,
    sessions: (request) => sessionPrincipal(ctx, request),
  });
  await app.register(healthRoutes);
  for (const domain of DOMAINS) if (domain.routes) await app.register(domain.routes);

  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  await dashboardPlugin(app);
  return app;
}
