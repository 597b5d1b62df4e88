import { randomBytes } from 'node:crypto';
import type { Transaction } from 'kysely';
import type { AppContext } from '../context.ts';
import { PLAN_LABELS, PLAN_LIMITS, type Plan } from '../core/catalog.ts';
import { DomainError, invalidParameter } from '../core/errors.ts';
import { mayAssignRole, type Role } from '../core/permissions.ts';
import { recordAudit } from '../audit-log/record.ts';
import { createApiKey, type CreatedKey, revokeApiKey } from '../admin/keys.ts';
import { createWorkspace } from '../admin/workspaces.ts';
import type { Scope } from '../core/catalog.ts';
import type { DB } from '../infra/db/types.ts';
import { isUniqueViolation } from '../infra/db/errors.ts';
import { newId } from '../infra/ids.ts';
import { lockWorkspace, workspaceName } from '../workspaces/queries.ts';
import { hashPassword, passwordProblem } from './password.ts';
import { dashboardLink, normaliseEmail } from './service.ts';
import { endSessionsOf, hashToken } from './sessions.ts';

/** How long an invitation link stays valid. */
export const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/** Who makes a team change: a signed-in person with a role, from an address, in a workspace. */
export interface TeamActor {
  personId: string;
  role: Role;
  workspaceId: string;
  address: string;
}

export interface MemberRow {
  person_id: string;
  email: string;
  name: string;
  role: Role;
  created_at: string;
}

export async function listMembers(ctx: AppContext, workspaceId: string): Promise<MemberRow[]> {
  const rows = await ctx.db
    .selectFrom('memberships')
    .innerJoin('people', 'people.id', 'memberships.person_id')
    .select(['people.id', 'people.email', 'people.name', 'memberships.role', 'memberships.created_at'])
    .where('memberships.workspace_id', '=', workspaceId)
    .orderBy('memberships.created_at')
    .orderBy('people.id')
    .execute();
  return rows.map((r) => ({
    person_id: r.id,
    email: r.email,
    name: r.name,
    role: r.role,
    created_at: r.created_at.toISOString(),
  }));
}

