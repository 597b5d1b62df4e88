import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { dailyScoreSeries, scoreWorkspace } from '../../src/scoring/engine/index.ts';
import { syntheticSnapshots } from '../helpers/synthetic.ts';
import { formatDay, parseDay } from '../../src/core/days.ts';
import type { Platform } from '../../src/core/catalog.ts';

const FROM = '2024-01-01';
const START = parseDay(FROM)!;

describe('dailyScoreSeries', () => {
  it('agrees exactly with scoreWorkspace as of each sampled day over the same window', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.integer({ min: 1, max: 60 }),
        fc.subarray<Platform>(['instagram', 'tiktok', 'youtube', 'twitter', 'facebook']),
        fc.array(fc.integer({ min: 0, max: 149 }), { minLength: 1, maxLength: 6 }),
        (seed, windowDays, platforms, sample) => {
          const snapshots = syntheticSnapshots({ seed, from: FROM, days: 120, gapRate: 0.15 });
          // The series starts before the data and runs past its end.
          const from = formatDay(START - 10);
          const series = dailyScoreSeries({
            snapshots,
            platforms,
            from,
            to: formatDay(START + 139),
            windowDays,
          });
          expect(series).toHaveLength(150);
          for (const k of sample) {
            const point = series[k]!;
            expect(point.day).toBe(formatDay(START - 10 + k));
            const full = scoreWorkspace({ snapshots, platforms, asOf: point.day, lookbackDays: windowDays });
            expect(point.score).toBe(full.score);
            expect(point.pillars).toEqual(full.pillars);
            expect(point.coverage).toBe(full.coverage);
          }
        },
      ),
      { numRuns: 30 },
    );
  });

  it('uses a 28-day window by default', () => {
    const snapshots = syntheticSnapshots({ seed: 3, from: FROM, days: 90 });
    const series = dailyScoreSeries({ snapshots, platforms: [], from: '2024-03-01', to: '2024-03-10' });
    for (const p of series) {
      expect(p.score).toBe(scoreWorkspace({ snapshots, platforms: [], asOf: p.day, lookbackDays: 28 }).score);
    }
    // And a different window really gives different scores on this data.
    const long = dailyScoreSeries({
      snapshots,
      platforms: [],
      from: '2024-03-01',
      to: '2024-03-10',
      windowDays: 60,
    });
    expect(long.map((p) => p.score)).not.toEqual(series.map((p) => p.score));
  });

  it('returns consecutive days, nothing for an inverted range, and unmeasured points before any data', () => {
    const snapshots = syntheticSnapshots({ seed: 5, from: FROM, days: 30 });
    expect(dailyScoreSeries({ snapshots, platforms: [], from: '2024-02-01', to: '2024-01-31' })).toEqual([]);
    const series = dailyScoreSeries({
      snapshots,
      platforms: [],
      from: '2023-12-30',
      to: '2024-01-02',
      windowDays: 1,
    });
    expect(series.map((p) => p.day)).toEqual(['2023-12-30', '2023-12-31', '2024-01-01', '2024-01-02']);
    expect(series[0]!.coverage).toBe(0);
    expect(series[0]!.pillars).toEqual({ presence: 0, reach: 0, impact: 0, sentiment: 50, momentum: 50 });
    expect(series[2]!.coverage).toBe(1);
    expect(() => dailyScoreSeries({ snapshots, platforms: [], from: 'yesterday', to: '2024-01-02' })).toThrow(
      RangeError,
    );
  });

  // Speed is measured by `npm run bench`, not here; this checks the two-year series is whole and bounded.
  it('computes two years of daily scores for a five-platform workspace', () => {
    const snapshots = syntheticSnapshots({ seed: 11, from: '2023-01-01', days: 760 });
    const series = dailyScoreSeries({ snapshots, platforms: [], from: '2023-01-29', to: '2025-01-28' });
    expect(series).toHaveLength(731);
    for (const p of series) {
      expect(p.score).toBeGreaterThanOrEqual(0);
      expect(p.score).toBeLessThanOrEqual(100);
    }
  });
});
