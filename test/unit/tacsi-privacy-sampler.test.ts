import { describe, expect, it } from 'vitest';
import {
  cryptoRandomSource,
  discreteLaplaceHalfWidth,
  discreteLaplacePmf,
  discreteLaplaceTail,
  discreteLaplaceVariance,
  sampleBernoulli,
  sampleBernoulliExp,
  sampleDiscreteLaplace,
  seededRandomSource,
  uniformBelow,
  type RandomSource,
} from '../../src/tacsi/privacy/index.ts';

// Every statistical test below draws from a seeded generator, so each run sees the same samples and
// the fixed-significance tests either always pass or always fail: they cannot flake.

/** Exact discrete Laplace pmf written independently of the module: tanh(1/2b) e^(-|x|/b). */
function pmf(x: number, b: number): number {
  return Math.tanh(1 / (2 * b)) * Math.exp(-Math.abs(x) / b);
}

function draws(t: bigint, s: bigint, n: number, seed: string): number[] {
  const rng = seededRandomSource(seed);
  const out = new Array<number>(n);
  for (let i = 0; i < n; i++) out[i] = Number(sampleDiscreteLaplace(t, s, rng));
  return out;
}

/** Upper alpha = 0.001 critical value of chi-square(df), Wilson-Hilferty (accurate to < 1% for df >= 10). */
function chiSquareCritical(df: number): number {
  const z = 3.090232; // standard normal 0.999 quantile
  const a = 2 / (9 * df);
  return df * (1 - a + z * Math.sqrt(a)) ** 3;
}

/**
 * Pearson chi-square of samples against the discrete Laplace with scale b, using bins of `width`
 * integers, merging outer bins until each expects at least 20 samples, plus two open tail bins.
 */
function chiSquare(samples: readonly number[], b: number, width: number): { stat: number; df: number } {
  const n = samples.length;
  // Bin k covers [k*width, (k+1)*width - 1] (floor division), symmetric around zero by construction.
  const binOf = (x: number) => Math.floor(x / width);
  let maxBin = 0;
  while (true) {
    let p = 0;
    for (let x = (maxBin + 1) * width; x < (maxBin + 2) * width; x++) p += pmf(x, b);
    if (p * n < 20) break;
    maxBin += 1;
  }
  const minBin = -maxBin - 1; // mirror of [0, width-1] is [-width, -1]
  const expected = new Map<number, number>();
  for (let k = minBin; k <= maxBin; k++) {
    let p = 0;
    for (let x = k * width; x < (k + 1) * width; x++) p += pmf(x, b);
    expected.set(k, p);
  }
  const inner = [...expected.values()].reduce((a, c) => a + c, 0);
  const tail = (1 - inner) / 2; // symmetric law: equal mass above and below
  const observed = new Map<number, number>();
  for (const x of samples) {
    const k = Math.min(maxBin + 1, Math.max(minBin - 1, binOf(x)));
    observed.set(k, (observed.get(k) ?? 0) + 1);
  }
  expected.set(minBin - 1, tail);
  expected.set(maxBin + 1, tail);
  let stat = 0;
  for (const [k, p] of expected) {
    const e = p * n;
    const o = observed.get(k) ?? 0;
    stat += (o - e) ** 2 / e;
  }
  return { stat, df: expected.size - 1 };
}

function scriptedSource(bytes: readonly number[]): RandomSource {
  let i = 0;
  return {
    kind: 'seeded',
    nextBytes(length) {
      if (i + length > bytes.length) throw new Error('script exhausted');
      const out = Uint8Array.from(bytes.slice(i, i + length));
      i += length;
      return out;
    },
  };
}

