import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Static } from 'typebox';
import { workspacePrincipal } from '../infra/auth/auth-plugin.ts';
import { actorOf } from '../audit-log/record.ts';
import { errorResponses, json } from '../infra/http/schemas.ts';
import {
  Attempt,
  ATTEMPT_EXAMPLE,
  AttemptPath,
  CallbackBody,
  CallbackParams,
  NoQuery,
  PENDING_SELECTION_EXAMPLE,
  PLATFORM_AUTHORIZATION_EXAMPLE,
  PLATFORM_DISCONNECTED_EXAMPLE,
  PlatformAuthorization,
  PlatformDisconnected,
  PlatformPath,
  SelectAccountBody,
  WorkspaceQuery,
} from './schemas.ts';
import { resolveWorkspace } from '../workspaces/tenancy.ts';
import type { Platform } from '../core/catalog.ts';
import {
  bindingCookie,
  completeConnect,
  connectAttempt,
  disconnect,
  selectAccount,
  startConnect,
  STATE_TTL_MS,
  type ConnectAttempt,
} from './connect.ts';

const invalidPlatform = { '/platform': 'invalid_platform' } as const;
const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);
const loopbackPeer = (address: string | undefined) =>
  !!address && (address === '::1' || /^(::ffff:)?127\./.test(address));

/**
 * Where the service is reachable, for the redirect URI: PUBLIC_URL. Without it, the request's own
 * address only when both the Host it names and the peer are loopback (a developer's machine, the
 * simulator): a Host header from anywhere else must not choose where authorization codes go. null:
 * none usable (startConnect refuses unless PLATFORM_<NAME>_REDIRECT_URI is set).
 */
function origin(ctx: FastifyInstance['ctx'], request: FastifyRequest): string | null {
  if (ctx.config.publicUrl) return ctx.config.publicUrl.replace(/\/+$/, '');
  if (LOOPBACK_NAMES.has(request.hostname) && loopbackPeer(request.socket.remoteAddress)) {
    return `${request.protocol}://${request.host}`;
  }
  return null;
}

/** The value of one cookie of the request, or null. */
function cookie(request: FastifyRequest, name: string): string | null {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim() || null;
  }
  return null;
}

function present(a: ConnectAttempt): Static<typeof Attempt> {
  return {
    id: a.id,
    platform: a.platform,
    workspace_id: a.workspaceId,
    status: a.status,
    expires_at: a.expiresAt.toISOString(),
    ...(a.connection
      ? {
          handle: a.connection.handle,
          followers: a.connection.followers,
          reconnected: a.connection.reconnected,
        }
      : {}),
    ...(a.accounts
      ? {
          accounts: a.accounts.map((c) => ({
            account_id: c.accountId,
            handle: c.handle,
            name: c.name,
            followers: c.followers,
            connected_elsewhere: c.connectedElsewhere,
          })),
        }
      : {}),
    granted_scopes: a.grantedScopes,
    missing_scopes: a.missingScopes,
    ...(a.error ? { error: a.error } : {}),
  };
}

function asParams(query: Record<string, unknown>): URLSearchParams {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (typeof v === 'string') params.set(k, v);
  return params;
}

