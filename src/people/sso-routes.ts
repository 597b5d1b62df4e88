import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { DomainError } from '../core/errors.ts';
import { workspacePrincipal } from '../infra/auth/auth-plugin.ts';
import { errorResponses, json } from '../infra/http/schemas.ts';
import { Done } from './schemas.ts';
import { sessionPerson } from './sessions.ts';
import { SESSION_ABSOLUTE_MS, SESSION_COOKIE } from './settings.ts';
import {
  callbackUrl,
  completeSso,
  DASHBOARD_HOME,
  getSsoSettings,
  removeSsoSettings,
  safeReturnPath,
  saveSsoSettings,
  SSO_ATTEMPT_TTL_MS,
  SsoFailure,
  startSso,
  type SsoActor,
} from './sso.ts';
import {
  Redirect,
  SSO_ERROR_CODES_TEXT,
  SsoCallbackQuery,
  SsoSettings,
  SsoSettingsBody,
  SsoStartQuery,
} from './sso-schemas.ts';

/** The cookie binding a sign-in attempt to the browser that started it (a random value; its hash is stored). */
export const SSO_BINDING_COOKIE = 'bh_sso';
const CALLBACK_PATH = '/v1/auth/sso/callback';

/** Settings are team management; the sign-in itself belongs with the other sign-ins. */
const tags = ['teams'];
const signInTags = ['people'];
const READ = { auth: { audience: 'workspace' as const, action: 'sso.read' as const } };
const WRITE = { auth: { audience: 'workspace' as const, action: 'sso.write' as const } };

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);
const loopbackPeer = (address: string | undefined) =>
  address !== undefined && /^(127\.|::1$|::ffff:127\.)/.test(address);

/**
 * Where the service is reachable, for the redirect URI: PUBLIC_URL; without it, the request's own
 * address only when the Host it names and the peer are both loopback (a Host header from anywhere
 * else must not choose where authorization codes go).
 */
function origin(app: FastifyInstance, request: FastifyRequest): string | null {
  if (app.ctx.config.publicUrl) return app.ctx.config.publicUrl.replace(/\/+$/, '');
  if (LOOPBACK_NAMES.has(request.hostname) && loopbackPeer(request.socket.remoteAddress)) {
    return `${request.protocol}://${request.host}`;
  }
  return null;
}

/** The signed-in person making an SSO change (sso.read and sso.write are for people only). */
function actorOf(request: FastifyRequest): SsoActor {
  const principal = workspacePrincipal(request);
  if (principal.personId === null) {
    throw new DomainError('forbidden', 'Single sign-on settings need a signed-in person.');
  }
  return { personId: principal.personId, workspaceId: principal.workspaceId, address: request.ip };
}

/** A failed sign-in goes back to the dashboard's sign-in page with a short code. */
function failed(reply: FastifyReply, code: string): FastifyReply {
  return reply.redirect(`${DASHBOARD_HOME}?sso_error=${encodeURIComponent(code)}`, 302);
}

function bindingCookieValue(request: FastifyRequest): string | null {
  const value = request.cookies[SSO_BINDING_COOKIE];
  return typeof value === 'string' && value !== '' && value.length <= 100 ? value : null;
}

const FAILURE_TEXT =
  `Every refusal answers 302 to \`/app/?sso_error=<code>\` (the dashboard's sign-in page says what to do), one of ${SSO_ERROR_CODES_TEXT}; ` +
  'a malformed query answers 400 (RFC 9457).';

