import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { workspacePrincipal } from '../infra/auth/auth-plugin.ts';
import { errorResponses, json, PlatformName, Timestamp, WorkspaceIdInput } from '../infra/http/schemas.ts';
import { PlatformPath } from './routes.ts';
import { resolveWorkspace } from '../workspaces/tenancy.ts';
import { completeConnect, disconnect, startConnect } from './connect.ts';

const WorkspaceQuery = Type.Object(
  { workspace_id: Type.Optional(WorkspaceIdInput) },
  { additionalProperties: false },
);
const invalidPlatform = { '/platform': 'invalid_platform' } as const;

function origin(ctx: FastifyInstance['ctx'], request: FastifyRequest): string {
  return (ctx.config.publicUrl ?? `${request.protocol}://${request.host}`).replace(/\/+$/, '');
}

/** OAuth connections (extension): connect, the platform's callback, disconnect. */
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
          "Returns the platform's OAuth 2.0 authorization URL (authorization code with PKCE S256). Send the account " +
          'owner there; the platform redirects to GET /v1/platforms/{platform}/callback, which connects the account. ' +
          'The URL is single-use, bound to the workspace and this API key, and valid 10 minutes. 409 when the ' +
          "platform is connected already, 402 when the plan's platform_limit is reached. A connection waiting for " +
          're-authorisation is reconnected in place.',
        params: PlatformPath,
        querystring: WorkspaceQuery,
        response: {
          200: json(
            Type.Object(
              {
                platform: PlatformName,
                authorization_url: Type.String({ format: 'uri' }),
                expires_at: Timestamp,
              },
              { $id: 'PlatformAuthorization' },
            ),
            "The platform's authorization URL to send the account owner to",
            {
              platform: 'instagram',
              authorization_url:
                'https://www.facebook.com/v21.0/dialog/oauth?client_id=1234567890&response_type=code&state=Zm9vYmFy&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&code_challenge_method=S256',
              expires_at: '2026-11-22T10:15:00.000Z',
            },
          ),
          ...errorResponses(402, 403, 404, 409, 422, 503),
        },
      },
    },
    async (request) => {
      const { ctx } = app;
      const principal = workspacePrincipal(request);
      const ws = await resolveWorkspace(ctx.db, principal, request.query.workspace_id);
      const started = await startConnect(ctx, {
        workspaceId: ws.id,
        plan: ws.plan,
        keyId: principal.keyId,
        platform: request.params.platform,
        origin: origin(ctx, request),
      });
      return {
        platform: request.params.platform,
        authorization_url: started.authorizationUrl,
        expires_at: started.expiresAt.toISOString(),
      };
    },
  );

  app.get(
    '/v1/platforms/:platform/callback',
    {
      // The platform's redirect carries no API key: the single-use state authenticates it.
      config: { validationProblems: invalidPlatform },
      schema: {
        operationId: 'completePlatformConnection',
        tags: ['platforms'],
        summary: "The platform's OAuth redirect back (extension)",
        security: [],
        description:
          'Exchanges the code for tokens (stored encrypted, never returned), reads the account and connects it. ' +
          '400 for a missing, replayed or expired state; 403 Consent Denied when the owner refused (recorded).',
        params: PlatformPath,
        querystring: Type.Object(
          {
            state: Type.Optional(Type.String({ maxLength: 512 })),
            code: Type.Optional(Type.String({ maxLength: 2048 })),
            error: Type.Optional(Type.String({ maxLength: 256 })),
            error_description: Type.Optional(Type.String({ maxLength: 1024 })),
            iss: Type.Optional(Type.String({ maxLength: 512 })),
            scope: Type.Optional(Type.String({ maxLength: 2048 })),
          },
          { additionalProperties: true },
        ),
        response: {
          200: json(
            Type.Object(
              {
                platform: PlatformName,
                workspace_id: Type.String(),
                status: Type.Literal('connected'),
                handle: Type.String(),
                followers: Type.Integer(),
                reconnected: Type.Boolean({
                  description: 'a connection waiting for re-authorisation was restored',
                }),
              },
              { $id: 'PlatformConnected' },
            ),
            'The account is connected',
            {
              platform: 'instagram',
              workspace_id: 'ws_01JD8Z6Q9W4T3B2N1M0K5R7H8C',
              status: 'connected',
              handle: '@bluebirdcoffee',
              followers: 48210,
              reconnected: false,
            },
          ),
          ...errorResponses(400, 403, 404, 409, 422, 502, 503),
        },
      },
    },
    async (request) => {
      const params = new URLSearchParams();
      for (const [k, v] of Object.entries(request.query)) if (typeof v === 'string') params.set(k, v);
      const r = await completeConnect(app.ctx, request.params.platform, params);
      return {
        platform: r.platform,
        workspace_id: r.workspaceId,
        status: 'connected' as const,
        handle: r.handle,
        followers: r.followers,
        reconnected: r.reconnected,
      };
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
