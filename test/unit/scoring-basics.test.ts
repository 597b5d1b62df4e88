import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  COMPOSITE_GRADE_CUTOFFS_V2 as COMPOSITE_GRADE_CUTOFFS,
  PILLAR_GRADE_CUTOFFS_V2 as PILLAR_GRADE_CUTOFFS,
  compositeGradeV2 as compositeGrade,
  pillarGradeV2 as pillarGrade,
  signedDelta,
  tierFor,
  ACCOUNT_TIERS,
  PILLAR_WEIGHTS,
} from '../../src/scoring/engine/index.ts';
import { formatDay, parseDay } from '../../src/core/days.ts';
import { PILLARS } from '../../src/core/catalog.ts';

describe('tierFor', () => {
  it.each([
    [0, 'nano'],
    [9_999, 'nano'],
    [10_000, 'micro'],
    [99_999, 'micro'],
    [100_000, 'mid'],
    [499_999, 'mid'],
    [500_000, 'macro'],
    [999_999, 'macro'],
    [1_000_000, 'mega'],
    [250_000_000, 'mega'],
  ])('%d followers is %s', (followers, tier) => {
    expect(tierFor(followers)).toBe(tier);
  });

  it('treats invalid audience sizes as nano', () => {
    expect(tierFor(Number.NaN)).toBe('nano');
    expect(tierFor(-5)).toBe('nano');
  });

  it('never moves down a tier as the audience grows', () => {
    fc.assert(
      fc.property(fc.nat(5_000_000), fc.nat(5_000_000), (a, b) => {
        const [lo, hi] = a <= b ? [a, b] : [b, a];
        expect(ACCOUNT_TIERS.indexOf(tierFor(lo))).toBeLessThanOrEqual(ACCOUNT_TIERS.indexOf(tierFor(hi)));
      }),
    );
  });
});

describe('grades', () => {
  it('pillar grades switch exactly at the documented cut-offs', () => {
    expect(pillarGrade(100)).toBe('green');
    expect(pillarGrade(PILLAR_GRADE_CUTOFFS.green)).toBe('green');
    expect(pillarGrade(PILLAR_GRADE_CUTOFFS.green - 0.1)).toBe('yellow');
    expect(pillarGrade(PILLAR_GRADE_CUTOFFS.yellow)).toBe('yellow');
    expect(pillarGrade(PILLAR_GRADE_CUTOFFS.yellow - 0.1)).toBe('red');
    expect(pillarGrade(0)).toBe('red');
  });

  it('grades the displayed (one-decimal) value, so 59.96 shows as 60.0 and is green', () => {
    expect(pillarGrade(59.96)).toBe('green');
    expect(pillarGrade(59.94)).toBe('yellow');
  });

  it('composite grades switch exactly at the documented cut-offs', () => {
    const c = COMPOSITE_GRADE_CUTOFFS;
    expect(compositeGrade(100)).toBe('elite');
    expect(compositeGrade(c.elite)).toBe('elite');
    expect(compositeGrade(c.elite - 0.1)).toBe('strong');
    expect(compositeGrade(c.strong)).toBe('strong');
    expect(compositeGrade(c.strong - 0.1)).toBe('moderate');
    expect(compositeGrade(c.moderate)).toBe('moderate');
    expect(compositeGrade(c.moderate - 0.1)).toBe('weak');
    expect(compositeGrade(c.weak)).toBe('weak');
    expect(compositeGrade(c.weak - 0.1)).toBe('critical');
    expect(compositeGrade(0)).toBe('critical');
  });

  it('composite grades are ordered with the score', () => {
    const order = ['critical', 'weak', 'moderate', 'strong', 'elite'];
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 100, noNaN: true }),
        fc.double({ min: 0, max: 100, noNaN: true }),
        (a, b) => {
          const [lo, hi] = a <= b ? [a, b] : [b, a];
          expect(order.indexOf(compositeGrade(lo))).toBeLessThanOrEqual(order.indexOf(compositeGrade(hi)));
        },
      ),
    );
  });
});

describe('signedDelta', () => {
  it.each([
    [74.2, 70, '+4.2'],
    [69, 70, '-1.0'],
    [70, 70, '+0.0'],
    [70.04, 70, '+0.0'],
    [69.96, 70, '+0.0'],
    [0, 100, '-100.0'],
    [100, 0, '+100.0'],
    [Number.NaN, 3, '+0.0'],
  ])('signedDelta(%d, %d) = %s', (cur, prev, out) => {
    expect(signedDelta(cur, prev)).toBe(out);
  });

  it('is always a sign, digits, one decimal, within 0.05 of the difference, and antisymmetric', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 100, noNaN: true }),
        fc.double({ min: 0, max: 100, noNaN: true }),
        (a, b) => {
          const s = signedDelta(a, b);
          expect(s).toMatch(/^[+-]\d+\.\d$/);
          expect(s).not.toBe('-0.0');
          expect(Math.abs(Number(s) - (a - b))).toBeLessThanOrEqual(0.05 + 1e-9);
          const back = signedDelta(b, a);
          if (s === '+0.0') expect(back).toBe('+0.0');
          else expect(Number(back)).toBe(-Number(s));
        },
      ),
    );
  });
});

describe('weights', () => {
  it('composite pillar weights sum to 1', () => {
    expect(PILLARS.reduce((s, k) => s + PILLAR_WEIGHTS[k], 0)).toBeCloseTo(1, 12);
  });
});

describe('day arithmetic', () => {
  it('round-trips calendar days and rejects impossible dates', () => {
    fc.assert(
      fc.property(fc.integer({ min: -100_000, max: 100_000 }), (n) => {
        expect(parseDay(formatDay(n))).toBe(n);
      }),
    );
    expect(parseDay('1970-01-01')).toBe(0);
    expect(parseDay('2024-02-29')).not.toBeNull();
    expect(parseDay('2023-02-29')).toBeNull();
    expect(parseDay('2024-13-01')).toBeNull();
    expect(parseDay('2024-1-01')).toBeNull();
    expect(parseDay('2024-01-00')).toBeNull();
    expect(parseDay(undefined)).toBeNull();
    // Exactly YYYY-MM-DD in ASCII digits: no padding, time, other separators or non-ASCII digits.
    for (const text of [
      '2024-01-01\n',
      ' 2024-01-01',
      '2024-01-01T00:00',
      '2024/01/01',
      '+024-01-01',
      '２０２４-01-01',
    ])
      expect(parseDay(text), JSON.stringify(text)).toBeNull();
  });
});