export async function ssoRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/v1/workspace/sso',
    {
      config: READ,
      schema: {
        operationId: 'getSsoSettings',
        tags,
        summary: "The workspace's single sign-on provider",
        description:
          'Owners and admins only (signed in; no API key scope grants it). The client secret is never returned: `client_secret_set` says it is stored. 404 when none is set up.',
        response: { 200: json(SsoSettings, 'The provider'), ...errorResponses(403, 404) },
      },
    },
    async (request) => getSsoSettings(app.ctx, actorOf(request).workspaceId, origin(app, request)),
  );

  app.put(
    '/v1/workspace/sso',
    {
      config: WRITE,
      schema: {
        operationId: 'putSsoSettings',
        tags,
        summary: "Set up or change the workspace's single sign-on provider",
        description:
          'Owners and admins only. The issuer is checked by OpenID Connect discovery (422 Identity Provider Unusable when it fails). ' +
          'The secret is stored encrypted and never returned; leave it out to keep the stored one. Domains are lower-cased. ' +
          'The default role is admin, member or viewer, never owner. Recorded in the audit log.',
        body: SsoSettingsBody,
        response: { 200: json(SsoSettings, 'The provider as saved'), ...errorResponses(403, 422) },
      },
    },
    async (request) => saveSsoSettings(app.ctx, actorOf(request), request.body, origin(app, request)),
  );

  app.delete(
    '/v1/workspace/sso',
    {
      config: WRITE,
      schema: {
        operationId: 'deleteSsoSettings',
        tags,
        summary: "Remove the workspace's single sign-on provider",
        description:
          'Owners and admins only. Sign-ins in flight fail; people keep their memberships and sessions. Recorded in the audit log.',
        response: { 200: json(Done, 'Removed'), ...errorResponses(403, 404) },
      },
    },
    async (request) => {
      await removeSsoSettings(app.ctx, actorOf(request));
      return { ok: true as const };
    },
  );

  app.get(
    '/v1/auth/sso/start',
    {
      schema: {
        operationId: 'startSso',
        tags: signInTags,
        summary: 'Sign in through a workspace’s identity provider',
        security: [],
        description:
          'A browser navigation, with `workspace` (its id) or `email` (the one workspace allowing its domain). ' +
          'Answers 302 to the provider (authorization code with PKCE S256, state and nonce) and sets the HttpOnly cookie `bh_sso` that binds the attempt to this browser for ten minutes. ' +
          'Started while signed in, the sign-in may link the provider identity to this account. ' +
          FAILURE_TEXT,
        querystring: SsoStartQuery,
        response: {
          302: Redirect('To the provider, or back to the dashboard with `sso_error`'),
          ...errorResponses(),
        },
      },
    },
    async (request, reply) => {
      const { workspace, email, return_to } = request.query;
      if ((workspace === undefined) === (email === undefined)) {
        throw new DomainError('invalid_parameter', 'Name either `workspace` or `email`.', {
          parameter: 'workspace',
          message: 'give either workspace or email',
        });
      }
      const returnPath = safeReturnPath(return_to);
      const redirectUri = callbackUrl(origin(app, request));
      if (!redirectUri) return failed(reply, 'sso_unavailable');
      const signedIn = await sessionPerson(app.ctx, request.cookies[SESSION_COOKIE]);
      try {
        const started = await startSso(app.ctx, {
          workspaceId: workspace,
          email,
          returnPath,
          redirectUri,
          address: request.ip,
          signedInPersonId: signedIn?.personId ?? null,
        });
        reply.setCookie(SSO_BINDING_COOKIE, started.binding, {
          httpOnly: true,
          secure: true,
          sameSite: 'lax',
          path: CALLBACK_PATH,
          maxAge: SSO_ATTEMPT_TTL_MS / 1000,
        });
        return reply.redirect(started.authorizationUrl, 302);
      } catch (error) {
        if (error instanceof SsoFailure) return failed(reply, error.code);
        request.log.error({ err: error }, 'single sign-on start failed unexpectedly');
        return failed(reply, 'unexpected');
      }
    },
  );

  app.get(
    CALLBACK_PATH,
    {
      schema: {
        operationId: 'completeSso',
        tags: signInTags,
        summary: "The identity provider's redirect back",
        security: [],
        description:
          'Exchanges the code (openid-client: issuer, audience, signature, nonce and PKCE checked), only in the browser holding the `bh_sso` cookie of the attempt; ' +
          'the state works once, for ten minutes. Requires `email_verified` and an allowed domain. A new address gets an account (no password); ' +
          'an address with an account signs in only once linked (start while signed in). A person without a membership joins with the default role. ' +
          'Success: a new session (cookie `bh_session`, fresh id) and 302 to the dashboard. ' +
          FAILURE_TEXT,
        querystring: SsoCallbackQuery,
        response: { 302: Redirect('To the dashboard, signed in or with `sso_error`'), ...errorResponses() },
      },
    },
    async (request, reply) => {
      reply.clearCookie(SSO_BINDING_COOKIE, {
        httpOnly: true,
        secure: true,
        sameSite: 'lax',
        path: CALLBACK_PATH,
      });
      const query = new URLSearchParams();
      for (const [name, value] of Object.entries(request.query))
        if (typeof value === 'string') query.set(name, value);
      try {
        const done = await completeSso(app.ctx, {
          query,
          binding: bindingCookieValue(request),
          address: request.ip,
          presentedSession: request.cookies[SESSION_COOKIE],
        });
        reply.setCookie(SESSION_COOKIE, done.token, {
          httpOnly: true,
          secure: true,
          sameSite: 'lax',
          path: '/',
          maxAge: SESSION_ABSOLUTE_MS / 1000,
        });
        return reply.redirect(done.returnPath, 302);
      } catch (error) {
        if (error instanceof SsoFailure) return failed(reply, error.code);
        request.log.error({ err: error }, 'single sign-on failed unexpectedly');
        return failed(reply, 'unexpected');
      }
    },
  );
}
