import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../infra/db/types.ts';
import type { WorkspacePrincipal } from '../infra/auth/principal.ts';
import { newId } from '../infra/ids.ts';
import type { AuditAction } from './actions.ts';

/** Who did it: a person (signed in by session) or an API key; null actors for unauthenticated attempts. */
export interface AuditActor {
  personId?: string | null;
  keyId?: string | null;
}

export interface AuditEntry {
  actor: AuditActor;
  /** What happened: one of AUDIT_ACTIONS (src/audit-log/actions.ts), `<area>.<verb>`. */
  action: AuditAction;
  /** The id of what it was done to (a person, key, invitation, webhook, connection; an email for a failed sign-in). */
  target?: string | null;
  /** What the entry says beyond its target: a role change `member -> admin`, why a sign-in failed. */
  detail?: string | null;
  /** The client address of the request. */
  address?: string | null;
  /** The workspace whose log holds the entry; null: no workspace's (an unknown address's failed sign-in). */
  workspaceId?: string | null;
  /**
   * For an action of a person rather than of a workspace (sign-in, sign-out, password reset): every
   * workspace the person is a member of, one entry each, so each of their workspaces' owners and admins
   * see it. Empty: one entry in no workspace's log. Takes the place of `workspaceId`.
   */
  workspaceIds?: readonly string[];
  at: Date;
}

/** The actor of a request's principal: the signed-in person, or else the API key. */
export function actorOf(principal: Pick<WorkspacePrincipal, 'personId' | 'keyId'>): AuditActor {
  return principal.personId !== null ? { personId: principal.personId } : { keyId: principal.keyId };
}

/**
 * Records one security-relevant action. Called by every domain inside the transaction that makes
 * the change (so the entry exists exactly when the change does); rows are never updated.
 */
export async function recordAudit(db: Transaction<DB> | Kysely<DB>, entry: AuditEntry): Promise<void> {
  const workspaces = entry.workspaceIds
    ? entry.workspaceIds.length > 0
      ? entry.workspaceIds
      : [null]
    : [entry.workspaceId ?? null];
  await db
    .insertInto('audit_log')
    .values(
      workspaces.map((workspaceId) => ({
        id: newId('alog'),
        at: entry.at,
        workspace_id: workspaceId,
        actor_person_id: entry.actor.personId ?? null,
        actor_key_id: entry.actor.keyId ?? null,
        action: entry.action,
        target: entry.target ?? null,
        detail: entry.detail ?? null,
        address: entry.address ?? null,
      })),
    )
    .execute();
}