describe('uniformBelow', () => {
  it('maps every possible random word to each outcome equally often, rejecting the excess', () => {
    for (const n of [2n, 3n, 5n, 7n, 100n, 200n, 255n, 256n, 257n, 1000n]) {
      const bits = (n - 1n).toString(2).length;
      const bytes = Math.ceil(bits / 8);
      const counts = new Map<bigint, number>();
      let rejected = 0;
      for (let word = 0; word < 256 ** bytes; word++) {
        const script = bytes === 1 ? [word] : [word >> 8, word & 0xff];
        // The script holds one word only; asking for another means this word was rejected.
        try {
          const v = uniformBelow(n, scriptedSource(script));
          counts.set(v, (counts.get(v) ?? 0) + 1);
        } catch {
          rejected += 1;
        }
      }
      const perValue = 256 ** bytes / 2 ** bits;
      expect(counts.size).toBe(Number(n));
      for (let v = 0n; v < n; v++) expect(counts.get(v)).toBe(perValue);
      expect(rejected).toBe(256 ** bytes - Number(n) * perValue);
    }
  });

  it('draws again after a rejection and needs no randomness for n = 1', () => {
    // n = 3 uses 2 bits: 0xff -> 3 is rejected, then 0x01 -> 1.
    expect(uniformBelow(3n, scriptedSource([0xff, 0x01]))).toBe(1n);
    expect(uniformBelow(1n, scriptedSource([]))).toBe(0n);
    expect(() => uniformBelow(0n, scriptedSource([1]))).toThrow(RangeError);
  });

  it('is uniform in practice with the cryptographic source', () => {
    const rng = cryptoRandomSource();
    const n = 10;
    const N = 50_000;
    const counts = new Array<number>(n).fill(0);
    for (let i = 0; i < N; i++) counts[Number(uniformBelow(BigInt(n), rng))]! += 1;
    const stat = counts.reduce((a, o) => a + (o - N / n) ** 2 / (N / n), 0);
    // chi-square(9) exceeds 40 with probability ~5e-6, so this random-seeded check essentially never flakes.
    expect(stat).toBeLessThan(40);
  });
});

describe('Bernoulli samplers', () => {
  const N = 100_000;
  it.each([
    [1n, 3n],
    [1n, 1n],
    [5n, 2n],
    [7n, 2n],
    [200n, 200n],
  ])('Bernoulli(exp(-%i/%i)) hits its probability', (num, den) => {
    const rng = seededRandomSource(`bern-exp-${num}/${den}`);
    let hits = 0;
    for (let i = 0; i < N; i++) if (sampleBernoulliExp(num, den, rng)) hits += 1;
    const p = Math.exp(-Number(num) / Number(den));
    expect(Math.abs(hits / N - p)).toBeLessThan(5 * Math.sqrt((p * (1 - p)) / N));
  });

  it('Bernoulli(exp(0)) always succeeds and Bernoulli(a/b) hits a/b', () => {
    const rng = seededRandomSource('bern');
    for (let i = 0; i < 1000; i++) expect(sampleBernoulliExp(0n, 7n, rng)).toBe(true);
    let hits = 0;
    for (let i = 0; i < N; i++) if (sampleBernoulli(2n, 7n, rng)) hits += 1;
    const p = 2 / 7;
    expect(Math.abs(hits / N - p)).toBeLessThan(5 * Math.sqrt((p * (1 - p)) / N));
    expect(() => sampleBernoulli(3n, 2n, rng)).toThrow(RangeError);
    expect(() => sampleBernoulliExp(-1n, 2n, rng)).toThrow(RangeError);
  });
});

