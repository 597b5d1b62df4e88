import { randomBytes } from 'node:crypto';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * A ULID body: 10 characters of millisecond time then 16 of randomness (80 bits), Crockford
 * base32. Ids sort by creation time, which gives lists a stable "newest first, ties by id" order.
 */
export function ulid(now = Date.now()): string {
  let time = '';
  let t = now;
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32] + time;
    t = Math.floor(t / 32);
  }
  const bytes = randomBytes(16);
  let random = '';
  for (let i = 0; i < 16; i++) random += CROCKFORD[bytes[i]! % 32];
  return time + random;
}

/** Stripe-style prefixed ids (`ws_...`, `aud_...`) say what they name in logs and support tickets. */
export function newId(prefix: string): string {
  return `${prefix}_${ulid()}`;
}
