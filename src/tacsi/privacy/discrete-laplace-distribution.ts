// Closed forms of the discrete Laplace law P(X = x) = (1 - q)/(1 + q) q^|x|, q = exp(-1/b). These
// describe published accuracy (methodology figures, tests); they never touch the sampled noise, so
// floating point is fine here.

function ratio(scale: number): number {
  if (!(scale > 0) || !Number.isFinite(scale)) throw new RangeError(`scale ${scale} must be positive`);
  return Math.exp(-1 / scale);
}

/** P(X = x) for the discrete Laplace with scale `scale` (in grid units). */
export function discreteLaplacePmf(x: number, scale: number): number {
  const q = ratio(scale);
  return ((1 - q) / (1 + q)) * q ** Math.abs(x);
}

/** P(|X| >= k) for an integer k >= 0. */
export function discreteLaplaceTail(k: number, scale: number): number {
  if (!Number.isInteger(k) || k < 0) throw new RangeError(`k ${k} must be a non-negative integer`);
  if (k === 0) return 1;
  const q = ratio(scale);
  return (2 * q ** k) / (1 + q);
}

/** Var(X) = 2q / (1 - q)^2 (the mean is 0). */
export function discreteLaplaceVariance(scale: number): number {
  const q = ratio(scale);
  return (2 * q) / (1 - q) ** 2;
}

/**
 * Smallest integer k with P(|X| <= k) >= coverage: the half-width, in grid units, of the central
 * interval holding the noise with at least that probability.
 */
export function discreteLaplaceHalfWidth(scale: number, coverage: number): number {
  if (!(coverage > 0 && coverage < 1)) throw new RangeError(`coverage ${coverage} must be in (0, 1)`);
  const q = ratio(scale);
  // P(|X| > k) = 2 q^(k+1) / (1 + q) <= 1 - coverage; start from the closed-form root and settle
  // the integer by checking neighbours, so a rounding error in the logarithm cannot shift it.
  const target = 1 - coverage;
  const outside = (k: number) => (2 * q ** (k + 1)) / (1 + q);
  let k = Math.max(0, Math.ceil(Math.log((target * (1 + q)) / 2) / Math.log(q)) - 1);
  while (k > 0 && outside(k - 1) <= target) k -= 1;
  while (outside(k) > target) k += 1;
  return k;
}
