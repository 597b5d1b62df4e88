import { createHash } from 'node:crypto';

/** mulberry32: a tiny, fast, seedable PRNG. The sandbox must be the same on every machine. */
export function prng(seed: string): () => number {
  let a = createHash('sha256').update(seed).digest().readUInt32LE(0);
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function between(rand: () => number, min: number, max: number): number {
  return min + (max - min) * rand();
}

/** Log-uniform: audiences span orders of magnitude. */
export function logBetween(rand: () => number, min: number, max: number): number {
  return Math.exp(between(rand, Math.log(min), Math.log(max)));
}

export function pick<T>(rand: () => number, items: readonly T[]): T {
  return items[Math.floor(rand() * items.length)]!;
}

/** Poisson draw (Knuth) for small means: posts per day. */
export function poisson(rand: () => number, mean: number): number {
  const limit = Math.exp(-mean);
  let k = 0;
  let p = rand();
  while (p > limit) {
    k += 1;
    p *= rand();
  }
  return k;
}
