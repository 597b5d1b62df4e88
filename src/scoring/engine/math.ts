/** Small numeric helpers. Every score passes through `clamp`, so no NaN or Infinity leaves the engine. */

/** Clamp to [lo, hi]; a non-finite value (NaN) becomes `lo` so a bad input can never leak out. */
export function clamp(x: number, lo: number, hi: number): number {
  if (!(x > lo)) return lo; // also catches NaN
  return x < hi ? x : hi;
}

/** Round to one decimal, halves away from zero (so +x and -x round alike), never returning -0. */
export function round1(x: number): number {
  const r = (Math.sign(x) * Math.round(Math.abs(x) * 10)) / 10;
  return r === 0 ? 0 : r;
}

/**
 * Position of a non-negative rate relative to its baseline: x / (x + b).
 * 0 -> 0, baseline -> 0.5, 3x baseline -> 0.75, never reaches 1. Strictly increasing in x.
 */
export function relToBaseline(x: number, baseline: number): number {
  if (!(x > 0)) return 0;
  if (x === Infinity) return 1;
  return x / (x + baseline);
}

/** A metric value that is safe to add up: finite and non-negative, else 0. */
export function nonNeg(x: number): number {
  return x > 0 && x !== Infinity ? x : 0;
}
