import { createHash, randomBytes } from 'node:crypto';
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { AppContext } from '../context.ts';
import { DomainError, invalidParameter } from '../core/errors.ts';
import { isUniqueViolation } from '../infra/db/errors.ts';
import { newId } from '../infra/ids.ts';
import { recordAudit } from '../audit-log/record.ts';
import { throttle, workspacesOf, type SignedIn } from './service.ts';
import { startSession, type SessionPerson } from './sessions.ts';
import { PASSKEYS_PER_PERSON, SIGN_IN_ATTEMPTS_PER_ADDRESS, WEBAUTHN_CHALLENGE_MS } from './settings.ts';

/** The name shown by authenticators for this service. */
const RP_NAME = 'Brand Health';
/** EdDSA, ES256, RS256 (COSE algorithm ids): what authenticators use, named so no runtime probing happens. */
const ALGORITHMS = [-8, -7, -257];
const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);
const loopbackPeer = (address: string | undefined) =>
  !!address && (address === '::1' || /^(::ffff:)?127\./.test(address));

/** Where passkeys are bound: the relying-party id (a host name) and the one origin accepted. */
export interface RelyingParty {
  id: string;
  origin: string;
}

/** What of a request decides the relying party when PUBLIC_URL is not set. */
export interface RequestOrigin {
  protocol: string;
  host: string;
  hostname: string;
  peer: string | undefined;
}

/**
 * The relying party: PUBLIC_URL's host name and origin. Without PUBLIC_URL, the request's own origin
 * only when both the Host it names and the peer are loopback (a developer's machine, the end-to-end
 * tests): a Host header from anywhere else must not choose which site passkeys are bound to.
 */
export function relyingParty(ctx: AppContext, request: RequestOrigin): RelyingParty {
  if (ctx.config.publicUrl) {
    const url = new URL(ctx.config.publicUrl);
    return { id: url.hostname, origin: url.origin };
  }
  if (LOOPBACK_NAMES.has(request.hostname) && loopbackPeer(request.peer)) {
    return { id: request.hostname.replace(/^\[|\]$/g, ''), origin: `${request.protocol}://${request.host}` };
  }
  throw new DomainError(
    'passkeys_unavailable',
    'Passkeys need the service to know its public address: the operator sets PUBLIC_URL.',
  );
}

function sha256(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/** The WebAuthn user handle of a person: their id's bytes (no personal data; at most 64 bytes). */
function userHandle(personId: string): Uint8Array<ArrayBuffer> {
  return new Uint8Array(Buffer.from(personId, 'utf8'));
}

/** Deletes challenges past their expiry (each options request sweeps, so the table stays small). */
async function sweepChallenges(ctx: AppContext, now: Date): Promise<void> {
  await ctx.db.deleteFrom('webauthn_challenges').where('expires_at', '<=', now).execute();
}

export interface PasskeyView {
  id: string;
  name: string;
  transports: string[];
  aaguid: string | null;
  created_at: string;
  last_used_at: string | null;
}

function view(row: {
  id: string;
  name: string;
  transports: string[];
  aaguid: string | null;
  created_at: Date;
  last_used_at: Date | null;
}): PasskeyView {
  return {
    id: row.id,
    name: row.name,
    transports: row.transports,
    aaguid: row.aaguid,
    created_at: row.created_at.toISOString(),
    last_used_at: row.last_used_at?.toISOString() ?? null,
  };
}

/**
 * Options for registering a passkey (navigator.credentials.create): a discoverable credential
 * (resident key) so it signs in without an email typed, user verification preferred. The challenge
 * is stored for the session that asked; a newer request replaces an older pending one.
 */
export async function registrationOptions(
  ctx: AppContext,
  session: SessionPerson,
  rp: RelyingParty,
): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const now = ctx.now();
  const existing = await ctx.db
    .selectFrom('passkeys')
    .select(['credential_id', 'transports'])
    .where('person_id', '=', session.personId)
    .execute();
  const options = await generateRegistrationOptions({
    rpName: RP_NAME,
    rpID: rp.id,
    userName: session.email,
    userID: userHandle(session.personId),
    userDisplayName: session.name,
    timeout: WEBAUTHN_CHALLENGE_MS,
    attestationType: 'none',
    excludeCredentials: existing.map((p) => ({ id: p.credential_id, transports: p.transports })),
    authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
    supportedAlgorithmIDs: ALGORITHMS,
  });
  await sweepChallenges(ctx, now);
  await ctx.db.transaction().execute(async (trx) => {
    await trx
      .deleteFrom('webauthn_challenges')
      .where('session_hash', '=', session.idHash)
      .where('purpose', '=', 'register')
      .execute();
    await trx
      .insertInto('webauthn_challenges')
      .values({
        id_hash: sha256(randomBytes(32).toString('base64url')),
        purpose: 'register',
        challenge: options.challenge,
        session_hash: session.idHash,
        rp_id: rp.id,
        origin: rp.origin,
        expires_at: new Date(now.getTime() + WEBAUTHN_CHALLENGE_MS),
      })
      .execute();
  });
  return options;
}

