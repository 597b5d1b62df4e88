import type { FastifyInstance, FastifyReply } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { errorResponses, json } from '../infra/http/schemas.ts';
import {
  Accepted,
  Done,
  NewWorkspace,
  NewWorkspaceBody,
  ResetConfirmBody,
  ResetRequestBody,
  SessionsEnded,
  SessionView,
  SignInBody,
  SignUpBody,
  TokenBody,
} from './schemas.ts';
import { requestPasswordReset, resetPassword, signIn, signOut, signUp, verifyEmail } from './service.ts';
import { type MembershipView, membershipsOf, requireSession } from './principal.ts';
import { SESSION_ABSOLUTE_MS, SESSION_COOKIE } from './settings.ts';
import { createOwnWorkspace, OWN_WORKSPACES_LIMIT } from './teams.ts';

export function setSessionCookie(reply: FastifyReply, token: string): void {
  reply.setCookie(SESSION_COOKIE, token, {
    httpOnly: true,
    secure: true,
    sameSite: 'lax',
    path: '/',
    maxAge: SESSION_ABSOLUTE_MS / 1000,
  });
}

function clearSessionCookie(reply: FastifyReply): void {
  reply.clearCookie(SESSION_COOKIE, { httpOnly: true, secure: true, sameSite: 'lax', path: '/' });
}

export function workspacesView(memberships: MembershipView[]) {
  return memberships.map((m) => ({ id: m.workspaceId, name: m.workspaceName, role: m.role, plan: m.plan }));
}

export async function peopleRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['people'];

  app.post(
    '/v1/auth/sign-up',
    {
      schema: {
        operationId: 'signUp',
        tags,
        summary: 'Create an account',
        description:
          'Sends a link to confirm the address. The answer is the same whether or not the address already has an account.',
        body: SignUpBody,
        response: { 202: json(Accepted, 'A confirmation email is on its way'), ...errorResponses() },
      },
    },
    async (request, reply) => {
      await signUp(app.ctx, request.body, request.ip);
      return reply.code(202).send({ status: 'check_your_email' as const });
    },
  );

  app.post(
    '/v1/auth/verify-email',
    {
      schema: {
        operationId: 'verifyEmail',
        tags,
        summary: 'Confirm an email address',
        description: 'The token from the emailed link; it works once, for 48 hours.',
        body: TokenBody,
        response: { 200: json(Done, 'The address is confirmed'), ...errorResponses() },
      },
    },
    async (request) => {
      await verifyEmail(app.ctx, request.body.token);
      return { ok: true as const };
    },
  );

  app.post(
    '/v1/auth/sign-in',
    {
      schema: {
        operationId: 'signIn',
        tags,
        summary: 'Sign in with a password',
        description:
          'Starts a session (HttpOnly, Secure, SameSite=Lax cookie `bh_session`, a fresh id at every sign-in). ' +
          'Throttled per account and per address (429).',
        body: SignInBody,
        response: { 200: json(SessionView, 'Signed in; the session cookie is set'), ...errorResponses() },
      },
    },
    async (request, reply) => {
      const signedIn = await signIn(app.ctx, request.body, request.ip, request.cookies[SESSION_COOKIE]);
      setSessionCookie(reply, signedIn.token);
      return {
        person: signedIn.person,
        csrf_token: signedIn.csrfToken,
        expires_at: signedIn.expiresAt.toISOString(),
        workspaces: workspacesView(await membershipsOf(app.ctx, signedIn.person.id)),
      };
    },
  );

  app.get(
    '/v1/auth/session',
    {
      schema: {
        operationId: 'getSession',
        tags,
        summary: 'The signed-in person',
        description:
          'Authenticated by the session cookie; returns the CSRF token for later state changes and the workspaces the person belongs to, with their role (name one in X-Workspace-Id; without it a request acts in the first).',
        response: { 200: json(SessionView, 'The session of the cookie sent'), ...errorResponses() },
      },
    },
    async (request) => {
      const session = await requireSession(app.ctx, request);
      const memberships = await membershipsOf(app.ctx, session.personId);
      return {
        person: { id: session.personId, email: session.email, name: session.name },
        csrf_token: session.csrfToken,
        expires_at: session.expiresAt.toISOString(),
        workspaces: workspacesView(memberships),
      };
    },
  );

  app.post(
    '/v1/auth/workspaces',
    {
      schema: {
        operationId: 'createOwnWorkspace',
        tags,
        summary: 'Create a workspace as its owner',
        description:
          'The signed-in person (session cookie and X-CSRF-Token) creates a workspace on the Free plan and becomes its owner; ' +
          `409 once they own ${OWN_WORKSPACES_LIMIT}. A larger plan is set by the service's operator.`,
        body: NewWorkspaceBody,
        response: {
          201: json(NewWorkspace, 'Created; the person is its owner'),
          ...errorResponses(403, 409),
        },
      },
    },
    async (request, reply) => {
      const session = await requireSession(app.ctx, request);
      const created = await createOwnWorkspace(
        app.ctx,
        { personId: session.personId, address: request.ip },
        request.body.name,
      );
      return reply.code(201).send({ ...created, role: 'owner' as const });
    },
  );

  app.post(
    '/v1/auth/sign-out',
    {
      schema: {
        operationId: 'signOut',
        tags,
        summary: 'Sign out',
        description: 'Needs the session cookie and its CSRF token (X-CSRF-Token).',
        response: { 200: json(Done, 'Signed out'), ...errorResponses(403) },
      },
    },
    async (request, reply) => {
      const session = await requireSession(app.ctx, request);
      await signOut(app.ctx, session, false, request.ip);
      clearSessionCookie(reply);
      return { ok: true as const };
    },
  );

  app.post(
    '/v1/auth/sign-out-everywhere',
    {
      schema: {
        operationId: 'signOutEverywhere',
        tags,
        summary: 'End every session of the signed-in person',
        description: 'Needs the session cookie and its CSRF token (X-CSRF-Token).',
        response: {
          200: json(SessionsEnded, 'Every session ended, this one included'),
          ...errorResponses(403),
        },
      },
    },
    async (request, reply) => {
      const session = await requireSession(app.ctx, request);
      const ended = await signOut(app.ctx, session, true, request.ip);
      clearSessionCookie(reply);
      return { sessions_ended: ended };
    },
  );

  app.post(
    '/v1/auth/password-reset',
    {
      schema: {
        operationId: 'requestPasswordReset',
        tags,
        summary: 'Email a password-reset link',
        description: 'The answer is the same whether or not the address has an account.',
        body: ResetRequestBody,
        response: {
          202: json(Accepted, 'A reset email is on its way if the address has an account'),
          ...errorResponses(),
        },
      },
    },
    async (request, reply) => {
      await requestPasswordReset(app.ctx, request.body.email, request.ip);
      return reply.code(202).send({ status: 'check_your_email' as const });
    },
  );

  app.post(
    '/v1/auth/password-reset/confirm',
    {
      schema: {
        operationId: 'resetPassword',
        tags,
        summary: 'Set a new password from a reset link',
        description: 'Ends every session of the person.',
        body: ResetConfirmBody,
        response: { 200: json(Done, 'The password is changed'), ...errorResponses() },
      },
    },
    async (request) => {
      await resetPassword(app.ctx, request.body.token, request.body.password, request.ip);
      return { ok: true as const };
    },
  );
}
