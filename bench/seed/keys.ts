import { createHash } from 'node:crypto';
import { hashSecret } from '../../src/infra/auth/api-keys.ts';

/** An API key made up from a label: the same label gives the same key on every run. */
export interface BenchKey {
  id: string;
  token: string;
  secretHash: Buffer;
}

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * A key in the service's own format (`bh_live_<26 Crockford chars>_<43 base64url chars>`), derived
 * from sha256(seed, label) so thousands can be inserted in one statement without calling the admin
 * code per key. The secret is stored hashed exactly as the service hashes it.
 */
export function benchKey(seed: string, label: string): BenchKey {
  const digest = createHash('sha256').update(`${seed}:key:${label}`).digest();
  let body = '';
  for (let i = 0; i < 26; i++) body += CROCKFORD[digest[i]! % 32];
  const secret = createHash('sha256').update(`${seed}:secret:${label}`).digest('base64url');
  return { id: `key_${body}`, token: `bh_live_${body}_${secret}`, secretHash: hashSecret(secret) };
}

export function bearer(key: BenchKey): string {
  return `Bearer ${key.token}`;
}
