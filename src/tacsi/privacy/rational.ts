// Exact rationals for the privacy accounting. Parameters are kept as pairs of safe integers (`Ratio`,
// JSON-serialisable for the methodology endpoint); arithmetic runs on bigint so nothing rounds.
import type { Ratio } from './methodology.ts';

/** A rational with bigint parts, denominator > 0. */
export interface BigRatio {
  readonly numerator: bigint;
  readonly denominator: bigint;
}

export function gcd(a: bigint, b: bigint): bigint {
  if (a < 0n) a = -a;
  if (b < 0n) b = -b;
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

/** Reduced bigint rational; throws on a zero or negative denominator. */
export function bigRatio(numerator: bigint, denominator: bigint): BigRatio {
  if (denominator <= 0n) throw new RangeError(`denominator ${denominator} must be positive`);
  const g = gcd(numerator, denominator);
  return g === 0n
    ? { numerator: 0n, denominator: 1n }
    : { numerator: numerator / g, denominator: denominator / g };
}

/** Reduced rational of safe integers. */
export function toRatio(r: BigRatio): Ratio {
  const { numerator, denominator } = bigRatio(r.numerator, r.denominator);
  const max = BigInt(Number.MAX_SAFE_INTEGER);
  if (numerator > max || numerator < -max || denominator > max) {
    throw new RangeError('rational exceeds safe integers');
  }
  return { numerator: Number(numerator), denominator: Number(denominator) };
}

export function fromRatio(r: Ratio): BigRatio {
  if (!Number.isSafeInteger(r.numerator) || !Number.isSafeInteger(r.denominator) || r.denominator <= 0) {
    throw new RangeError(`${r.numerator}/${r.denominator} is not a rational of safe integers`);
  }
  return bigRatio(BigInt(r.numerator), BigInt(r.denominator));
}

export function addRatio(a: Ratio, b: Ratio): Ratio {
  const x = fromRatio(a);
  const y = fromRatio(b);
  return toRatio(
    bigRatio(x.numerator * y.denominator + y.numerator * x.denominator, x.denominator * y.denominator),
  );
}

export function mulRatio(a: Ratio, b: Ratio): Ratio {
  const x = fromRatio(a);
  const y = fromRatio(b);
  return toRatio(bigRatio(x.numerator * y.numerator, x.denominator * y.denominator));
}

export function ratioValue(r: Ratio): number {
  return r.numerator / r.denominator;
}

/** floor(sqrt(n)) for n >= 0, exactly (Newton's method on integers). */
export function isqrt(n: bigint): bigint {
  if (n < 0n) throw new RangeError('isqrt of a negative number');
  if (n < 2n) return n;
  // Start above the root (2^ceil(bits/2)); integer-only so no float sits on the sampling path.
  let x = 1n << BigInt((n.toString(2).length + 1) >> 1);
  for (;;) {
    const y = (x + n / x) >> 1n;
    if (y >= x) return x;
    x = y;
  }
}

/** round(numerator / denominator) with halves rounded up, for a positive denominator. */
export function roundHalfUp(numerator: bigint, denominator: bigint): bigint {
  if (denominator <= 0n) throw new RangeError('denominator must be positive');
  const twice = 2n * numerator + denominator;
  const d = 2n * denominator;
  // Floor division (bigint division truncates toward zero).
  const q = twice / d;
  return twice % d !== 0n && twice < 0n ? q - 1n : q;
}

/** ceil(numerator / denominator) for a positive denominator. */
export function ceilDiv(numerator: bigint, denominator: bigint): bigint {
  if (denominator <= 0n) throw new RangeError('denominator must be positive');
  const q = numerator / denominator;
  return numerator % denominator !== 0n && numerator > 0n ? q + 1n : q;
}
