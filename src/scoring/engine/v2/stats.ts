/**
 * Robust statistics over typed arrays for formula v2: selection, medians, the Theil-Sen slope and a
 * sorted multiset with O(1) median. Buffers come from the caller's Scratch; nothing here keeps state.
 */
import type { Scratch } from './scratch.ts';

/**
 * In-place selection (Hoare's quickselect with median-of-three pivots): after the call a[k] holds
 * the k-th smallest of a[0..n) and everything before it is <= a[k]. O(n) on average, where a sort
 * was O(n log n) and, per window and day, most of the engine's time (docs/performance.md).
 */
export function selectK(a: Float64Array, n: number, k: number): number {
  let lo = 0;
  let hi = n - 1;
  while (hi > lo) {
    const mid = (lo + hi) >> 1;
    // Median of three as the pivot: sorted input (common: block means, views) stays linear.
    const x = a[lo]!;
    const y = a[mid]!;
    const z = a[hi]!;
    const pivot = x < y ? (y < z ? y : x < z ? z : x) : x < z ? x : y < z ? z : y;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (a[i]! < pivot) i++;
      while (a[j]! > pivot) j--;
      if (i <= j) {
        const t = a[i]!;
        a[i] = a[j]!;
        a[j] = t;
        i++;
        j--;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else break;
  }
  return a[k]!;
}

/** Median of a[0..n) (reorders a); the mean of the two middle values for even n. NaN when n = 0. */
export function medianInPlace(a: Float64Array, n: number): number {
  if (n === 0) return NaN;
  const m = n >> 1;
  const upper = selectK(a, n, m);
  if (n % 2) return upper;
  // a[0..m) now holds the lower half: its largest value is the other middle one.
  let lower = a[0]!;
  for (let i = 1; i < m; i++) if (a[i]! > lower) lower = a[i]!;
  return (lower + upper) / 2;
}

/** Median of xs (not modified). Inputs here are finite, so it equals the sorted definition exactly. */
export function median(xs: ArrayLike<number>): number {
  return medianInPlace(Float64Array.from(xs as ArrayLike<number>), xs.length);
}

/** Median of values[i - a] over the days idx[from..to). */
export function medianOfDays(
  scratch: Scratch,
  values: Float64Array,
  idx: Int32Array,
  from: number,
  to: number,
  a: number,
): number {
  const n = to - from;
  const w = scratch.work(n);
  for (let k = 0; k < n; k++) w[k] = values[idx[from + k]! - a]!;
  return medianInPlace(w, n);
}

/**
 * Theil-Sen slope (median of pairwise slopes) of y over x[0..n). The largest single cost of an
 * evaluation (435 slopes for 30 block means, twice): typed arrays and a scratch buffer keep it to
 * the divisions and the selection.
 */
export function theilSen(scratch: Scratch, x: Float64Array, y: Float64Array, n = x.length): number {
  const slopes = scratch.slopes((n * (n - 1)) / 2);
  let m = 0;
  for (let i = 0; i < n; i++) {
    const xi = x[i]!;
    const yi = y[i]!;
    for (let j = i + 1; j < n; j++) if (x[j]! !== xi) slopes[m++] = (y[j]! - yi) / (x[j]! - xi);
  }
  return m ? medianInPlace(slopes, m) : 0;
}

/** A sorted multiset of numbers: insert and remove by binary search, median in O(1). */
export class SortedValues {
  readonly #v: number[] = [];
  #at(x: number): number {
    let lo = 0;
    let hi = this.#v.length;
    while (lo < hi) {
      const m = (lo + hi) >> 1;
      if (this.#v[m]! < x) lo = m + 1;
      else hi = m;
    }
    return lo;
  }
  add(x: number): void {
    this.#v.splice(this.#at(x), 0, x);
  }
  remove(x: number): void {
    this.#v.splice(this.#at(x), 1);
  }
  get size(): number {
    return this.#v.length;
  }
  /** The same value as median() of the same numbers: the mean of the two middle ones for an even count. */
  median(): number {
    const n = this.#v.length;
    if (n === 0) return NaN;
    const m = n >> 1;
    return n % 2 ? this.#v[m]! : (this.#v[m - 1]! + this.#v[m]!) / 2;
  }
  /** Median absolute deviation from `center`, by quickselect over the deviations. */
  mad(scratch: Scratch, center: number): number {
    const n = this.#v.length;
    const dev = scratch.work(n);
    for (let i = 0; i < n; i++) dev[i] = Math.abs(this.#v[i]! - center);
    return medianInPlace(dev, n);
  }
}
