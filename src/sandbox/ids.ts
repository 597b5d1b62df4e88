import { createHash, createHmac } from 'node:crypto';
import { hashSecret } from '../infra/auth/api-keys.ts';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * Sandbox ids and keys are derived from names, so seeding twice finds the same rows and the
 * manifest's keys keep working. Sandbox only: real keys come from `brandhealth key create`.
 */
export function sandboxUlid(name: string): string {
  const bytes = createHash('sha256').update(`sandbox:${name}`).digest();
  let out = '01SANDBX';
  for (let i = 0; out.length < 26; i++) out += CROCKFORD[bytes[i]! % 32];
  return out;
}

export function sandboxId(prefix: string, name: string): string {
  return `${prefix}_${sandboxUlid(name)}`;
}

export function sandboxKey(name: string): { id: string; token: string; secretHash: Buffer } {
  const body = sandboxUlid(`key:${name}`);
  const secret = createHmac('sha256', 'brand-health-sandbox').update(name).digest('base64url');
  return { id: `key_${body}`, token: `bh_live_${body}_${secret}`, secretHash: hashSecret(secret) };
}
