import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { listApiKeys } from '../admin/keys.ts';
import { DomainError, invalidParameter } from '../core/errors.ts';
import { scopesGrantableBy } from '../core/permissions.ts';
import { workspacePrincipal } from '../infra/auth/auth-plugin.ts';
import { errorResponses, json } from '../infra/http/schemas.ts';
import { requireSession } from './principal.ts';
import { SESSION_COOKIE } from './settings.ts';
import {
  AcceptBody,
  Accepted,
  AddMemberBody,
  ApiKeyList,
  ChangeRoleBody,
  CreatedKey,
  CreateKeyBody,
  Invitation,
  InvitationList,
  InvitationParams,
  InviteBody,
  KeyParams,
  Member,
  MemberList,
  PersonParams,
  Removed,
} from './team-schemas.ts';
import {
  acceptInvitation,
  addMember,
  changeRole,
  createKeyFor,
  invite,
  listInvitations,
  listMembers,
  removeMember,
  revokeInvitation,
  revokeKeyFor,
  type TeamActor,
} from './teams.ts';

const tags = ['teams'];
const READ = { auth: { audience: 'workspace' as const, action: 'score.read' as const } };
const MEMBERS = { auth: { audience: 'workspace' as const, action: 'member.manage' as const } };
const KEYS = { auth: { audience: 'workspace' as const, action: 'key.manage' as const } };

/** The signed-in person making a team change (member.manage and key.manage are for people only). */
function actorOf(request: FastifyRequest): TeamActor {
  const principal = workspacePrincipal(request);
  if (principal.personId === null || principal.role === null) {
    throw new DomainError('forbidden', 'Managing people and keys needs a signed-in person.');
  }
  return {
    personId: principal.personId,
    role: principal.role,
    workspaceId: principal.workspaceId,
    address: request.ip,
  };
}