/** The number of people in a workspace's team: its memberships (what GET /v1/workspace reports). */
export async function teamSize(db: AppContext['db'] | Transaction<DB>, workspaceId: string): Promise<number> {
  const row = await db
    .selectFrom('memberships')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

async function pendingInvitations(trx: Transaction<DB>, workspaceId: string, now: Date): Promise<number> {
  const row = await trx
    .selectFrom('invitations')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('workspace_id', '=', workspaceId)
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Locks the workspace (team changes on one workspace are serialised) and refuses when `seats` more
 * people would pass its plan's team limit. Invitations count while pending, so a limit cannot be
 * passed by inviting many at once; accepting an invitation counts members only (its seat was held).
 */
export async function checkTeamLimit(
  trx: Transaction<DB>,
  workspaceId: string,
  now: Date,
  includePending: boolean,
): Promise<void> {
  const ws = await lockWorkspace(trx, workspaceId);
  if (!ws) throw new DomainError('not_found', `No workspace "${workspaceId}".`);
  const plan = ws.plan as Plan;
  const limit = PLAN_LIMITS[plan].teamLimit;
  const used =
    (await teamSize(trx, workspaceId)) +
    (includePending ? await pendingInvitations(trx, workspaceId, now) : 0);
  if (used + 1 > limit) {
    throw new DomainError(
      'team_limit_reached',
      `The ${PLAN_LABELS[plan]} plan allows ${limit} ${limit === 1 ? 'person' : 'people'} in a workspace${includePending ? ' (pending invitations included)' : ''}; upgrade the plan or remove someone first.`,
      { plan, limit },
    );
  }
}

function refuseRole(actor: TeamActor, role: Role): void {
  if (!mayAssignRole(actor.role, role)) {
    throw new DomainError('forbidden', `Your role (${actor.role}) cannot give or take the ${role} role.`);
  }
}

async function ownerCount(trx: Transaction<DB>, workspaceId: string): Promise<number> {
  const row = await trx
    .selectFrom('memberships')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('workspace_id', '=', workspaceId)
    .where('role', '=', 'owner')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

async function memberRole(trx: Transaction<DB>, workspaceId: string, personId: string): Promise<Role> {
  const row = await trx
    .selectFrom('memberships')
    .select('role')
    .where('workspace_id', '=', workspaceId)
    .where('person_id', '=', personId)
    .executeTakeFirst();
  if (!row) throw new DomainError('not_found', `No member "${personId}" in this workspace.`);
  return row.role;
}

/** Adds a person who has an account, by email, with a role (within the team limit). */
export async function addMember(
  ctx: AppContext,
  actor: TeamActor,
  email: string,
  role: Role,
): Promise<MemberRow> {
  refuseRole(actor, role);
  const now = ctx.now();
  const address = normaliseEmail(email);
  return ctx.db.transaction().execute(async (trx) => {
    const person = await trx
      .selectFrom('people')
      .select(['id', 'email', 'name'])
      .where((eb) => eb(eb.fn('lower', ['email']), '=', address))
      .where('email_verified_at', 'is not', null)
      .executeTakeFirst();
    if (!person) {
      throw invalidParameter('email', 'no confirmed account has this address: send an invitation instead');
    }
    await checkTeamLimit(trx, actor.workspaceId, now, true);
    const inserted = await trx
      .insertInto('memberships')
      .values({ workspace_id: actor.workspaceId, person_id: person.id, role, created_at: now })
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    if (!inserted.numInsertedOrUpdatedRows)
      throw new DomainError('conflict', `${person.email} is already a member.`);
    await recordAudit(trx, {
      actor: { personId: actor.personId },
      action: 'member.added',
      target: person.id,
      detail: `as ${role}`,
      address: actor.address,
      workspaceId: actor.workspaceId,
      at: now,
    });
    return {
      person_id: person.id,
      email: person.email,
      name: person.name,
      role,
      created_at: now.toISOString(),
    };
  });
}

/** How many workspaces a person may own and still create another one themselves. */
export const OWN_WORKSPACES_LIMIT = 3;

/**
 * A signed-in person creates a workspace: on the Free plan (a larger plan is the operator's step),
 * with them as its owner. A person who owns OWN_WORKSPACES_LIMIT workspaces already is refused; the
 * person's row is locked first, so two requests at once cannot both pass the count.
 */
export async function createOwnWorkspace(
  ctx: AppContext,
  actor: { personId: string; address: string | null },
  name: string,
): Promise<{ id: string; name: string; plan: Plan }> {
  const now = ctx.now();
  return ctx.db.transaction().execute(async (trx) => {
    await trx.selectFrom('people').select('id').where('id', '=', actor.personId).forUpdate().execute();
    const owned = await trx
      .selectFrom('memberships')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('person_id', '=', actor.personId)
      .where('role', '=', 'owner')
      .executeTakeFirstOrThrow();
    if (Number(owned.n) >= OWN_WORKSPACES_LIMIT) {
      throw new DomainError(
        'conflict',
        `You own ${OWN_WORKSPACES_LIMIT} workspaces already: use one of them, or ask the service's operator for another.`,
      );
    }
    const workspace = await createWorkspace(trx, { name, plan: 'free' });
    await trx
      .insertInto('memberships')
      .values({ workspace_id: workspace.id, person_id: actor.personId, role: 'owner', created_at: now })
      .execute();
    await recordAudit(trx, {
      actor: { personId: actor.personId },
      action: 'workspace.created',
      target: workspace.id,
      detail: workspace.name,
      address: actor.address,
      workspaceId: workspace.id,
      at: now,
    });
    return { id: workspace.id, name: workspace.name, plan: 'free' as const };
  });
}

/** Refuses to take away the workspace's last owner (by a role change or a removal). */
async function keepAnOwner(trx: Transaction<DB>, workspaceId: string, current: Role): Promise<void> {
  if (current === 'owner' && (await ownerCount(trx, workspaceId)) === 1) {
    throw new DomainError(
      'last_owner',
      "This is the workspace's only owner: make someone else an owner first.",
    );
  }
}

/** Changes a member's role. Only owners give or take the owner role; the last owner stays an owner. */
export async function changeRole(
  ctx: AppContext,
  actor: TeamActor,
  personId: string,
  role: Role,
): Promise<MemberRow> {
  const now = ctx.now();
  await ctx.db.transaction().execute(async (trx) => {
    await lockWorkspace(trx, actor.workspaceId);
    const current = await memberRole(trx, actor.workspaceId, personId);
    refuseRole(actor, current);
    refuseRole(actor, role);
    if (current === role) return;
    await keepAnOwner(trx, actor.workspaceId, current);
    await trx
      .updateTable('memberships')
      .set({ role })
      .where('workspace_id', '=', actor.workspaceId)
      .where('person_id', '=', personId)
      .execute();
    await recordAudit(trx, {
      actor: { personId: actor.personId },
      action: 'member.role_changed',
      target: personId,
      detail: `${current} -> ${role}`,
      address: actor.address,
      workspaceId: actor.workspaceId,
      at: now,
    });
  });
  const member = (await listMembers(ctx, actor.workspaceId)).find((m) => m.person_id === personId);
  if (!member) throw new DomainError('not_found', `No member "${personId}" in this workspace.`);
  return member;
}

/**
 * Removes a member. A person left with no membership loses all their sessions; otherwise their next
 * request in this workspace is refused by the session principal (it reads the role every request).
 */
export async function removeMember(ctx: AppContext, actor: TeamActor, personId: string): Promise<void> {
  const now = ctx.now();
  await ctx.db.transaction().execute(async (trx) => {
    await lockWorkspace(trx, actor.workspaceId);
    const current = await memberRole(trx, actor.workspaceId, personId);
    if (personId !== actor.personId) refuseRole(actor, current);
    await keepAnOwner(trx, actor.workspaceId, current);
    await trx
      .deleteFrom('memberships')
      .where('workspace_id', '=', actor.workspaceId)
      .where('person_id', '=', personId)
      .execute();
    const left = await trx
      .selectFrom('memberships')
      .select('workspace_id')
      .where('person_id', '=', personId)
      .executeTakeFirst();
    if (!left) await endSessionsOf(trx, personId);
    await recordAudit(trx, {
      actor: { personId: actor.personId },
      action: 'member.removed',
      target: personId,
      detail: left ? `was ${current}` : `was ${current}; sessions ended`,
      address: actor.address,
      workspaceId: actor.workspaceId,
      at: now,
    });
  });
}

export interface InvitationView {
  id: string;
  email: string;
  role: Role;
  invited_by: string | null;
  status: 'pending' | 'accepted' | 'revoked' | 'expired';
  expires_at: string;
  created_at: string;
}

function invitationStatus(
  r: { accepted_at: Date | null; revoked_at: Date | null; expires_at: Date },
  now: Date,
): InvitationView['status'] {
  if (r.accepted_at) return 'accepted';
  if (r.revoked_at) return 'revoked';
  if (r.expires_at <= now) return 'expired';
  return 'pending';
}

export async function listInvitations(ctx: AppContext, workspaceId: string): Promise<InvitationView[]> {
  const now = ctx.now();
  const rows = await ctx.db
    .selectFrom('invitations')
    .select(['id', 'email', 'role', 'invited_by', 'accepted_at', 'revoked_at', 'expires_at', 'created_at'])
    .where('workspace_id', '=', workspaceId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
  return rows.map((r) => ({
    id: r.id,
    email: r.email,
    role: r.role,
    invited_by: r.invited_by,
    status: invitationStatus(r, now),
    expires_at: r.expires_at.toISOString(),
    created_at: r.created_at.toISOString(),
  }));
}

/** Invites an address with a role: the link (token) is emailed and never stored, only its SHA-256. */
export async function invite(
  ctx: AppContext,
  actor: TeamActor,
  email: string,
  role: Role,
): Promise<InvitationView & { token: string }> {
  refuseRole(actor, role);
  const now = ctx.now();
  const address = normaliseEmail(email);
  const token = randomBytes(32).toString('base64url');
  const id = newId('inv');
  const expiresAt = new Date(now.getTime() + INVITATION_TTL_MS);
  const wsName = await ctx.db.transaction().execute(async (trx) => {
    await checkTeamLimit(trx, actor.workspaceId, now, true);
    await trx
      .insertInto('invitations')
      .values({
        id,
        workspace_id: actor.workspaceId,
        email: address,
        role,
        token_hash: hashToken(token),
        invited_by: actor.personId,
        expires_at: expiresAt,
        created_at: now,
      })
      .execute();
    await recordAudit(trx, {
      actor: { personId: actor.personId },
      action: 'invitation.created',
      target: id,
      detail: `${address} as ${role}`,
      address: actor.address,
      workspaceId: actor.workspaceId,
      at: now,
    });
    return (await workspaceName(trx, actor.workspaceId)) ?? actor.workspaceId;
  });
  const url = dashboardLink(ctx, 'accept-invitation', token);
  await ctx.mail.send({
    to: [address],
    subject: `You are invited to ${wsName} on Brand Health`,
    text: `You are invited to join ${wsName} on Brand Health as ${role}.\n\nAccept: ${url}\n\nThe link works once, for 7 days.`,
  });
  return {
    id,
    email: address,
    role,
    invited_by: actor.personId,
    status: 'pending',
    expires_at: expiresAt.toISOString(),
    created_at: now.toISOString(),
    token,
  };
}

export async function revokeInvitation(ctx: AppContext, actor: TeamActor, id: string): Promise<void> {
  const now = ctx.now();
  await ctx.db.transaction().execute(async (trx) => {
    const row = await trx
      .selectFrom('invitations')
      .select(['role', 'email'])
      .where('id', '=', id)
      .where('workspace_id', '=', actor.workspaceId)
      .executeTakeFirst();
    if (!row) throw new DomainError('not_found', `No invitation "${id}" in this workspace.`);
    refuseRole(actor, row.role);
    const updated = await trx
      .updateTable('invitations')
      .set({ revoked_at: now })
      .where('id', '=', id)
      .where('workspace_id', '=', actor.workspaceId)
      .where('accepted_at', 'is', null)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    if (!updated.numUpdatedRows)
      throw new DomainError('conflict', 'The invitation was already accepted or revoked.');
    await recordAudit(trx, {
      actor: { personId: actor.personId },
      action: 'invitation.revoked',
      target: id,
      detail: row.email,
      address: actor.address,
      workspaceId: actor.workspaceId,
      at: now,
    });
  });
}

/**
 * Accepts an invitation for a signed-in person, or for a new person from sign-up fields (their
 * address counts as confirmed: the link reached it). The token is used by one conditional UPDATE,
 * so of two concurrent accepts exactly one wins; the other sees "accepted".
 */
export async function acceptInvitation(
  ctx: AppContext,
  input: { token: string; personId?: string; signUp?: { name: string; password: string } },
  address: string,
): Promise<{ workspaceId: string; personId: string; role: Role }> {
  const now = ctx.now();
  const tokenHash = hashToken(input.token);
  const passwordHash =
    input.personId === undefined && input.signUp
      ? await preparePassword(ctx, tokenHash, input.signUp.password)
      : null;
  return ctx.db.transaction().execute(async (trx) => {
    const claimed = await trx
      .updateTable('invitations')
      .set({ accepted_at: now })
      .where('token_hash', '=', tokenHash)
      .where('accepted_at', 'is', null)
      .where('revoked_at', 'is', null)
      .where('expires_at', '>', now)
      .returning(['id', 'workspace_id', 'email', 'role'])
      .executeTakeFirst();
    if (!claimed) throw await unusable(trx, tokenHash);
    let personId = input.personId;
    if (personId === undefined) {
      if (!input.signUp || passwordHash === null) {
        throw invalidParameter('name', 'sign in first, or send name and password to create an account');
      }
      personId = newId('per');
      try {
        await trx
          .insertInto('people')
          .values({
            id: personId,
            email: claimed.email,
            name: input.signUp.name.trim(),
            password_hash: passwordHash,
            email_verified_at: now,
            created_at: now,
          })
          .execute();
      } catch (error) {
        if (isUniqueViolation(error)) {
          throw new DomainError('conflict', `${claimed.email} already has an account: sign in, then accept.`);
        }
        throw error;
      }
    }
    await checkTeamLimit(trx, claimed.workspace_id, now, false);
    const inserted = await trx
      .insertInto('memberships')
      .values({
        workspace_id: claimed.workspace_id,
        person_id: personId,
        role: claimed.role,
        created_at: now,
      })
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    if (!inserted.numInsertedOrUpdatedRows)
      throw new DomainError('conflict', 'You are already a member of this workspace.');
    await trx
      .updateTable('invitations')
      .set({ accepted_by: personId })
      .where('id', '=', claimed.id)
      .execute();
    await recordAudit(trx, {
      actor: { personId },
      action: 'invitation.accepted',
      target: claimed.id,
      detail: `${claimed.email} as ${claimed.role}`,
      address,
      workspaceId: claimed.workspace_id,
      at: now,
    });
    return { workspaceId: claimed.workspace_id, personId, role: claimed.role };
  });
}

/** Checks and hashes a new person's password before the transaction (scrypt is slow). */
async function preparePassword(ctx: AppContext, tokenHash: Buffer, password: string): Promise<string> {
  const row = await ctx.db
    .selectFrom('invitations')
    .select('email')
    .where('token_hash', '=', tokenHash)
    .executeTakeFirst();
  const problem = passwordProblem(password, row?.email ?? '');
  if (problem) throw invalidParameter('password', problem);
  return hashPassword(password);
}

async function unusable(
  trx: Transaction<DB>,
  tokenHash: Buffer,
): Promise<DomainError<'invitation_unusable'>> {
  const row = await trx
    .selectFrom('invitations')
    .select(['accepted_at', 'revoked_at', 'expires_at'])
    .where('token_hash', '=', tokenHash)
    .executeTakeFirst();
  if (!row)
    return new DomainError('invitation_unusable', 'This invitation link is not known.', {
      reason: 'unknown',
    });
  if (row.accepted_at) {
    return new DomainError('invitation_unusable', 'This invitation was already accepted.', {
      reason: 'accepted',
    });
  }
  if (row.revoked_at)
    return new DomainError('invitation_unusable', 'This invitation was revoked.', { reason: 'revoked' });
  return new DomainError('invitation_unusable', 'This invitation has expired: ask for a new one.', {
    reason: 'expired',
  });
}

/** Creates a key of the actor's workspace, recording its creator, in one transaction with its audit entry. */
export async function createKeyFor(
  ctx: AppContext,
  actor: TeamActor,
  input: { name: string; scopes: Scope[]; expiresAt: Date | null },
): Promise<CreatedKey> {
  const now = ctx.now();
  return ctx.db.transaction().execute(async (trx) => {
    const key = await createApiKey(
      trx,
      { workspaceId: actor.workspaceId },
      {
        name: input.name,
        scopes: input.scopes,
        expiresAt: input.expiresAt,
        createdByPersonId: actor.personId,
      },
    );
    await recordAudit(trx, {
      actor: { personId: actor.personId },
      action: 'key.created',
      target: key.id,
      detail: `${input.name} (${input.scopes.join(', ') || 'no scopes'})`,
      address: actor.address,
      workspaceId: actor.workspaceId,
      at: now,
    });
    return key;
  });
}

/** Revokes a key of the actor's workspace (any other key is "not found"), with its audit entry. */
export async function revokeKeyFor(ctx: AppContext, actor: TeamActor, keyId: string): Promise<void> {
  const now = ctx.now();
  await ctx.db.transaction().execute(async (trx) => {
    await revokeApiKey(trx, keyId, now, actor.workspaceId);
    await recordAudit(trx, {
      actor: { personId: actor.personId },
      action: 'key.revoked',
      target: keyId,
      address: actor.address,
      workspaceId: actor.workspaceId,
      at: now,
    });
  });
}
