import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../infra/db/types.ts';
import { newId } from '../infra/ids.ts';

/** Who did it: a person (signed in by session) or an API key; null actors for unauthenticated attempts. */
export interface AuditActor {
  personId?: string | null;
  keyId?: string | null;
}

export interface AuditEntry {
  actor: AuditActor;
  /** What happened, `<area>.<verb>`: `session.signed_in`, `session.sign_in_failed`, `key.revoked`, … */
  action: string;
  /** What it was done to (a person, key, webhook, connection id, or an email address for a failed sign-in). */
  target?: string | null;
  /** The client address of the request. */
  address?: string | null;
  workspaceId?: string | null;
  at: Date;
}

/**
 * Records one security-relevant action. Called by every domain inside the transaction that makes
 * the change (so the entry exists exactly when the change does); rows are never updated.
 */
export async function recordAudit(db: Transaction<DB> | Kysely<DB>, entry: AuditEntry): Promise<void> {
  await db
    .insertInto('audit_log')
    .values({
      id: newId('alog'),
      at: entry.at,
      workspace_id: entry.workspaceId ?? null,
      actor_person_id: entry.actor.personId ?? null,
      actor_key_id: entry.actor.keyId ?? null,
      action: entry.action,
      target: entry.target ?? null,
      address: entry.address ?? null,
    })
    .execute();
}
