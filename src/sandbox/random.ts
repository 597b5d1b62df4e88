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

/**
 * Standard normal quantile (inverse CDF) for p in (0, 1), Acklam's rational approximation
 * (relative error below 1.2e-9): enough to place a stratum, not a statistics library.
 */
export function normalQuantile(p: number): number {
  const a = [
    -39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716,
    2.506628277459239,
  ];
  const b = [
    -54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572,
  ];
  const c = [
    -0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968,
    2.938163982698783,
  ];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const q = Math.min(1 - 1e-12, Math.max(1e-12, p));
  const low = 0.02425;
  if (q < low || q > 1 - low) {
    const t = Math.sqrt(-2 * Math.log(q < low ? q : 1 - q));
    const x =
      (((((c[0]! * t + c[1]!) * t + c[2]!) * t + c[3]!) * t + c[4]!) * t + c[5]!) /
      ((((d[0]! * t + d[1]!) * t + d[2]!) * t + d[3]!) * t + 1);
    return q < low ? x : -x;
  }
  const r = q - 0.5;
  const s = r * r;
  return (
    ((((((a[0]! * s + a[1]!) * s + a[2]!) * s + a[3]!) * s + a[4]!) * s + a[5]!) * r) /
    (((((b[0]! * s + b[1]!) * s + b[2]!) * s + b[3]!) * s + b[4]!) * s + 1)
  );
}
