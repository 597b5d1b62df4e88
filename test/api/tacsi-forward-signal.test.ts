import { describe, expect, it } from 'vitest';
import {
  FORWARD_SIGNAL_MIN_WEEKS,
  fitSimpleExponentialSmoothing,
  forwardSignal,
} from '../../src/tacsi/forward-signal.ts';
import { indexNoiseVariance } from '../../src/tacsi/margins.ts';
import { TACSI_M2, cellNoise, discreteLaplaceVariance, margins } from '../../src/tacsi/privacy/index.ts';

// The noise variance of a tacsi-m1 weekly indexValue (the default the feed passes for m1 cells).
const m1 = indexNoiseVariance({ methodology_version: 'tacsi-m1' });

describe('TACSI forward signal', () => {
  it('stays pending until the archive holds 104 published weeks', () => {
    const short = Array.from({ length: FORWARD_SIGNAL_MIN_WEEKS - 1 }, () => 50);
    expect(forwardSignal(short, '2025-03-23', m1)).toEqual({
      status: 'pending_archive_depth',
      note: expect.any(String),
    });
    expect(forwardSignal([...short, 50], '2025-03-23', m1).status).toBe('available');
  });

  it('on a flat series projects the level, with the interval the publication noise alone imposes', () => {
    const signal = forwardSignal(
      Array.from({ length: 120 }, () => 50),
      '2025-03-23',
      m1,
    );
    // No residual error at all: the variance is the noise floor 2 s2 / (2 - alpha), alpha = 0.05 (first on the grid).
    const s2 = discreteLaplaceVariance(200) * 0.01 ** 2;
    const half = 1.959964 * Math.sqrt((2 * s2) / 1.95);
    expect(signal).toEqual({
      status: 'available',
      note: expect.any(String),
      method: 'simple-exponential-smoothing',
      horizon: 'P1W',
      projectedPeriodEnd: '2025-03-23',
      projectedIndexValue: 50,
      interval: { low: Math.round((50 - half) * 100) / 100, high: Math.round((50 + half) * 100) / 100 },
    });
  });

  it('takes the noise of a tacsi-m2 cell from its stored noise law', () => {
    const noise = cellNoise(TACSI_M2, 'weekly', 100);
    const variance = indexNoiseVariance({ methodology_version: 'tacsi-m2', noise: JSON.stringify(noise) });
    // sum of squared weights 0.205, sigma = 6.5 * 100 grid units of 0.01.
    expect(variance).toBeCloseTo(0.205 * 650 ** 2 * 1e-4, 2);
    // Its normal 95% half-width agrees with the exact margin of the cell to a grid step or two.
    expect(
      Math.abs(1.959964 * Math.sqrt(variance) - margins(TACSI_M2, 100, 'weekly').indexValue),
    ).toBeLessThan(0.05);
  });

  it('follows a level shift', () => {
    const values = [...Array.from({ length: 100 }, () => 40), ...Array.from({ length: 20 }, () => 60)];
    const fit = fitSimpleExponentialSmoothing(values);
    // A single persistent shift is tracked fastest by the largest weight on the grid; its one-step
    // errors are 20, 20 * 0.05, 20 * 0.05^2, ... over 118 degrees of freedom.
    expect(fit.alpha).toBe(0.95);
    expect(fit.level).toBeCloseTo(60, 6);
    expect(fit.residualVariance).toBeCloseTo(400 / (1 - 0.05 ** 2) / 118, 6);
    const signal = forwardSignal(values, '2025-03-23', m1);
    expect(signal).toMatchObject({ status: 'available', projectedIndexValue: 60 });
  });

  it('widens the interval to the residual variance when the series is noisier than the publication noise', () => {
    const values = Array.from({ length: 110 }, (_, i) => (i % 2 === 0 ? 35 : 65));
    const fit = fitSimpleExponentialSmoothing(values);
    const signal = forwardSignal(values, '2025-03-23', m1);
    if (signal.status !== 'available') throw new Error('expected a projection');
    const half = 1.959964 * Math.sqrt(fit.residualVariance);
    expect(half).toBeGreaterThan(20);
    expect(signal.interval.high).toBeCloseTo(Math.min(100, fit.level + half), 1);
    expect(signal.interval.low).toBeCloseTo(Math.max(0, fit.level - half), 1);
  });
});
