import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import commonPasswords from 'fxa-common-password-list';

/**
 * Password hashing with Node's scrypt (memory-hard). Parameters: N = 2^15, r = 8, p = 1 (32 MiB of
 * memory and about 50 ms per hash on one core), a 16-byte random salt and a 32-byte key, which is
 * OWASP's scrypt recommendation. They are stored with each hash
 * (`scrypt$<logN>$<r>$<p>$<salt>$<key>`, base64url), so they can be raised later without breaking
 * existing passwords.
 */
const LOG_N = 15;
const R = 8;
const P = 1;
const KEY_LENGTH = 32;
const MAX_MEMORY = 64 * 1024 * 1024;

export const MIN_PASSWORD_LENGTH = 10;
export const MAX_PASSWORD_LENGTH = 256;

function derive(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, options, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, { N: 2 ** LOG_N, r: R, p: P, maxmem: MAX_MEMORY });
  return ['scrypt', LOG_N, R, P, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** A hash no password matches, compared against for an unknown account so both cost the same. */
const DUMMY_HASH = [
  'scrypt',
  LOG_N,
  R,
  P,
  randomBytes(16).toString('base64url'),
  randomBytes(KEY_LENGTH).toString('base64url'),
].join('$');

/** Verifies in constant time; a null stored hash (no password set) runs the same work and fails. */
export async function passwordMatches(password: string, stored: string | null): Promise<boolean> {
  const parts = (stored ?? DUMMY_HASH).split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [, logN, r, p, salt, key] = parts as [string, string, string, string, string, string];
  const expected = Buffer.from(key, 'base64url');
  const presented = await derive(password, Buffer.from(salt, 'base64url'), {
    N: 2 ** Number(logN),
    r: Number(r),
    p: Number(p),
    maxmem: MAX_MEMORY,
  });
  return stored !== null && presented.length === expected.length && timingSafeEqual(presented, expected);
}

/** Why a new password is refused, or null. The common list is Mozilla's (Firefox Accounts). */
export function passwordProblem(password: string, email: string): string | null {
  if (password.length < MIN_PASSWORD_LENGTH) return `must be at least ${MIN_PASSWORD_LENGTH} characters`;
  if (password.length > MAX_PASSWORD_LENGTH) return `must be at most ${MAX_PASSWORD_LENGTH} characters`;
  if (commonPasswords.test(password.toLowerCase())) return 'is one of the most common passwords';
  if (password.toLowerCase().includes(email.split('@')[0]!.toLowerCase()))
    return 'must not contain the email address';
  return null;
}