/**
 * Verifies a registration (the attestation the browser returned for the session's pending options)
 * and stores the passkey under the name the person chose. The pending challenge is used up by the
 * attempt, whatever its outcome.
 */
export async function addPasskey(
  ctx: AppContext,
  session: SessionPerson,
  input: { name: string; response: RegistrationResponseJSON },
  address: string,
): Promise<PasskeyView> {
  const now = ctx.now();
  const pending = await ctx.db
    .deleteFrom('webauthn_challenges')
    .where('session_hash', '=', session.idHash)
    .where('purpose', '=', 'register')
    .returning(['challenge', 'rp_id', 'origin', 'expires_at'])
    .executeTakeFirst();
  if (!pending || pending.expires_at <= now) {
    throw invalidParameter(
      'response',
      'no registration is pending for your session, or its options expired: ask for new options',
    );
  }
  let verified;
  try {
    verified = await verifyRegistrationResponse({
      response: input.response,
      expectedChallenge: pending.challenge,
      expectedOrigin: pending.origin,
      expectedRPID: pending.rp_id,
      requireUserVerification: false,
      supportedAlgorithmIDs: ALGORITHMS,
    });
  } catch (error) {
    throw invalidParameter(
      'response',
      `the passkey could not be verified (${error instanceof Error ? error.message : 'invalid response'})`,
    );
  }
  if (!verified.verified) throw invalidParameter('response', 'the passkey could not be verified');
  const { credential, aaguid } = verified.registrationInfo;
  const id = newId('pk');
  try {
    return await ctx.db.transaction().execute(async (trx) => {
      const count = await trx
        .selectFrom('passkeys')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('person_id', '=', session.personId)
        .executeTakeFirstOrThrow();
      if (Number(count.n) >= PASSKEYS_PER_PERSON) {
        throw new DomainError(
          'conflict',
          `You have ${PASSKEYS_PER_PERSON} passkeys already: remove one before adding another.`,
        );
      }
      const row = await trx
        .insertInto('passkeys')
        .values({
          id,
          person_id: session.personId,
          credential_id: credential.id,
          public_key: Buffer.from(credential.publicKey),
          counter: credential.counter,
          transports: credential.transports ?? input.response.response.transports ?? [],
          aaguid: aaguid === '00000000-0000-0000-0000-000000000000' ? null : aaguid,
          name: input.name.trim(),
          created_at: now,
        })
        .returning(['id', 'name', 'transports', 'aaguid', 'created_at', 'last_used_at'])
        .executeTakeFirstOrThrow();
      await recordAudit(trx, {
        actor: { personId: session.personId },
        action: 'passkey.registered',
        target: session.personId,
        detail: `${input.name.trim()} (${id})`,
        address,
        workspaceIds: await workspacesOf(trx, session.personId),
        at: now,
      });
      return view(row);
    });
  } catch (error) {
    if (isUniqueViolation(error)) {
      throw new DomainError('conflict', 'This passkey is registered already.');
    }
    throw error;
  }
}

