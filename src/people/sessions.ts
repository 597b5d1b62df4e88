import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { AppContext } from '../context.ts';
import type { DB } from '../infra/db/types.ts';
import { SESSION_ABSOLUTE_MS, SESSION_IDLE_MS } from './settings.ts';

/** A signed-in person, as a request carrying a valid session cookie sees it. */
export interface SessionPerson {
  personId: string;
  email: string;
  name: string;
  csrfToken: string;
  expiresAt: Date;
  /** SHA-256 of the cookie value (the row's key). */
  idHash: Buffer;
}

export function hashToken(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}

/**
 * Starts a session: a fresh random id (256 bits) is made at every sign-in, so an id planted in a
 * browser before sign-in never becomes a signed-in session (session fixation). Any session the
 * request presented is ended in the same transaction.
 */
export async function startSession(
  trx: Transaction<DB>,
  now: Date,
  personId: string,
  address: string,
  presented: string | undefined,
): Promise<{ token: string; csrfToken: string; expiresAt: Date }> {
  if (presented) await trx.deleteFrom('sessions').where('id_hash', '=', hashToken(presented)).execute();
  const token = randomBytes(32).toString('base64url');
  const csrfToken = randomBytes(32).toString('base64url');
  const expiresAt = new Date(now.getTime() + SESSION_ABSOLUTE_MS);
  await trx
    .insertInto('sessions')
    .values({
      id_hash: hashToken(token),
      person_id: personId,
      csrf_token: csrfToken,
      created_at: now,
      last_seen_at: now,
      expires_at: expiresAt,
      address,
    })
    .execute();
  return { token, csrfToken, expiresAt };
}

/**
 * The person of a session cookie, or null when the session is unknown, past its absolute timeout
 * or idle too long (then it is deleted). A valid session's last use is recorded (at most once a
 * minute, so reads do not write on every request).
 */
export async function sessionPerson(
  ctx: AppContext,
  token: string | undefined,
): Promise<SessionPerson | null> {
  if (!token || token.length > 100) return null;
  const now = ctx.now();
  const idHash = hashToken(token);
  const row = await ctx.db
    .selectFrom('sessions')
    .innerJoin('people', 'people.id', 'sessions.person_id')
    .select([
      'people.id',
      'people.email',
      'people.name',
      'sessions.csrf_token',
      'sessions.last_seen_at',
      'sessions.expires_at',
    ])
    .where('sessions.id_hash', '=', idHash)
    .executeTakeFirst();
  if (!row) return null;
  if (row.expires_at <= now || now.getTime() - row.last_seen_at.getTime() >= SESSION_IDLE_MS) {
    await ctx.db.deleteFrom('sessions').where('id_hash', '=', idHash).execute();
    return null;
  }
  if (now.getTime() - row.last_seen_at.getTime() >= 60_000) {
    await ctx.db.updateTable('sessions').set({ last_seen_at: now }).where('id_hash', '=', idHash).execute();
  }
  return {
    personId: row.id,
    email: row.email,
    name: row.name,
    csrfToken: row.csrf_token,
    expiresAt: row.expires_at,
    idHash,
  };
}

/** Compares a presented CSRF token with the session's in constant time. */
export function csrfMatches(session: SessionPerson, presented: string | string[] | undefined): boolean {
  if (typeof presented !== 'string') return false;
  const a = Buffer.from(presented);
  const b = Buffer.from(session.csrfToken);
  return a.length === b.length && timingSafeEqual(a, b);
}

export async function endSession(db: Kysely<DB> | Transaction<DB>, idHash: Buffer): Promise<number> {
  const result = await db.deleteFrom('sessions').where('id_hash', '=', idHash).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Ends every session of a person (sign out everywhere, password reset, removal). */
export async function endSessionsOf(db: Kysely<DB> | Transaction<DB>, personId: string): Promise<number> {
  const result = await db.deleteFrom('sessions').where('person_id', '=', personId).executeTakeFirst();
  return Number(result.numDeletedRows);
}
