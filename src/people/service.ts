import { randomBytes } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { AppContext } from '../context.ts';
import { DomainError, invalidParameter } from '../core/errors.ts';
import { isUniqueViolation } from '../infra/db/errors.ts';
import type { DB, PersonTokenPurpose } from '../infra/db/types.ts';
import { newId } from '../infra/ids.ts';
import { recordAudit } from '../audit-log/record.ts';
import { DASHBOARD_PATH } from '../infra/http/dashboard.ts';
import { hashPassword, passwordMatches, passwordProblem } from './password.ts';
import { endSession, endSessionsOf, hashToken, startSession } from './sessions.ts';
import {
  MAIL_REQUESTS_PER_ADDRESS,
  RESET_TOKEN_MS,
  SIGN_IN_ATTEMPTS_PER_ACCOUNT,
  SIGN_IN_ATTEMPTS_PER_ADDRESS,
  SIGN_IN_WINDOW_MS,
  VERIFY_TOKEN_MS,
} from './settings.ts';

export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

/**
 * The dashboard page an emailed link opens (`/app/#/<route>?token=...`): the token is in the fragment,
 * so it never reaches a server log or a Referer header.
 */
export function dashboardLink(ctx: AppContext, route: string, token: string): string {
  const base = ctx.config.publicUrl ?? `http://127.0.0.1:${ctx.config.port}`;
  return `${base.replace(/\/$/, '')}${DASHBOARD_PATH}#/${route}?token=${encodeURIComponent(token)}`;
}

async function issueToken(
  trx: Transaction<DB>,
  now: Date,
  personId: string,
  purpose: PersonTokenPurpose,
  ttlMs: number,
): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  await trx
    .insertInto('person_tokens')
    .values({
      token_hash: hashToken(token),
      person_id: personId,
      purpose,
      expires_at: new Date(now.getTime() + ttlMs),
    })
    .execute();
  return token;
}

/**
 * The workspaces a person is a member of: where the audit entries of their own actions (sign-in,
 * sign-out, password reset) go, so each workspace's owners and admins see them.
 */
export async function workspacesOf(db: Kysely<DB> | Transaction<DB>, personId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('memberships')
    .select('workspace_id')
    .where('person_id', '=', personId)
    .orderBy('workspace_id')
    .execute();
  return rows.map((r) => r.workspace_id);
}

/** Counts one request against a throttle; throws sign_in_limited past `limit`. */
export async function throttle(ctx: AppContext, key: string, limit: number): Promise<void> {
  const hit = await ctx.rateLimits.hit(key, SIGN_IN_WINDOW_MS, ctx.now().getTime());
  if (hit.count > limit) {
    const retryAfterSeconds = Math.max(1, Math.ceil(hit.resetMs / 1000));
    throw new DomainError(
      'sign_in_limited',
      `Too many attempts: try again in ${retryAfterSeconds} seconds.`,
      {
        retryAfterSeconds,
      },
    );
  }
}

/**
 * Sign-up. The answer is the same whether or not the address has an account (no enumeration):
 * a new address gets a verification link, a known one an email saying someone tried to sign up
 * with it (and a reset link if it was the owner).
 */
export async function signUp(
  ctx: AppContext,
  input: { email: string; name: string; password: string },
  address: string,
): Promise<void> {
  const email = normaliseEmail(input.email);
  const problem = passwordProblem(input.password, email);
  if (problem) throw invalidParameter('password', problem);
  await throttle(ctx, `signup-addr:${address}`, MAIL_REQUESTS_PER_ADDRESS);
  const passwordHash = await hashPassword(input.password);
  const now = ctx.now();
  const outcome = await ctx.db
    .transaction()
    .execute(async (trx) => {
      const id = newId('per');
      await trx
        .insertInto('people')
        .values({ id, email, name: input.name.trim(), password_hash: passwordHash, created_at: now })
        .execute();
      return {
        kind: 'created' as const,
        token: await issueToken(trx, now, id, 'verify_email', VERIFY_TOKEN_MS),
      };
    })
    .catch((error: unknown) => {
      if (isUniqueViolation(error)) return { kind: 'exists' as const };
      throw error;
    });
  if (outcome.kind === 'created') {
    const url = dashboardLink(ctx, 'verify-email', outcome.token);
    await ctx.mail.send({
      to: [email],
      subject: 'Confirm your email address',
      text: `Welcome to Brand Health.\n\nConfirm your address to sign in:\n${url}\n\nThe link works once, for 48 hours.`,
      html: `<p>Welcome to Brand Health.</p><p><a href="${url}">Confirm your email address</a> to sign in.</p><p>The link works once, for 48 hours.</p>`,
    });
  } else {
    await ctx.mail.send({
      to: [email],
      subject: 'Someone tried to sign up with your address',
      text: 'Someone (perhaps you) tried to create a Brand Health account with this address, which already has one.\n\nIf it was you, sign in, or reset your password from the sign-in page.',
    });
  }
}

/** Marks the address verified; the link works once. */
export async function verifyEmail(ctx: AppContext, token: string): Promise<void> {
  const now = ctx.now();
  await ctx.db.transaction().execute(async (trx) => {
    const personId = await useToken(trx, now, token, 'verify_email');
    await trx
      .updateTable('people')
      .set({ email_verified_at: now })
      .where('id', '=', personId)
      .where('email_verified_at', 'is', null)
      .execute();
  });
}

/** Consumes a single-use token (row-locked: two concurrent uses cannot both succeed). */
async function useToken(
  trx: Transaction<DB>,
  now: Date,
  token: string,
  purpose: PersonTokenPurpose,
): Promise<string> {
  const row = await trx
    .updateTable('person_tokens')
    .set({ used_at: now })
    .where('token_hash', '=', hashToken(token))
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returning('person_id')
    .executeTakeFirst();
  if (!row) {
    throw new DomainError('invalid_token', 'The link is unknown, already used or expired.', {
      parameter: 'token',
    });
  }
  return row.person_id;
}

