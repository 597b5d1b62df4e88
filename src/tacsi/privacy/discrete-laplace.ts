// Exact discrete Laplace sampler: C. L. Canonne, G. Kamath, T. Steinke, "The Discrete Gaussian for
// Differential Privacy", NeurIPS 2020 (arXiv:2004.00010), Algorithm 2.
//
// The discrete Laplace distribution with scale b > 0 on the integers has
//   P(X = x) = (1 - q) / (1 + q) * q^|x|,  q = exp(-1 / b).
// Sampling it with integer arithmetic and exact Bernoulli trials avoids the floating-point attack on
// textbook Laplace noise (I. Mironov, "On Significance of the Least Significant Bits for Differential
// Privacy", CCS 2012), where the set of doubles a noisy value can take depends on the true value.
import { sampleBernoulli, sampleBernoulliExp } from './bernoulli.ts';
import { uniformBelow, type RandomSource } from './random.ts';

/**
 * One exact draw from the discrete Laplace distribution with rational scale
 * b = scaleNumerator / scaleDenominator (in the paper's notation t = scaleNumerator, s = scaleDenominator).
 * Uses only bigint arithmetic and uniform integers from `rng`.
 */
export function sampleDiscreteLaplace(
  scaleNumerator: bigint,
  scaleDenominator: bigint,
  rng: RandomSource,
): bigint {
  if (scaleNumerator <= 0n || scaleDenominator <= 0n) {
    throw new RangeError(`discrete Laplace scale ${scaleNumerator}/${scaleDenominator} must be positive`);
  }
  const t = scaleNumerator;
  const s = scaleDenominator;
  for (;;) {
    // X = U + t*V is geometric with P(X = x) proportional to exp(-x / t): U is its remainder mod t,
    // accepted with probability exp(-U / t), and V counts whole blocks of t, each kept with exp(-1).
    const u = uniformBelow(t, rng);
    if (!sampleBernoulliExp(u, t, rng)) continue;
    let v = 0n;
    while (sampleBernoulliExp(1n, 1n, rng)) v += 1n;
    const x = u + t * v;
    // floor(X / s) is geometric with ratio exp(-s / t), i.e. scale t / s.
    const y = x / s;
    const negative = sampleBernoulli(1n, 2n, rng);
    // Rejecting "-0" stops zero from being counted twice, which gives the two-sided symmetric law.
    if (negative && y === 0n) continue;
    return negative ? -y : y;
  }
}
