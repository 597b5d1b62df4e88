import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { ulid } from '../ids.ts';

/**
 * Key format: `bh_live_<26-char key id>_<43-char secret>`.
 * The id part is public (shown in listings, used to find the row); the secret carries 256
 * bits of entropy and is stored only as its SHA-256, so a fast hash is enough (no password
 * stretching is needed for a random secret) and a database leak yields no usable key.
 */
const KEY_PATTERN = /^bh_live_([0-9A-HJKMNP-TV-Z]{26})_([A-Za-z0-9_-]{43})$/;

export interface IssuedKey {
  id: string;
  /** The whole key, shown once. */
  token: string;
  /** Visible prefix for listings, e.g. `bh_live_01JD3…`. */
  prefix: string;
  secretHash: Buffer;
}

export function issueKey(): IssuedKey {
  const body = ulid();
  const secret = randomBytes(32).toString('base64url');
  return {
    id: `key_${body}`,
    token: `bh_live_${body}_${secret}`,
    prefix: `bh_live_${body.slice(0, 8)}`,
    secretHash: hashSecret(secret),
  };
}

export function parseKey(token: string): { id: string; secret: string } | null {
  const match = KEY_PATTERN.exec(token);
  if (!match) return null;
  return { id: `key_${match[1]}`, secret: match[2]! };
}

export function hashSecret(secret: string): Buffer {
  return createHash('sha256').update(secret).digest();
}

/** Constant-time comparison of a presented secret with the stored hash. */
export function secretMatches(secret: string, storedHash: Buffer): boolean {
  const presented = hashSecret(secret);
  return storedHash.length === presented.length && timingSafeEqual(presented, storedHash);
}

export function keyPrefix(id: string): string {
  return `bh_live_${id.replace(/^key_/, '').slice(0, 8)}`;
}