export interface SignedIn {
  token: string;
  csrfToken: string;
  expiresAt: Date;
  person: { id: string; email: string; name: string };
}

/**
 * Password sign-in. Throttled per account (the email as typed, so an unknown address is counted
 * like a known one) and per client address before any check; an unknown address, a wrong
 * password and an unverified address answer the same, after the same scrypt work.
 */
export async function signIn(
  ctx: AppContext,
  input: { email: string; password: string },
  address: string,
  presentedSession: string | undefined,
): Promise<SignedIn> {
  const email = normaliseEmail(input.email);
  await throttle(ctx, `signin-addr:${address}`, SIGN_IN_ATTEMPTS_PER_ADDRESS);
  await throttle(ctx, `signin-acct:${email}`, SIGN_IN_ATTEMPTS_PER_ACCOUNT);
  const person = await ctx.db
    .selectFrom('people')
    .select(['id', 'email', 'name', 'password_hash', 'email_verified_at'])
    .where('email', '=', email)
    .executeTakeFirst();
  const matches = await passwordMatches(input.password, person?.password_hash ?? null);
  if (!person || !matches || person.email_verified_at === null) {
    // A known person's failed sign-in goes to each of their workspaces' logs (someone may be guessing
    // a member's password); an address without an account belongs to no workspace, so to none.
    await recordAudit(ctx.db, {
      actor: { personId: person?.id ?? null },
      action: 'session.sign_in_failed',
      target: email,
      detail: !person ? 'no account' : !matches ? 'wrong password' : 'address not confirmed',
      address,
      workspaceIds: person ? await workspacesOf(ctx.db, person.id) : [],
      at: ctx.now(),
    });
    throw new DomainError(
      'sign_in_failed',
      'The email or password is wrong, or the address is not confirmed yet.',
    );
  }
  const now = ctx.now();
  const session = await ctx.db.transaction().execute(async (trx) => {
    const started = await startSession(trx, now, person.id, address, presentedSession);
    await recordAudit(trx, {
      actor: { personId: person.id },
      action: 'session.signed_in',
      target: person.id,
      detail: 'password',
      address,
      workspaceIds: await workspacesOf(trx, person.id),
      at: now,
    });
    return started;
  });
  return { ...session, person: { id: person.id, email: person.email, name: person.name } };
}

/** Sends a reset link when the address has an account; answers the same either way. */
export async function requestPasswordReset(
  ctx: AppContext,
  rawEmail: string,
  address: string,
): Promise<void> {
  const email = normaliseEmail(rawEmail);
  await throttle(ctx, `reset-addr:${address}`, MAIL_REQUESTS_PER_ADDRESS);
  const now = ctx.now();
  const token = await ctx.db.transaction().execute(async (trx) => {
    const person = await trx.selectFrom('people').select('id').where('email', '=', email).executeTakeFirst();
    return person ? issueToken(trx, now, person.id, 'reset_password', RESET_TOKEN_MS) : null;
  });
  if (token === null) return;
  const url = dashboardLink(ctx, 'reset-password', token);
  await ctx.mail.send({
    to: [email],
    subject: 'Reset your password',
    text: `Someone (perhaps you) asked to reset your Brand Health password.\n\nChoose a new one here:\n${url}\n\nThe link works once, for one hour. If it was not you, ignore this email.`,
    html: `<p>Someone (perhaps you) asked to reset your Brand Health password.</p><p><a href="${url}">Choose a new password</a> (the link works once, for one hour).</p><p>If it was not you, ignore this email.</p>`,
  });
}

/**
 * Sets a new password from a reset link; every session of the person ends and the address counts
 * as verified. A refused password rolls back, so the link still works for a better one.
 */
export async function resetPassword(
  ctx: AppContext,
  token: string,
  password: string,
  address: string,
): Promise<void> {
  const now = ctx.now();
  await ctx.db.transaction().execute(async (trx) => {
    const personId = await useToken(trx, now, token, 'reset_password');
    const person = await trx
      .selectFrom('people')
      .select('email')
      .where('id', '=', personId)
      .executeTakeFirstOrThrow();
    const problem = passwordProblem(password, person.email);
    if (problem) throw invalidParameter('password', problem);
    const passwordHash = await hashPassword(password);
    await trx
      .updateTable('people')
      .set((eb) => ({
        password_hash: passwordHash,
        email_verified_at: eb.fn.coalesce('email_verified_at', eb.val(now)),
      }))
      .where('id', '=', personId)
      .execute();
    await endSessionsOf(trx, personId);
    await recordAudit(trx, {
      actor: { personId },
      action: 'person.password_reset',
      target: personId,
      address,
      workspaceIds: await workspacesOf(trx, personId),
      at: now,
    });
  });
}

/** Ends one session (sign out) or every session of its person, recorded in the audit log. */
export async function signOut(
  ctx: AppContext,
  session: { personId: string; idHash: Buffer },
  everywhere: boolean,
  address: string,
): Promise<number> {
  const now = ctx.now();
  return ctx.db.transaction().execute(async (trx) => {
    const ended = everywhere
      ? await endSessionsOf(trx, session.personId)
      : await endSession(trx, session.idHash);
    await recordAudit(trx, {
      actor: { personId: session.personId },
      action: everywhere ? 'session.signed_out_everywhere' : 'session.signed_out',
      target: session.personId,
      detail: everywhere ? `${ended} sessions ended` : null,
      address,
      workspaceIds: await workspacesOf(trx, session.personId),
      at: now,
    });
    return ended;
  });
}
