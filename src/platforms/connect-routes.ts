import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { workspacePrincipal } from '../infra/auth/auth-plugin.ts';
import { errorResponses, json, PlatformName, Timestamp, WorkspaceIdInput } from '../infra/http/schemas.ts';
import { PlatformPath } from './schemas.ts';
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

const WorkspaceQuery = Type.Object(
  { workspace_id: Type.Optional(WorkspaceIdInput) },
  { additionalProperties: false },
);
const NoQuery = Type.Object({}, { additionalProperties: false });
const invalidPlatform = { '/platform': 'invalid_platform' } as const;
const AttemptPath = Type.Object({
  platform: PlatformPath.properties.platform,
  id: Type.String({ minLength: 1, maxLength: 64, examples: ['oc_01JD8Z7B5V0Q3X8K2M4N6P9R1S'] }),
});

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

const Account = Type.Object({
  account_id: Type.String({ description: "the platform's id of the account" }),
  handle: Type.String(),
  name: Type.String(),
  followers: Type.Integer({ description: 'audience size (subscribers on youtube)' }),
  connected_elsewhere: Type.Boolean({
    description: 'connected to another workspace already: picking it needs `share: true`',
  }),
});

const Attempt = Type.Object(
  {
    id: Type.String({ description: 'the connect attempt' }),
    platform: PlatformName,
    workspace_id: Type.String(),
    status: Type.Enum(['pending', 'pending_selection', 'connected', 'denied', 'failed', 'expired'], {
      description:
        'pending: waiting for the account owner at the platform; pending_selection: the login gave several ' +
        'accounts (or one connected elsewhere), pick one with POST …/connect/{id}/select; connected; denied ' +
        '(consent refused); failed (see `error`); expired',
    }),
    expires_at: Timestamp,
    handle: Type.Optional(Type.String({ description: 'connected: the account' })),
    followers: Type.Optional(Type.Integer()),
    reconnected: Type.Optional(
      Type.Boolean({ description: 'a connection waiting for re-authorisation was restored' }),
    ),
    accounts: Type.Optional(
      Type.Array(Account, { description: 'pending_selection: the accounts to pick from' }),
    ),
    granted_scopes: Type.Union([Type.Array(Type.String()), Type.Null()], {
      description: 'what the platform granted (null: not known yet)',
    }),
    missing_scopes: Type.Array(Type.String(), {
      description:
        'requested but not granted: only optional ones (comment texts for sentiment); a declined required ' +
        'scope refuses the connect with 403 Permissions Declined',
    }),
    error: Type.Optional(Type.String({ description: 'failed: what went wrong' })),
  },
  { $id: 'PlatformConnectAttempt' },
);

const attemptExample = {
  id: 'oc_01JD8Z7B5V0Q3X8K2M4N6P9R1S',
  platform: 'instagram' as const,
  workspace_id: 'ws_01JD8Z6Q9W4T3B2N1M0K5R7H8C',
  status: 'connected' as const,
  expires_at: '2026-11-22T10:15:00.000Z',
  handle: 'bluebirdcoffee',
  followers: 48210,
  reconnected: false,
  granted_scopes: ['instagram_basic', 'instagram_manage_insights', 'pages_show_list', 'business_management'],
  missing_scopes: [],
};