describe('sampleDiscreteLaplace', () => {
  it('is exactly reproducible under the seeded generator', () => {
    const a = draws(200n, 1n, 2000, 'repro');
    const b = draws(200n, 1n, 2000, 'repro');
    const c = draws(200n, 1n, 2000, 'other seed');
    expect(a).toEqual(b);
    expect(a).not.toEqual(c);
    expect(seededRandomSource('repro').nextBytes(64)).toEqual(seededRandomSource('repro').nextBytes(64));
  });

  describe('at the tacsi-m1 scale (200 grid units), 200k draws', () => {
    const b = 200;
    const samples = draws(200n, 1n, 200_000, 'laplace-200');
    const n = samples.length;
    const exactVariance = (2 * Math.exp(-1 / b)) / (1 - Math.exp(-1 / b)) ** 2;

    it('has mean ~ 0 and the exact discrete Laplace variance', () => {
      const mean = samples.reduce((a, x) => a + x, 0) / n;
      const variance = samples.reduce((a, x) => a + x * x, 0) / n - mean * mean;
      expect(Math.abs(mean)).toBeLessThan(5 * Math.sqrt(exactVariance / n));
      // sd of the sample variance of a Laplace is ~ sqrt(5) * variance / sqrt(n), about 0.5% here.
      expect(Math.abs(variance / exactVariance - 1)).toBeLessThan(0.025);
      expect(discreteLaplaceVariance(b)).toBeCloseTo(exactVariance, 6);
    });

    it('matches the exact tail probabilities P(|X| >= k)', () => {
      for (const k of [1, 100, 200, 600, 1000, 1400]) {
        const p = (2 * Math.exp(-k / b)) / (1 + Math.exp(-1 / b));
        const freq = samples.filter((x) => Math.abs(x) >= k).length / n;
        expect(Math.abs(freq - p)).toBeLessThan(5 * Math.sqrt((p * (1 - p)) / n));
        expect(discreteLaplaceTail(k, b)).toBeCloseTo(p, 12);
      }
    });

    it('passes a chi-square goodness-of-fit test against the exact pmf (alpha = 0.001)', () => {
      const { stat, df } = chiSquare(samples, b, 25);
      expect(df).toBeGreaterThan(30);
      expect(stat).toBeLessThan(chiSquareCritical(df));
    });

    it('the same test rejects a 5% wrong scale, so it has power', () => {
      const { stat, df } = chiSquare(samples, b * 1.05, 25);
      expect(stat).toBeGreaterThan(chiSquareCritical(df));
    });
  });

  it('fits the exact pmf for fractional scales (s > 1 path), e.g. 5/2 and 7/3', () => {
    for (const [t, s] of [
      [5n, 2n],
      [7n, 3n],
    ] as const) {
      const b = Number(t) / Number(s);
      const samples = draws(t, s, 100_000, `laplace-${t}/${s}`);
      const { stat, df } = chiSquare(samples, b, 1);
      expect(df).toBeGreaterThanOrEqual(10);
      expect(stat).toBeLessThan(chiSquareCritical(df));
      // Symmetry: positive and negative values equally often.
      const pos = samples.filter((x) => x > 0).length;
      const neg = samples.filter((x) => x < 0).length;
      expect(Math.abs(pos - neg)).toBeLessThan(5 * Math.sqrt(pos + neg));
      const wrong = chiSquare(samples, b * 1.1, 1);
      expect(wrong.stat).toBeGreaterThan(chiSquareCritical(wrong.df));
    }
  });

  it('rejects a non-positive scale', () => {
    const rng = seededRandomSource('x');
    expect(() => sampleDiscreteLaplace(0n, 1n, rng)).toThrow(RangeError);
    expect(() => sampleDiscreteLaplace(1n, 0n, rng)).toThrow(RangeError);
  });
});

describe('discrete Laplace closed forms', () => {
  it('pmf sums to 1, tail and variance agree with direct sums, half-width is minimal', () => {
    for (const b of [0.7, 2.5, 200]) {
      let mass = 0;
      let second = 0;
      for (let x = -60 * b - 50; x <= 60 * b + 50; x++) {
        mass += discreteLaplacePmf(x, b);
        second += x * x * discreteLaplacePmf(x, b);
        expect(discreteLaplacePmf(x, b)).toBeCloseTo(pmf(x, b), 14);
      }
      expect(mass).toBeCloseTo(1, 10);
      expect(second / discreteLaplaceVariance(b)).toBeCloseTo(1, 8);
      const h = discreteLaplaceHalfWidth(b, 0.95);
      const inside = (k: number) => {
        let p = 0;
        for (let x = -k; x <= k; x++) p += pmf(x, b);
        return p;
      };
      expect(inside(h)).toBeGreaterThanOrEqual(0.95);
      if (h > 0) expect(inside(h - 1)).toBeLessThan(0.95);
      expect(1 - inside(h)).toBeCloseTo(discreteLaplaceTail(h + 1, b), 10);
    }
  });
});
