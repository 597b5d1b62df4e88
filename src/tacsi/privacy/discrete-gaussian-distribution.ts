// The law of the discrete Gaussian and of the weighted sums TACSI publishes (index values, derived
// weekly cells, the headline). These describe published accuracy (margins of error); they never touch
// the sampled noise, so floating point is fine here.
import type { Ratio } from './methodology.ts';

function checkSigma2(sigma2: number): void {
  if (!(sigma2 > 0) || !Number.isFinite(sigma2)) throw new RangeError(`sigma^2 ${sigma2} must be positive`);
}

/** Support half-width beyond which every term of the normaliser is below double precision. */
function reach(sigma2: number): number {
  return Math.ceil(40 * Math.sqrt(sigma2)) + 40;
}

const normalisers = new Map<number, number>();
const variances = new Map<number, number>();

/** sum over all integers y of exp(-y^2 / (2 sigma^2)). */
function normaliser(sigma2: number): number {
  let z = normalisers.get(sigma2);
  if (z === undefined) {
    z = 1;
    for (let y = 1, r = reach(sigma2); y <= r; y++) z += 2 * Math.exp(-(y * y) / (2 * sigma2));
    if (normalisers.size > 256) normalisers.clear();
    normalisers.set(sigma2, z);
  }
  return z;
}

/** P(X = x) for X ~ N_Z(0, sigma2). */
export function discreteGaussianPmf(x: number, sigma2: number): number {
  checkSigma2(sigma2);
  if (!Number.isInteger(x)) return 0;
  return Math.exp(-(x * x) / (2 * sigma2)) / normaliser(sigma2);
}

/** Var(X) for X ~ N_Z(0, sigma2); at most sigma2 (CKS 2020, Proposition 19), equal to it up to ~e^(-2 pi^2 sigma2). */
export function discreteGaussianVariance(sigma2: number): number {
  checkSigma2(sigma2);
  let variance = variances.get(sigma2);
  if (variance === undefined) {
    let second = 0;
    for (let y = 1, r = reach(sigma2); y <= r; y++) second += 2 * y * y * Math.exp(-(y * y) / (2 * sigma2));
    variance = second / normaliser(sigma2);
    if (variances.size > 256) variances.clear();
    variances.set(sigma2, variance);
  }
  return variance;
}

/** P(|X| >= k) for an integer k >= 0. */
export function discreteGaussianTail(k: number, sigma2: number): number {
  checkSigma2(sigma2);
  if (!Number.isInteger(k) || k < 0) throw new RangeError(`k ${k} must be a non-negative integer`);
  if (k === 0) return 1;
  let inside = 1;
  for (let y = 1; y < k; y++) inside += 2 * Math.exp(-(y * y) / (2 * sigma2));
  return Math.max(0, 1 - inside / normaliser(sigma2));
}

/**
 * Smallest integer k with P(|X| <= k) >= coverage: the half-width, in grid units, of the central
 * interval holding the noise with at least that probability.
 */
export function discreteGaussianHalfWidth(sigma2: number, coverage: number): number {
  checkSigma2(sigma2);
  checkCoverage(coverage);
  const z = normaliser(sigma2);
  let inside = 1 / z;
  let k = 0;
  while (inside < coverage) {
    k += 1;
    inside += (2 * Math.exp(-(k * k) / (2 * sigma2))) / z;
  }
  return k;
}

function checkCoverage(coverage: number): void {
  if (!(coverage > 0 && coverage < 1)) throw new RangeError(`coverage ${coverage} must be in (0, 1)`);
}

/** One independent discrete Gaussian N_Z(0, sigma2) scaled by weight, inside a published linear combination. */
export interface NoiseTerm {
  readonly weight: Ratio;
  readonly sigma2: Ratio;
}

/** erf(x) = 2/sqrt(pi) e^(-x^2) sum 2^n x^(2n+1) / (2n+1)!! (all terms positive, no cancellation). */
function erf(x: number): number {
  if (x < 0) return -erf(-x);
  if (x > 6) return 1;
  let term = x;
  let sum = x;
  for (let n = 1; term > 1e-17 * sum; n++) {
    term *= (2 * x * x) / (2 * n + 1);
    sum += term;
  }
  return Math.min(1, (2 / Math.sqrt(Math.PI)) * Math.exp(-x * x) * sum);
}

function lcm(a: number, b: number): number {
  let x = a;
  let y = b;
  while (y !== 0) [x, y] = [y, x % y];
  return (a / x) * b;
}

/** The lattice spacing 1/L of S = sum w_j X_j and its variance in units of that spacing. */
function latticeOf(terms: readonly NoiseTerm[]): { L: number; variance: number } {
  if (terms.length === 0) throw new RangeError('a weighted sum needs at least one noise term');
  let L = 1;
  let variance = 0;
  for (const { weight, sigma2 } of terms) {
    if (weight.denominator <= 0 || sigma2.denominator <= 0 || sigma2.numerator <= 0) {
      throw new RangeError('noise terms need positive denominators and a positive sigma^2');
    }
    L = lcm(L, weight.denominator);
    if (!Number.isSafeInteger(L)) throw new RangeError('noise weights have too large a common denominator');
    const w = weight.numerator / weight.denominator;
    variance += w * w * discreteGaussianVariance(sigma2.numerator / sigma2.denominator);
  }
  return { L, variance: variance * L * L };
}

/**
 * P(|S| <= h) for S = sum_j w_j X_j, X_j ~ N_Z(0, sigma_j^2) independent, h in grid units.
 *
 * L*S is an integer. By Poisson summation each X_j's characteristic function is a Gaussian's up to
 * terms of order exp(-2 pi^2 sigma_j^2), so P(L S = m) equals the normal density of variance
 * L^2 Var(S) at m with that relative error (negligible for sigma_j >= 1; every TACSI sigma is >= 65).
 * The central sum of that density over |m| <= hL is then erf((hL + 1/2) / sqrt(2 L^2 Var S)) up to the
 * midpoint rule's O(1/(L^2 Var S)), which the unit tests bound against an explicit convolution.
 */
export function weightedSumCoverage(terms: readonly NoiseTerm[], h: number): number {
  if (!(h >= 0)) throw new RangeError(`h ${h} must be >= 0`);
  return coverageOf(latticeOf(terms), h);
}

function coverageOf({ L, variance }: { L: number; variance: number }, h: number): number {
  return erf((Math.floor(h * L) + 0.5) / Math.sqrt(2 * variance));
}

/** Smallest integer h (grid units) with P(|S| <= h) >= coverage for the weighted sum S of `terms`. */
export function weightedSumHalfWidth(terms: readonly NoiseTerm[], coverage: number): number {
  checkCoverage(coverage);
  const lattice = latticeOf(terms);
  // Start below the normal quantile (>= 1.64 sd for coverage >= 0.9) and settle by stepping: the
  // coverage is increasing in h.
  let h = Math.max(0, Math.floor((1.5 * Math.sqrt(lattice.variance)) / lattice.L) - 1);
  while (h > 0 && coverageOf(lattice, h - 1) >= coverage) h -= 1;
  while (coverageOf(lattice, h) < coverage) h += 1;
  return h;
}