function present(a: ConnectAttempt) {
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

const CallbackParams = Type.Object(
  {
    state: Type.Optional(Type.String({ maxLength: 512 })),
    code: Type.Optional(Type.String({ maxLength: 2048 })),
    error: Type.Optional(Type.String({ maxLength: 256 })),
    error_description: Type.Optional(Type.String({ maxLength: 1024 })),
    iss: Type.Optional(Type.String({ maxLength: 512 })),
    scope: Type.Optional(Type.String({ maxLength: 2048 })),
  },
  { additionalProperties: true },
);

/** The redirect's query as a JSON body (POST callback). */
const CallbackBody = Type.Object(CallbackParams.properties, {
  additionalProperties: true,
  examples: [
    {
      state: 'Zm9vYmFyYmF6cXV4',
      code: 'AQD8sT2kq0x1yZ',
      iss: 'https://www.facebook.com',
    },
  ],
});

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
        auth: { audience: 'workspace', plan: 'pro', scope: 'write' },
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
            Type.Object(
              {
                platform: PlatformName,
                id: Type.String({ description: 'the connect attempt' }),
                authorization_url: Type.String({ format: 'uri' }),
                expires_at: Timestamp,
              },
              { $id: 'PlatformAuthorization' },
            ),
            "The platform's authorization URL to send the account owner to",
            {
              platform: 'instagram',
              id: 'oc_01JD8Z7B5V0Q3X8K2M4N6P9R1S',
              authorization_url:
                'https://www.facebook.com/v26.0/dialog/oauth?response_type=code&client_id=1234567890&redirect_uri=https%3A%2F%2Fapi.example%2Fv1%2Fplatforms%2Finstagram%2Fcallback&scope=instagram_basic%2Cinstagram_manage_insights%2Cinstagram_manage_comments%2Cpages_show_list%2Cpages_read_engagement%2Cbusiness_management&state=Zm9vYmFy&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&code_challenge_method=S256&auth_type=rerequest',
              expires_at: '2026-11-22T10:15:00.000Z',
            },
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
    200: json(Attempt, 'The account is connected, or the login gave several to pick from', attemptExample),
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
      const done = await completeConnect(app.ctx, platform, asParams(request.query), {
        cookie: cookie(request, bindingCookie(platform)),
      });
      return present(done);
    },
  );

  app.post(
    '/v1/platforms/:platform/callback',
    {
      config: {
        auth: { audience: 'workspace', plan: 'pro', scope: 'write' },
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
      const done = await completeConnect(app.ctx, request.params.platform, asParams(request.body), {
        keyId: workspacePrincipal(request).keyId,
      });
      return present(done);
    },
  );

  app.get(
    '/v1/platforms/:platform/connect/:id',
    {
      config: {
        auth: { audience: 'workspace', plan: 'pro', scope: 'read' },
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
          200: json(Attempt, 'The connect attempt', {
            id: attemptExample.id,
            platform: attemptExample.platform,
            workspace_id: attemptExample.workspace_id,
            status: 'pending_selection',
            expires_at: attemptExample.expires_at,
            accounts: [
              {
                account_id: '17841400000000001',
                handle: 'bluebirdcoffee',
                name: 'Bluebird Coffee',
                followers: 48210,
                connected_elsewhere: false,
              },
              {
                account_id: '17841400000000002',
                handle: 'bluebirdroastery',
                name: 'Bluebird Roastery',
                followers: 9120,
                connected_elsewhere: false,
              },
            ],
            granted_scopes: attemptExample.granted_scopes,
            missing_scopes: [],
          }),
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
        auth: { audience: 'workspace', plan: 'pro', scope: 'write' },
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
        body: Type.Object(
          {
            account_id: Type.String({ minLength: 1, maxLength: 200 }),
            share: Type.Optional(
              Type.Boolean({
                description: 'connect an account that another workspace has connected too',
                default: false,
              }),
            ),
          },
          { additionalProperties: false, examples: [{ account_id: '17841400000000002', share: false }] },
        ),
        response: {
          200: json(Attempt, 'The account is connected', attemptExample),
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
      });
      return present(done);
    },
  );

  app.delete(
    '/v1/platforms/:platform',
    {
      config: {
        auth: { audience: 'workspace', plan: 'pro', scope: 'write' },
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
          200: json(
            Type.Object(
              {
                platform: PlatformName,
                status: Type.Literal('disconnected'),
                revoked: Type.Boolean({ description: 'the platform confirmed the revocation' }),
              },
              { $id: 'PlatformDisconnected' },
            ),
            'The platform is disconnected',
            { platform: 'tiktok', status: 'disconnected', revoked: true },
          ),
          ...errorResponses(403, 404, 422),
        },
      },
    },
    async (request) => {
      const { ctx } = app;
      const ws = await resolveWorkspace(ctx.db, workspacePrincipal(request), request.query.workspace_id);
      const { revoked } = await disconnect(ctx, ws.id, request.params.platform);
      return { platform: request.params.platform, status: 'disconnected' as const, revoked };
    },
  );
}
