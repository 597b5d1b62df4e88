import { createCipheriv, createHash, randomFillSync } from 'node:crypto';

/**
 * A source of uniformly random bytes. The DP samplers consume only whole bytes and turn them into
 * integers, so no floating-point value ever sits between the randomness and the published noise.
 * `kind` lets a publisher refuse anything but the cryptographic source.
 */
export interface RandomSource {
  readonly kind: 'crypto' | 'seeded';
  nextBytes(length: number): Uint8Array;
}

const POOL_BYTES = 4096;

// Samplers ask for one or two bytes at a time; refilling a pool keeps the per-call cost low.
function pooledSource(kind: RandomSource['kind'], refill: (pool: Uint8Array) => void): RandomSource {
  const pool = new Uint8Array(POOL_BYTES);
  let position = POOL_BYTES;
  return {
    kind,
    nextBytes(length: number): Uint8Array {
      if (!Number.isInteger(length) || length < 0) throw new RangeError(`invalid byte count ${length}`);
      if (length > POOL_BYTES) {
        const out = new Uint8Array(length);
        refill(out);
        return out;
      }
      if (position + length > POOL_BYTES) {
        refill(pool);
        position = 0;
      }
      const out = pool.slice(position, position + length);
      position += length;
      return out;
    },
  };
}

/** Cryptographically secure bytes from node:crypto. The only source fit for publication. */
export function cryptoRandomSource(): RandomSource {
  return pooledSource('crypto', (pool) => randomFillSync(pool));
}

/**
 * Deterministic bytes for tests and simulations: the AES-256-CTR keystream under a key derived from
 * the seed. The same seed always yields the same byte stream, so sampled draws are exactly
 * reproducible. Never use it for publication: anyone holding the seed can recompute the noise.
 */
export function seededRandomSource(seed: string | Uint8Array): RandomSource {
  const key = createHash('sha256').update('tacsi-privacy-seeded-rng/v1\0').update(seed).digest();
  const cipher = createCipheriv('aes-256-ctr', key, Buffer.alloc(16));
  const zeros = Buffer.alloc(POOL_BYTES);
  return pooledSource('seeded', (pool) => {
    // CTR mode keeps its counter across update() calls, so the stream is one continuous keystream.
    const need = pool.length;
    let filled = 0;
    while (filled < need) {
      const chunk = cipher.update(zeros.subarray(0, Math.min(POOL_BYTES, need - filled)));
      pool.set(chunk, filled);
      filled += chunk.length;
    }
  });
}

/** Number of bits needed to write n (bitLength(0) = 0). */
function bitLength(n: bigint): number {
  return n === 0n ? 0 : n.toString(2).length;
}

/**
 * Uniform integer in {0, ..., n - 1}. Draws just enough bits to cover n - 1 and rejects values >= n
 * (expected fewer than two tries), so every outcome has exactly the same probability; reducing a
 * random word modulo n would favour the small residues.
 */
export function uniformBelow(n: bigint, rng: RandomSource): bigint {
  if (n <= 0n) throw new RangeError('uniformBelow needs n >= 1');
  if (n === 1n) return 0n;
  const bits = bitLength(n - 1n);
  const byteCount = (bits + 7) >> 3;
  const mask = (1n << BigInt(bits)) - 1n;
  for (;;) {
    const bytes = rng.nextBytes(byteCount);
    let x = 0n;
    for (const b of bytes) x = (x << 8n) | BigInt(b);
    x &= mask;
    if (x < n) return x;
  }
}