/** OAuth connections (extension): connect, the platform's callback, account selection, disconnect. */
export async function connectRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/v1/platforms/:platform/connect',
    {
      config: {
        auth: { audience: 'workspace', plan: 'pro', action: 'platform.manage' },
        validationProblems: invalidPlatform,
      },
      schema: {
        operationId: 'connectPlatform',
        tags: ['platforms'],
        summary: 'Start connecting a platform account (extension)',
        description:
          "Returns the platform's OAuth 2.0 authorization URL (authorization code with PKCE S256) and the connect " +
          "attempt's `id`, and sets a cookie binding the attempt to this browser. Open the URL in the same browser " +
          '(the dashboard opens it in a pop-up): the platform redirects to GET /v1/platforms/{platform}/callback, ' +
          'which completes only for the browser holding that cookie, so a person who merely opens a link someone ' +
          'else started cannot attach their account to that workspace. An application whose own page receives the ' +
          'redirect (PLATFORM_<NAME>_REDIRECT_URI) completes it with POST /v1/platforms/{platform}/callback and ' +
          'this key. Follow the attempt with GET /v1/platforms/{platform}/connect/{id}. The URL is single-use, bound ' +
          'to the workspace and this API key, and valid 10 minutes. 409 when the platform is connected already, ' +
          "402 when the plan's platform_limit is reached, 503 when the service has no public address (PUBLIC_URL). " +
          'A connection waiting for re-authorisation is reconnected in place, with its own account only.',
        params: PlatformPath,
        querystring: WorkspaceQuery,
        response: {
          200: json(
            PlatformAuthorization,
            "The platform's authorization URL to send the account owner to",
            PLATFORM_AUTHORIZATION_EXAMPLE,
          ),
          ...errorResponses(402, 403, 404, 409, 422, 503),
        },
      },
    },
    async (request, reply) => {
      const { ctx } = app;
      const principal = workspacePrincipal(request);
      const ws = await resolveWorkspace(ctx.db, principal, request.query.workspace_id);
      const { platform } = request.params;
      const started = await startConnect(ctx, {
        workspaceId: ws.id,
        plan: ws.plan,
        keyId: principal.keyId,
        platform,
        origin: origin(ctx, request),
      });
      const secure = started.redirectUri.startsWith('https:') ? '; Secure' : '';
      reply.header(
        'set-cookie',
        `${bindingCookie(platform)}=${started.binding}; Path=/v1/platforms/${platform}/callback; ` +
          `Max-Age=${STATE_TTL_MS / 1000}; HttpOnly; SameSite=Lax${secure}`,
      );
      return {
        platform,
        id: started.id,
        authorization_url: started.authorizationUrl,
        expires_at: started.expiresAt.toISOString(),
      };
    },
  );

  const callbackDescription =
    'Exchanges the code for tokens (stored encrypted, never returned), checks the granted permissions and reads ' +
    'the accounts the login may connect: one is connected at once (`connected`), several leave the attempt ' +
    '`pending_selection` with `accounts` to pick from. 400 for a missing, replayed or expired state; 403 ' +
    'Connect Started Elsewhere when the caller is not the browser (or key) that started it; 403 Consent Denied ' +
    'when the owner refused (recorded); 403 Permissions Declined when a required permission was unticked; 409 ' +
    "Account Mismatch when a reconnect authorised another account than the connection's.";

  // The GET (the browser's redirect) and the POST (an application's own page) answer alike.
  const callbackResponse = {
    200: json(Attempt, 'The account is connected, or the login gave several to pick from', ATTEMPT_EXAMPLE),
    ...errorResponses(400, 403, 404, 409, 422, 502, 503),
  };

  app.get(
    '/v1/platforms/:platform/callback',
    {
      // The platform's redirect carries no API key: the single-use state and the browser's binding
      // cookie authenticate it.
      config: { validationProblems: invalidPlatform },
      schema: {
        operationId: 'completePlatformConnection',
        tags: ['platforms'],
        summary: "The platform's OAuth redirect back (extension)",
        security: [],
        description: callbackDescription,
        params: PlatformPath,
        querystring: CallbackParams,
        response: callbackResponse,
      },
    },
    async (request) => {
      const { platform } = request.params;
      const done = await completeConnect(
        app.ctx,
        platform,
        asParams(request.query),
        { cookie: cookie(request, bindingCookie(platform)) },
        request.ip,
      );
      return present(done);
    },
  );

  app.post(
    '/v1/platforms/:platform/callback',
    {
      config: {
        auth: { audience: 'workspace', plan: 'pro', action: 'platform.manage' },
        validationProblems: invalidPlatform,
      },
      schema: {
        operationId: 'submitPlatformAuthorization',
        tags: ['platforms'],
        summary: "Complete an authorisation whose redirect reached the application's own page (extension)",
        description:
          'For an application whose page receives the platform redirect (the operator set ' +
          "PLATFORM_<NAME>_REDIRECT_URI to it): send the redirect's query parameters (`state`, `code` or `error`, " +
          '`iss`) with the API key that started the attempt; any other key is refused (403 Connect Started ' +
          `Elsewhere). Otherwise as the GET. ${callbackDescription}`,
        params: PlatformPath,
        querystring: NoQuery,
        body: CallbackBody,
        response: callbackResponse,
      },
    },
    async (request) => {
      const done = await completeConnect(
        app.ctx,
        request.params.platform,
        asParams(request.body),
        { keyId: workspacePrincipal(request).keyId },
        request.ip,
      );
      return present(done);
    },
  );

  app.get(
    '/v1/platforms/:platform/connect/:id',
    {
      config: {
        auth: { audience: 'workspace', plan: 'pro', action: 'score.read' },
        validationProblems: invalidPlatform,
      },
      schema: {
        operationId: 'getPlatformConnectAttempt',
        tags: ['platforms'],
        summary: 'A connect attempt: waiting, accounts to pick from, or its outcome (extension)',
        description:
          'Visible only to the API key that started it (404 to others). `pending_selection` lists the accounts ' +
          'the login gave (several Pages, Instagram business accounts or YouTube channels, or one already ' +
          'connected elsewhere); pick one with POST /v1/platforms/{platform}/connect/{id}/select within 30 ' +
          'minutes of the callback.',
        params: AttemptPath,
        querystring: NoQuery,
        response: {
          200: json(Attempt, 'The connect attempt', PENDING_SELECTION_EXAMPLE),
          ...errorResponses(403, 404, 422),
        },
      },
    },
    async (request) => {
      const { platform, id } = request.params;
      return present(await connectAttempt(app.ctx, platform, id, workspacePrincipal(request).keyId));
    },
  );

  app.post(
    '/v1/platforms/:platform/connect/:id/select',
    {
      config: {
        auth: { audience: 'workspace', plan: 'pro', action: 'platform.manage' },
        validationProblems: invalidPlatform,
      },
      schema: {
        operationId: 'selectPlatformAccount',
        tags: ['platforms'],
        summary: 'Pick the account to connect among those the login gave (extension)',
        description:
          'With the API key that started the attempt, while it is `pending_selection`. An account already ' +
          'connected to another workspace needs `share: true` (409 Account Connected Elsewhere otherwise). 409 ' +
          'Not Awaiting Selection when the attempt is not (or no longer) waiting; 400 when `account_id` is not ' +
          'one it offered; the plan limit and "already connected" are checked again.',
        params: AttemptPath,
        querystring: NoQuery,
        body: SelectAccountBody,
        response: {
          200: json(Attempt, 'The account is connected', ATTEMPT_EXAMPLE),
          ...errorResponses(400, 403, 404, 409, 402, 422, 502),
        },
      },
    },
    async (request) => {
      const { platform, id } = request.params;
      const done = await selectAccount(app.ctx, {
        platform: platform as Platform,
        attemptId: id,
        keyId: workspacePrincipal(request).keyId,
        accountId: request.body.account_id,
        share: request.body.share ?? false,
        address: request.ip,
      });
      return present(done);
    },
  );

  app.delete(
    '/v1/platforms/:platform',
    {
      config: {
        auth: { audience: 'workspace', plan: 'pro', action: 'platform.manage' },
        validationProblems: invalidPlatform,
      },
      schema: {
        operationId: 'disconnectPlatform',
        tags: ['platforms'],
        summary: 'Disconnect a platform (extension)',
        description:
          'Revokes the grant at the platform where it supports revocation (YouTube, X, TikTok), forgets the tokens ' +
          'and keeps the metric history.',
        params: PlatformPath,
        querystring: WorkspaceQuery,
        response: {
          200: json(PlatformDisconnected, 'The platform is disconnected', PLATFORM_DISCONNECTED_EXAMPLE),
          ...errorResponses(403, 404, 422),
        },
      },
    },
    async (request) => {
      const { ctx } = app;
      const principal = workspacePrincipal(request);
      const ws = await resolveWorkspace(ctx.db, principal, request.query.workspace_id);
      const { revoked } = await disconnect(ctx, ws.id, request.params.platform, {
        actor: actorOf(principal),
        address: request.ip,
      });
      return { platform: request.params.platform, status: 'disconnected' as const, revoked };
    },
  );
}
