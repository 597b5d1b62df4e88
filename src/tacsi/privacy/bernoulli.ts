// Exact Bernoulli samplers from C. L. Canonne, G. Kamath, T. Steinke, "The Discrete Gaussian for
// Differential Privacy", NeurIPS 2020 (arXiv:2004.00010), section 5. All probabilities are rationals
// handled as bigint numerator/denominator pairs, so the samplers are exact: no floating-point
// rounding can bias them or leak through the low bits of a result (Mironov, CCS 2012).
import { uniformBelow, type RandomSource } from './random.ts';

/** Bernoulli(numerator / denominator), exactly: one uniform integer compared against the numerator. */
export function sampleBernoulli(numerator: bigint, denominator: bigint, rng: RandomSource): boolean {
  if (denominator <= 0n || numerator < 0n || numerator > denominator) {
    throw new RangeError(`Bernoulli probability ${numerator}/${denominator} is not in [0, 1]`);
  }
  if (numerator === 0n) return false;
  if (numerator === denominator) return true;
  return uniformBelow(denominator, rng) < numerator;
}

// Algorithm 1, case gamma in [0, 1]: draw A_k ~ Bernoulli(gamma / k) for k = 1, 2, ... until the first
// failure at K. P(K > k) = gamma^k / k!, so P(K odd) = sum_k (-gamma)^k / k! = exp(-gamma).
function bernoulliExpAtMostOne(numerator: bigint, denominator: bigint, rng: RandomSource): boolean {
  let k = 1n;
  while (sampleBernoulli(numerator, denominator * k, rng)) k += 1n;
  return k % 2n === 1n;
}

/**
 * Bernoulli(exp(-gamma)) for the rational gamma = numerator / denominator >= 0 (CKS 2020, Algorithm 1).
 * For gamma > 1 it multiplies floor(gamma) independent Bernoulli(exp(-1)) trials with one
 * Bernoulli(exp(-(gamma - floor(gamma)))), stopping at the first failure.
 */
export function sampleBernoulliExp(numerator: bigint, denominator: bigint, rng: RandomSource): boolean {
  if (denominator <= 0n || numerator < 0n) {
    throw new RangeError(`gamma ${numerator}/${denominator} must be a non-negative rational`);
  }
  const whole = numerator / denominator;
  for (let i = 0n; i < whole; i += 1n) {
    if (!bernoulliExpAtMostOne(1n, 1n, rng)) return false;
  }
  return bernoulliExpAtMostOne(numerator - whole * denominator, denominator, rng);
}
