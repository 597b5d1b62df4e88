// Exact discrete Gaussian sampler: C. L. Canonne, G. Kamath, T. Steinke, "The Discrete Gaussian for
// Differential Privacy", NeurIPS 2020 (arXiv:2004.00010), Algorithm 3.
//
// N_Z(0, sigma^2) puts mass proportional to exp(-x^2 / (2 sigma^2)) on each integer x. It is sampled by
// rejection from the discrete Laplace with integer scale t = floor(sigma) + 1: a proposal Y is kept
// with probability exp(-(|Y| - sigma^2/t)^2 / (2 sigma^2)), a Bernoulli trial with a rational exponent,
// so the whole path from random bytes to the returned integer is bigint arithmetic (no floating
// point that could leak the true value through its low bits; Mironov, CCS 2012).
import { sampleBernoulliExp } from './bernoulli.ts';
import { sampleDiscreteLaplace } from './discrete-laplace.ts';
import type { RandomSource } from './random.ts';
import { isqrt, type BigRatio } from './rational.ts';

/** One exact draw from the discrete Gaussian with rational variance parameter sigma2 > 0. */
export function sampleDiscreteGaussian(sigma2: BigRatio, rng: RandomSource): bigint {
  const { numerator: a, denominator: b } = sigma2;
  if (a <= 0n || b <= 0n) throw new RangeError(`discrete Gaussian sigma^2 ${a}/${b} must be positive`);
  // floor(sqrt(a/b)) = floor(sqrt(floor(a/b))), so the integer square root gives floor(sigma) exactly.
  const t = isqrt(a / b) + 1n;
  for (;;) {
    const y = sampleDiscreteLaplace(t, 1n, rng);
    const absY = y < 0n ? -y : y;
    // (|Y| - sigma^2/t)^2 / (2 sigma^2) = (|Y| b t - a)^2 / (2 a b t^2), a non-negative rational.
    const diff = absY * b * t - a;
    if (sampleBernoulliExp(diff * diff, 2n * a * b * t * t, rng)) return y;
  }
}