export async function teamRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/v1/members',
    {
      config: READ,
      schema: {
        operationId: 'listMembers',
        tags,
        summary: "The workspace's people and their roles",
        description:
          'Every member of the workspace with their role, oldest membership first. Any role may read it.',
        response: { 200: json(MemberList, 'The members'), ...errorResponses(403) },
      },
    },
    async (request) => ({ members: await listMembers(app.ctx, workspacePrincipal(request).workspaceId) }),
  );

  app.post(
    '/v1/members',
    {
      config: MEMBERS,
      schema: {
        operationId: 'addMember',
        tags,
        summary: 'Add a person with a confirmed account',
        description:
          "Within the plan's team limit. Only owners add owners. For an address without an account, invite.",
        body: AddMemberBody,
        response: { 201: json(Member, 'The member'), ...errorResponses(403, 409) },
      },
    },
    async (request, reply) => {
      const member = await addMember(app.ctx, actorOf(request), request.body.email, request.body.role);
      return reply.code(201).send(member);
    },
  );

  app.patch(
    '/v1/members/:person_id',
    {
      config: MEMBERS,
      schema: {
        operationId: 'changeMemberRole',
        tags,
        summary: "Change a member's role",
        description: 'Only owners give or take the owner role; the last owner cannot be demoted (409).',
        params: PersonParams,
        body: ChangeRoleBody,
        response: { 200: json(Member, 'The member'), ...errorResponses(403, 404, 409) },
      },
    },
    async (request) => changeRole(app.ctx, actorOf(request), request.params.person_id, request.body.role),
  );

  app.delete(
    '/v1/members/:person_id',
    {
      config: MEMBERS,
      schema: {
        operationId: 'removeMember',
        tags,
        summary: 'Remove a member',
        description:
          "The last owner cannot be removed (409). The removed person's next request in this workspace is refused; with no membership left, all their sessions end.",
        params: PersonParams,
        response: { 200: json(Removed, 'Removed'), ...errorResponses(403, 404, 409) },
      },
    },
    async (request) => {
      await removeMember(app.ctx, actorOf(request), request.params.person_id);
      return { ok: true as const };
    },
  );

  app.get(
    '/v1/invitations',
    {
      config: MEMBERS,
      schema: {
        operationId: 'listInvitations',
        tags,
        summary: "The workspace's invitations, newest first",
        description:
          'Pending, accepted, revoked and expired invitations; never their tokens. Owners and admins.',
        response: { 200: json(InvitationList, 'The invitations'), ...errorResponses(403) },
      },
    },
    async (request) => ({ invitations: await listInvitations(app.ctx, actorOf(request).workspaceId) }),
  );

  app.post(
    '/v1/invitations',
    {
      config: MEMBERS,
      schema: {
        operationId: 'createInvitation',
        tags,
        summary: 'Invite an address to the workspace',
        description:
          "Emails a link valid once for 7 days. Pending invitations count toward the plan's team limit (403 Team Limit Reached).",
        body: InviteBody,
        response: { 201: json(Invitation, 'The invitation'), ...errorResponses(403) },
      },
    },
    async (request, reply) => {
      const { token: _token, ...created } = await invite(
        app.ctx,
        actorOf(request),
        request.body.email,
        request.body.role,
      );
      return reply.code(201).send(created);
    },
  );

  app.delete(
    '/v1/invitations/:id',
    {
      config: MEMBERS,
      schema: {
        operationId: 'revokeInvitation',
        tags,
        summary: 'Revoke a pending invitation',
        description: 'Its link stops working at once (410). An accepted or revoked invitation answers 409.',
        params: InvitationParams,
        response: { 200: json(Removed, 'Revoked'), ...errorResponses(403, 404, 409) },
      },
    },
    async (request) => {
      await revokeInvitation(app.ctx, actorOf(request), request.params.id);
      return { ok: true as const };
    },
  );

  app.post(
    '/v1/invitations/accept',
    {
      schema: {
        operationId: 'acceptInvitation',
        tags,
        summary: 'Accept an invitation',
        description:
          'Signed in (session cookie and X-CSRF-Token): joins as that person. Otherwise name and password create an account for the invited address. A link works once: accepted, revoked or expired answers 410.',
        body: AcceptBody,
        response: { 201: json(Accepted, 'Joined'), ...errorResponses(403, 409, 410) },
      },
    },
    async (request, reply) => {
      const signedIn =
        request.cookies[SESSION_COOKIE] === undefined ? null : await requireSession(app.ctx, request);
      const { token, name, password } = request.body;
      if (!signedIn && (name === undefined || password === undefined)) {
        throw invalidParameter('name', 'sign in first, or send name and password to create an account');
      }
      const joined = await acceptInvitation(
        app.ctx,
        signedIn
          ? { token, personId: signedIn.personId }
          : { token, signUp: { name: name!, password: password! } },
        request.ip,
      );
      return reply
        .code(201)
        .send({ workspace_id: joined.workspaceId, person_id: joined.personId, role: joined.role });
    },
  );

  app.get(
    '/v1/keys',
    {
      config: KEYS,
      schema: {
        operationId: 'listKeys',
        tags,
        summary: "The workspace's API keys (never their secrets)",
        description:
          'Each key with its prefix, scopes, creator, expiry, last use and creation time. Owners and admins.',
        response: { 200: json(ApiKeyList, 'The keys'), ...errorResponses(403) },
      },
    },
    async (request) => {
      const rows = await listApiKeys(app.ctx.db, { workspaceId: actorOf(request).workspaceId });
      return {
        keys: rows.map((r) => ({
          id: r.id,
          prefix: r.prefix,
          name: r.name,
          scopes: r.scopes,
          created_by_person_id: r.created_by_person_id,
          expires_at: r.expires_at ? new Date(r.expires_at).toISOString() : null,
          revoked_at: r.revoked_at ? new Date(r.revoked_at).toISOString() : null,
          last_used_at: r.last_used_at ? new Date(r.last_used_at).toISOString() : null,
          created_at: new Date(r.created_at).toISOString(),
        })),
      };
    },
  );

  app.post(
    '/v1/keys',
    {
      config: KEYS,
      schema: {
        operationId: 'createKey',
        tags,
        summary: 'Create an API key',
        description:
          'Scopes are limited to what the creator\'s role allows (docs/security.md "Roles"). The secret is in this answer only.',
        body: CreateKeyBody,
        response: { 201: json(CreatedKey, 'The key, with its secret'), ...errorResponses(403) },
      },
    },
    async (request, reply) => {
      const actor = actorOf(request);
      const grantable = scopesGrantableBy(actor.role);
      const refused = request.body.scopes.filter((s) => !grantable.includes(s));
      if (refused.length > 0) {
        throw new DomainError(
          'forbidden',
          `Your role (${actor.role}) cannot create a key with ${refused.map((s) => `"${s}"`).join(', ')}: it grants more than the role does.`,
        );
      }
      const now = app.ctx.now();
      const expiresAt = request.body.expires_at ? new Date(request.body.expires_at) : null;
      if (expiresAt && expiresAt <= now) throw invalidParameter('expires_at', 'must be in the future');
      const created = await createKeyFor(app.ctx, actor, {
        name: request.body.name,
        scopes: request.body.scopes,
        expiresAt,
      });
      return reply.code(201).send({
        id: created.id,
        prefix: created.prefix,
        name: request.body.name,
        scopes: created.scopes,
        created_by_person_id: actor.personId,
        expires_at: created.expiresAt,
        revoked_at: null,
        last_used_at: null,
        created_at: now.toISOString(),
        key: created.key,
      });
    },
  );

  app.delete(
    '/v1/keys/:id',
    {
      config: KEYS,
      schema: {
        operationId: 'revokeKey',
        tags,
        summary: 'Revoke an API key',
        description: 'Other instances may accept the key for up to the key cache TTL.',
        params: KeyParams,
        response: { 200: json(Removed, 'Revoked'), ...errorResponses(403, 404) },
      },
    },
    async (request) => {
      const actor = actorOf(request);
      await revokeKeyFor(app.ctx, actor, request.params.id);
      app.ctx.authenticator.forget(request.params.id);
      return { ok: true as const };
    },
  );
}
