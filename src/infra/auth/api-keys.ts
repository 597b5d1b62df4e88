import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { ulid } from '../ids.ts';

import type { KeyMode } from '../db/types.ts';

/**
 * Key format: `bh_<mode>_<26-char key id>_<43-char secret>`, mode `live` for real keys and `test`
 * for keys of sandbox workspaces and subscribers (src/admin/keys.ts decides by the owner), so a sandbox key is recognisable at a
 * glance, in logs and in secret scanners. The mode is part of the key: a test key presented as
 * live (or the reverse) is refused. The id part is public (shown in listings, used to find the
 * row); the secret carries 256 bits of entropy and is stored only as its SHA-256, so a fast hash
 * is enough (no password stretching is needed for a random secret) and a database leak yields no
 * usable key.
 */
const KEY_PATTERN = /^bh_(live|test)_([0-9A-HJKMNP-TV-Z]{26})_([A-Za-z0-9_-]{43})$/;

export interface IssuedKey {
  id: string;
  /** The whole key, shown once. */
  token: string;
  /** Visible prefix for listings, e.g. `bh_live_01JD3…`. */
  prefix: string;
  secretHash: Buffer;
  mode: KeyMode;
}

export function issueKey(mode: KeyMode = 'live'): IssuedKey {
  const body = ulid();
  const secret = randomBytes(32).toString('base64url');
  return {
    id: `key_${body}`,
    token: `bh_${mode}_${body}_${secret}`,
    prefix: keyPrefix(`key_${body}`, mode),
    secretHash: hashSecret(secret),
    mode,
  };
}

export function parseKey(token: string): { id: string; secret: string; mode: KeyMode } | null {
  const match = KEY_PATTERN.exec(token);
  if (!match) return null;
  return { id: `key_${match[2]}`, secret: match[3]!, mode: match[1] as KeyMode };
}

export function hashSecret(secret: string): Buffer {
  return createHash('sha256').update(secret).digest();
}

/** Constant-time comparison of a presented secret with the stored hash. */
export function secretMatches(secret: string, storedHash: Buffer): boolean {
  const presented = hashSecret(secret);
  return storedHash.length === presented.length && timingSafeEqual(presented, storedHash);
}

export function keyPrefix(id: string, mode: KeyMode = 'live'): string {
  return `bh_${mode}_${id.replace(/^key_/, '').slice(0, 8)}`;
}
