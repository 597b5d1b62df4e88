import type { FastifyRequest } from 'fastify';
import { sql, type Kysely } from 'kysely';
import type { AppContext, MemberAccess } from '../context.ts';
import type { DB } from '../infra/db/types.ts';
import { DomainError } from '../core/errors.ts';
import { actionsOfRole, type Role } from '../core/permissions.ts';
import { SESSION_PRINCIPAL_PREFIX, type WorkspacePrincipal } from '../infra/auth/principal.ts';
import { parentOf } from '../workspaces/queries.ts';
import { csrfMatches, sessionPerson, type SessionPerson } from './sessions.ts';
import { CSRF_HEADER, SESSION_COOKIE } from './settings.ts';

/** The header a signed-in request names the workspace it acts in with. */
export const WORKSPACE_HEADER = 'x-workspace-id';

export interface MembershipView {
  workspaceId: string;
  workspaceName: string;
  role: Role;
  plan: WorkspacePrincipal['plan'];
  accountType: string;
}

/** A person's memberships, oldest first (the first is where a request without X-Workspace-Id acts). */
export async function membershipsOf(ctx: AppContext, personId: string): Promise<MembershipView[]> {
  const rows = await ctx.db
    .selectFrom('memberships')
    .innerJoin('workspaces', 'workspaces.id', 'memberships.workspace_id')
    .select([
      'memberships.workspace_id',
      'memberships.role',
      'workspaces.name',
      'workspaces.plan',
      'workspaces.account_type',
    ])
    .where('memberships.person_id', '=', personId)
    .orderBy('memberships.created_at')
    .orderBy('memberships.workspace_id')
    .execute();
  return rows.map((r) => ({
    workspaceId: r.workspace_id,
    workspaceName: r.name,
    role: r.role,
    plan: r.plan,
    accountType: r.account_type,
  }));
}

/**
 * What a person may do in a workspace now: their role's actions through a membership of the
 * workspace, or of its agency for a client workspace; null when they have neither. The same rule as
 * `sessionPrincipal`, for work a person started that completes later (AppContext.memberAccess).
 */
export async function memberAccess(
  db: Kysely<DB>,
  personId: string,
  workspaceId: string,
): Promise<MemberAccess | null> {
  const parent = await parentOf(db, workspaceId);
  if (parent === undefined) return null;
  const row = await db
    .selectFrom('memberships')
    .innerJoin('workspaces', 'workspaces.id', 'memberships.workspace_id')
    .select(['memberships.workspace_id', 'memberships.role', 'workspaces.plan'])
    .where('memberships.person_id', '=', personId)
    .where('memberships.workspace_id', 'in', parent === null ? [workspaceId] : [workspaceId, parent])
    // A direct membership of the workspace wins over the agency's.
    .orderBy(sql`memberships.workspace_id = ${workspaceId}`, 'desc')
    .executeTakeFirst();
  return row ? { workspaceId: row.workspace_id, plan: row.plan, actions: actionsOfRole(row.role) } : null;
}

/**
 * The signed-in person of a request, or 401. A state-changing request (anything but GET, HEAD,
 * OPTIONS) must carry the session's CSRF token in X-CSRF-Token, else 403.
 */
export async function requireSession(ctx: AppContext, request: FastifyRequest): Promise<SessionPerson> {
  const session = await sessionPerson(ctx, request.cookies[SESSION_COOKIE]);
  if (!session) throw new DomainError('sign_in_failed', 'Sign in first: there is no valid session.');
  if (
    !['GET', 'HEAD', 'OPTIONS'].includes(request.method) &&
    !csrfMatches(session, request.headers[CSRF_HEADER])
  ) {
    throw new DomainError('csrf_failed', `Send the session's CSRF token in the X-CSRF-Token header.`);
  }
  return session;
}

/**
 * A request with a session cookie (and no Authorization header) as a principal: the person acting
 * in the workspace named by X-Workspace-Id (one they are a member of, or a client workspace of an
 * agency they are a member of), or in their first membership. The role is read on every request, so
 * a removed or demoted person's next request sees the change. Null when there is no session cookie.
 */
export async function sessionPrincipal(
  ctx: AppContext,
  request: FastifyRequest,
): Promise<WorkspacePrincipal | null> {
  if (request.cookies[SESSION_COOKIE] === undefined) return null;
  const session = await requireSession(ctx, request);
  const memberships = await membershipsOf(ctx, session.personId);
  const header = request.headers[WORKSPACE_HEADER];
  let chosen: MembershipView | undefined;
  if (typeof header === 'string' && header !== '') {
    chosen = memberships.find((m) => m.workspaceId === header);
    if (!chosen) {
      const parent = await parentOf(ctx.db, header);
      if (parent) chosen = memberships.find((m) => m.workspaceId === parent);
    }
    if (!chosen) {
      throw new DomainError('forbidden', `You are not a member of workspace "${header}".`);
    }
  } else {
    chosen = memberships[0];
    if (!chosen) throw new DomainError('forbidden', 'You are not a member of any workspace.');
  }
  return {
    kind: 'workspace',
    keyId: `${SESSION_PRINCIPAL_PREFIX}${session.personId}`,
    scopes: [],
    actions: actionsOfRole(chosen.role),
    personId: session.personId,
    role: chosen.role,
    workspaceId: chosen.workspaceId,
    plan: chosen.plan,
    accountType: chosen.accountType,
    expiresAt: session.expiresAt.getTime(),
  };
}