/** The person's own passkeys, oldest first (names and dates: no key material). */
export async function listPasskeys(ctx: AppContext, personId: string): Promise<PasskeyView[]> {
  const rows = await ctx.db
    .selectFrom('passkeys')
    .select(['id', 'name', 'transports', 'aaguid', 'created_at', 'last_used_at'])
    .where('person_id', '=', personId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map(view);
}

/** Removes one of the person's own passkeys; another person's answers 404 like an unknown id. */
export async function removePasskey(
  ctx: AppContext,
  session: SessionPerson,
  id: string,
  address: string,
): Promise<void> {
  const now = ctx.now();
  await ctx.db.transaction().execute(async (trx) => {
    const removed = await trx
      .deleteFrom('passkeys')
      .where('id', '=', id)
      .where('person_id', '=', session.personId)
      .executeTakeFirst();
    if (Number(removed.numDeletedRows) === 0) {
      throw new DomainError('not_found', `You have no passkey "${id}".`);
    }
    await recordAudit(trx, {
      actor: { personId: session.personId },
      action: 'passkey.removed',
      target: session.personId,
      detail: id,
      address,
      workspaceIds: await workspacesOf(trx, session.personId),
      at: now,
    });
  });
}

/**
 * Options for signing in with a passkey (navigator.credentials.get) with no account named: the
 * authenticator offers its discoverable credentials for this site. The challenge is stored under
 * the SHA-256 of a random challenge id returned with it. Counted per address like sign-in attempts.
 */
export async function signInOptions(
  ctx: AppContext,
  rp: RelyingParty,
  address: string,
): Promise<{ challengeId: string; options: PublicKeyCredentialRequestOptionsJSON }> {
  await throttle(ctx, `passkey-options-addr:${address}`, SIGN_IN_ATTEMPTS_PER_ADDRESS);
  const now = ctx.now();
  const options = await generateAuthenticationOptions({
    rpID: rp.id,
    userVerification: 'preferred',
    timeout: WEBAUTHN_CHALLENGE_MS,
  });
  const challengeId = randomBytes(32).toString('base64url');
  await sweepChallenges(ctx, now);
  await ctx.db
    .insertInto('webauthn_challenges')
    .values({
      id_hash: sha256(challengeId),
      purpose: 'sign_in',
      challenge: options.challenge,
      session_hash: null,
      rp_id: rp.id,
      origin: rp.origin,
      expires_at: new Date(now.getTime() + WEBAUTHN_CHALLENGE_MS),
    })
    .execute();
  return { challengeId, options };
}

const PASSKEY_REFUSED = 'The passkey was not accepted. Ask for new options and try again.';

/**
 * Passkey sign-in: the assertion for a pending sign-in challenge (used up by the attempt, whatever
 * its outcome). Counted against the same per-address sign-in throttle as passwords before any
 * check. Every refusal (unknown, used or expired challenge, unknown credential, another person's
 * user handle, a wrong signature, a counter that did not move forward) answers the same 401.
 */
export async function signInWithPasskey(
  ctx: AppContext,
  input: { challengeId: string; response: AuthenticationResponseJSON },
  address: string,
  presentedSession: string | undefined,
): Promise<SignedIn> {
  await throttle(ctx, `signin-addr:${address}`, SIGN_IN_ATTEMPTS_PER_ADDRESS);
  const now = ctx.now();
  /** Records the refusal (the passkey, when known, and why) and answers the one 401. */
  const fail = async (
    known: { id: string; person_id: string } | null,
    reason: 'challenge' | 'credential' | 'user_handle' | 'signature' | 'counter',
  ): Promise<never> => {
    await recordAudit(ctx.db, {
      actor: { personId: known?.person_id ?? null },
      action: 'session.sign_in_failed',
      target: known?.person_id ?? null,
      detail: known ? `passkey ${known.id}: ${reason}` : `passkey: ${reason}`,
      address,
      workspaceIds: known ? await workspacesOf(ctx.db, known.person_id) : [],
      at: now,
    });
    throw new DomainError('sign_in_failed', PASSKEY_REFUSED);
  };

  const pending = await ctx.db
    .deleteFrom('webauthn_challenges')
    .where('id_hash', '=', sha256(input.challengeId))
    .where('purpose', '=', 'sign_in')
    .returning(['challenge', 'rp_id', 'origin', 'expires_at'])
    .executeTakeFirst();
  if (!pending || pending.expires_at <= now) return fail(null, 'challenge');

  const passkey = await ctx.db
    .selectFrom('passkeys')
    .innerJoin('people', 'people.id', 'passkeys.person_id')
    .select([
      'passkeys.id',
      'passkeys.credential_id',
      'passkeys.public_key',
      'passkeys.counter',
      'passkeys.transports',
      'people.id as person_id',
      'people.email',
      'people.name',
    ])
    .where('passkeys.credential_id', '=', input.response.id)
    .executeTakeFirst();
  if (!passkey) return fail(null, 'credential');
  const handle = input.response.response.userHandle;
  if (handle !== undefined && handle !== Buffer.from(userHandle(passkey.person_id)).toString('base64url')) {
    return fail(passkey, 'user_handle');
  }

  let newCounter: number;
  try {
    const verified = await verifyAuthenticationResponse({
      response: input.response,
      expectedChallenge: pending.challenge,
      expectedOrigin: pending.origin,
      expectedRPID: pending.rp_id,
      credential: {
        id: passkey.credential_id,
        publicKey: new Uint8Array(passkey.public_key),
        counter: passkey.counter,
        transports: passkey.transports as never,
      },
      requireUserVerification: false,
    });
    if (!verified.verified) return await fail(passkey, 'signature');
    newCounter = verified.authenticationInfo.newCounter;
  } catch (error) {
    if (error instanceof DomainError) throw error;
    const counter = error instanceof Error && /counter/i.test(error.message);
    return fail(passkey, counter ? 'counter' : 'signature');
  }

  const session = await ctx.db.transaction().execute(async (trx) => {
    // Compare-and-set on the counter: of two uses carrying the same counter value, one wins.
    let update = trx
      .updateTable('passkeys')
      .set({ counter: newCounter, last_used_at: now })
      .where('id', '=', passkey.id);
    if (newCounter > 0) update = update.where('counter', '<', newCounter);
    const updated = await update.executeTakeFirst();
    if (Number(updated.numUpdatedRows) === 0) return null;
    const started = await startSession(trx, now, passkey.person_id, address, presentedSession);
    await recordAudit(trx, {
      actor: { personId: passkey.person_id },
      action: 'session.signed_in',
      target: passkey.person_id,
      detail: `passkey ${passkey.id}`,
      address,
      workspaceIds: await workspacesOf(trx, passkey.person_id),
      at: now,
    });
    return started;
  });
  if (!session) return fail(passkey, 'counter');
  return {
    ...session,
    person: { id: passkey.person_id, email: passkey.email, name: passkey.name },
  };
}
