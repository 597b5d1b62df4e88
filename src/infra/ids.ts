import { randomBytes } from 'node:crypto';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** The last id's time and random part: ids of the same millisecond count up from it (below). */
let last: { time: number; random: number[] } | null = null;

/**
 * A ULID body: 10 characters of millisecond time then 16 of randomness (80 bits), Crockford
 * base32. Ids sort by creation time, which gives lists a stable "newest first, ties by id" order.
 * Monotonic within the process, as the ULID spec's monotonic factory
 * (https://github.com/ulid/spec#monotonicity): an id made in the same millisecond as the one before
 * takes that id's random part plus one, so rows written in one request (a membership and the sign-in
 * that follows it) sort in the order they were made. Ids of other processes in the same millisecond
 * still sort at random among them.
 */
export function ulid(now = Date.now()): string {
  let random: number[];
  if (last && now === last.time) {
    random = [...last.random];
    let i = random.length - 1;
    while (i >= 0 && random[i] === 31) random[i--] = 0;
    // 2^80 ids in one millisecond cannot happen; were it to, the digits wrap to zero.
    if (i >= 0) random[i]! += 1;
  } else {
    const bytes = randomBytes(16);
    random = Array.from(bytes, (b) => b % 32);
  }
  last = { time: now, random };
  let time = '';
  let t = now;
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32] + time;
    t = Math.floor(t / 32);
  }
  return time + random.map((d) => CROCKFORD[d]).join('');
}

/** Stripe-style prefixed ids (`ws_...`, `aud_...`) say what they name in logs and support tickets. */
export function newId(prefix: string): string {
  return `${prefix}_${ulid()}`;
}
