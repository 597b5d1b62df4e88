import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { errorResponses, json } from '../infra/http/schemas.ts';
import {
  AddPasskeyBody,
  Passkey,
  PasskeyList,
  PasskeyParams,
  PasskeySignInBody,
  RegistrationOptions,
  SignInOptions,
} from './passkey-schemas.ts';
import {
  addPasskey,
  listPasskeys,
  registrationOptions,
  relyingParty,
  removePasskey,
  signInOptions,
  signInWithPasskey,
  type RequestOrigin,
} from './passkeys.ts';
import { membershipsOf, requireSession } from './principal.ts';
import { Done, SessionView } from './schemas.ts';
import { setSessionCookie, workspacesView } from './routes.ts';
import { SESSION_COOKIE } from './settings.ts';

function origin(request: FastifyRequest): RequestOrigin {
  return {
    protocol: request.protocol,
    host: request.host,
    hostname: request.hostname,
    peer: request.socket.remoteAddress,
  };
}

/**
 * Passkeys (WebAuthn, docs/security.md "Passkeys"). Like the other /v1/auth routes they act for the
 * signed-in person on their own account, not in a workspace: no role or key scope applies, the
 * session cookie (and its CSRF token for changes) is the whole authorisation, and an API key cannot
 * manage passkeys.
 */
export async function passkeyRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['people'];

  app.post(
    '/v1/auth/passkeys/registration-options',
    {
      schema: {
        operationId: 'passkeyRegistrationOptions',
        tags,
        summary: 'Options for registering a passkey',
        description:
          'Needs the session cookie and its CSRF token. A discoverable credential (resident key), user ' +
          'verification preferred; the challenge is kept server-side for the session that asked, once, for 5 minutes. ' +
          '503 when the service has no public address (PUBLIC_URL).',
        response: {
          200: json(RegistrationOptions, 'Pass to navigator.credentials.create'),
          ...errorResponses(403),
        },
      },
    },
    async (request) => {
      const session = await requireSession(app.ctx, request);
      return registrationOptions(app.ctx, session, relyingParty(app.ctx, origin(request)));
    },
  );

  app.post(
    '/v1/auth/passkeys',
    {
      schema: {
        operationId: 'addPasskey',
        tags,
        summary: 'Register a passkey',
        description:
          "The browser's answer to the registration options, and a name. Needs the session cookie and its " +
          'CSRF token. 400 when no registration is pending for the session, it expired, or the answer does ' +
          'not verify; 409 when the passkey is registered already or the person has 20.',
        body: AddPasskeyBody,
        response: { 201: json(Passkey, 'The passkey is registered'), ...errorResponses(403, 409) },
      },
    },
    async (request, reply) => {
      const session = await requireSession(app.ctx, request);
      const passkey = await addPasskey(app.ctx, session, request.body as never, request.ip);
      return reply.code(201).send(passkey);
    },
  );

  app.get(
    '/v1/auth/passkeys',
    {
      schema: {
        operationId: 'listPasskeys',
        tags,
        summary: "The signed-in person's passkeys",
        description: 'Names and dates only: no key material.',
        response: { 200: json(PasskeyList, 'The passkeys, oldest first'), ...errorResponses() },
      },
    },
    async (request) => {
      const session = await requireSession(app.ctx, request);
      return { data: await listPasskeys(app.ctx, session.personId) };
    },
  );

  app.delete(
    '/v1/auth/passkeys/:id',
    {
      schema: {
        operationId: 'removePasskey',
        tags,
        summary: 'Remove a passkey',
        description:
          "Needs the session cookie and its CSRF token. Only the person's own: any other id answers 404.",
        params: PasskeyParams,
        response: { 200: json(Done, 'Removed'), ...errorResponses(403, 404) },
      },
    },
    async (request) => {
      const session = await requireSession(app.ctx, request);
      await removePasskey(app.ctx, session, request.params.id, request.ip);
      return { ok: true as const };
    },
  );

  app.post(
    '/v1/auth/passkey/options',
    {
      schema: {
        operationId: 'passkeySignInOptions',
        tags,
        summary: 'Options for signing in with a passkey',
        description:
          'No account is named: the authenticator offers its passkeys for this site. The challenge is kept ' +
          'server-side under `challenge_id`, once, for 5 minutes. Throttled per address (429).',
        response: {
          200: json(SignInOptions, 'Pass `options` to navigator.credentials.get'),
          ...errorResponses(),
        },
      },
    },
    async (request) => {
      const { challengeId, options } = await signInOptions(
        app.ctx,
        relyingParty(app.ctx, origin(request)),
        request.ip,
      );
      return { challenge_id: challengeId, options };
    },
  );

  app.post(
    '/v1/auth/passkey/sign-in',
    {
      schema: {
        operationId: 'signInWithPasskey',
        tags,
        summary: 'Sign in with a passkey',
        description:
          'The assertion for the options of `challenge_id`. Starts a session exactly as password sign-in ' +
          'does (the `bh_session` cookie, a fresh id). Any refusal (unknown, used or expired challenge, ' +
          'unknown passkey, wrong signature, a signature counter that went back) answers the same 401. ' +
          'Counted with password sign-in attempts per address (429).',
        body: PasskeySignInBody,
        response: { 200: json(SessionView, 'Signed in; the session cookie is set'), ...errorResponses() },
      },
    },
    async (request, reply) => {
      const signedIn = await signInWithPasskey(
        app.ctx,
        { challengeId: request.body.challenge_id, response: request.body.response as never },
        request.ip,
        request.cookies[SESSION_COOKIE],
      );
      setSessionCookie(reply, signedIn.token);
      return {
        person: signedIn.person,
        csrf_token: signedIn.csrfToken,
        expires_at: signedIn.expiresAt.toISOString(),
        workspaces: workspacesView(await membershipsOf(app.ctx, signedIn.person.id)),
      };
    },
  );
}
