/**
 * The v2 daily series slides its windows (WindowMedians keeps each window's medians as days enter
 * and leave) instead of recomputing every window from scratch: it must give exactly what scoring
 * each day on its own (scoreWorkspaceV2, the naive computation) gives, whatever the data.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { baselineV2, dailyScoreSeriesV2, scoreWorkspaceV2 } from '../../src/scoring/engine/v2/index.ts';
import { median } from '../../src/scoring/engine/v2/stats.ts';
import { accountSnapshots, postDated, syntheticSnapshots } from '../helpers/synthetic.ts';
import { addDays } from '../../src/core/days.ts';
import type { DailySnapshot } from '../../src/core/metric-snapshot.ts';

const FROM = '2025-01-01';

/** Every day of the series against scoreWorkspaceV2 for that day over the same window. */
function expectSeriesEqualsNaive(snapshots: DailySnapshot[], from: string, to: string, windowDays: number) {
  const series = dailyScoreSeriesV2({ snapshots, platforms: [], from, to, windowDays, intervals: false });
  expect(series.length).toBeGreaterThan(0);
  for (const point of series) {
    const naive = scoreWorkspaceV2({ snapshots, platforms: [], asOf: point.day, lookbackDays: windowDays });
    expect({
      day: point.day,
      score: point.score,
      pillars: point.pillars,
      coverage: point.coverage,
      stale: point.stale,
      flags: point.authenticityFlags,
    }).toEqual({
      day: naive.asOf,
      score: naive.score,
      pillars: naive.pillars,
      coverage: naive.coverage,
      stale: naive.stale,
      flags: [...new Set(naive.authenticityFlags.map((f) => f.code))],
    });
  }
}

describe('dailyScoreSeriesV2 with sliding windows', () => {
  it('equals the naive per-day computation on noisy multi-platform accounts with gaps', () => {
    for (const seed of [1, 2]) {
      const snapshots = syntheticSnapshots({
        seed,
        from: FROM,
        days: 150,
        gapRate: seed === 2 ? 0.25 : 0,
        platforms: ['instagram', 'tiktok', 'youtube'],
      });
      expectSeriesEqualsNaive(snapshots, addDays(FROM, 90), addDays(FROM, 149), 90);
    }
  });

  it('equals it through bought followers, zero and missing follower counts, view spikes, a pod and post-dated engagement', () => {
    const base = (o: Partial<Parameters<typeof accountSnapshots>[0]> = {}) =>
      accountSnapshots({
        seed: 11,
        platform: 'instagram',
        from: FROM,
        days: 160,
        followers: 40_000,
        baseline: baselineV2,
        ...o,
      });
    const bought = base().map((s) =>
      s.day >= addDays(FROM, 70) ? { ...s, followers: Number(s.followers) * 4 } : s,
    );
    const holes = base({ seed: 12 }).map((s, i) =>
      i % 17 === 0 ? { ...s, followers: 0 } : i % 23 === 0 ? { ...s, followers: Number.NaN } : s,
    );
    const spike = base({ seed: 13 }).map((s) =>
      s.day === addDays(FROM, 100) ? { ...s, impressions: Number(s.impressions) * 60 } : s,
    );
    // A fixed block of likes on post days whatever the views (the engagement-pod pattern).
    const pod = base({ seed: 14 }).map((s) =>
      Number(s.posts) > 0 ? { ...s, likes: Number(s.likes) + 400 } : s,
    );
    // Engagement booked on the post day (lifetime totals): spread, not read from the sliding medians.
    const lifetime = postDated(base({ seed: 15 }));
    for (const snapshots of [bought, holes, spike, pod, lifetime])
      expectSeriesEqualsNaive(snapshots, addDays(FROM, 30), addDays(FROM, 159), 28);
    // The scenarios do exercise the flagged paths.
    const codes = (snapshots: DailySnapshot[]) =>
      new Set(
        dailyScoreSeriesV2({
          snapshots,
          platforms: [],
          from: addDays(FROM, 30),
          to: addDays(FROM, 159),
          windowDays: 28,
          intervals: false,
        }).flatMap((p) => p.authenticityFlags),
      );
    expect(codes(bought).has('follower_spike')).toBe(true);
    expect(codes(spike).has('view_spike')).toBe(true);
    expect(codes(pod).has('engagement_pod')).toBe(true);
  });

  it('keeps the intervals of the naive computation when asked for them', () => {
    const snapshots = syntheticSnapshots({
      seed: 5,
      from: FROM,
      days: 120,
      platforms: ['tiktok', 'youtube'],
    });
    const from = addDays(FROM, 100);
    const to = addDays(FROM, 119);
    for (const p of dailyScoreSeriesV2({ snapshots, platforms: [], from, to, windowDays: 90 })) {
      const naive = scoreWorkspaceV2({ snapshots, platforms: [], asOf: p.day, lookbackDays: 90 });
      expect([p.score, p.scoreInterval, p.pillarIntervals]).toEqual([
        naive.score,
        naive.scoreInterval,
        naive.pillarIntervals,
      ]);
    }
  });
});

describe('median by selection', () => {
  it('equals the sorted definition for any finite values, duplicates and even counts included', () => {
    const sorted = (xs: number[]) => {
      const a = [...xs].sort((x, y) => x - y);
      const m = a.length >> 1;
      return a.length % 2 ? a[m]! : (a[m - 1]! + a[m]!) / 2;
    };
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 }),
            fc.integer({ min: -3, max: 3 }),
          ),
          {
            minLength: 1,
            maxLength: 500,
          },
        ),
        (xs) => {
          const copy = [...xs];
          // Equal as numbers (+ 0 folds -0 into 0: the order of -0 and 0 is a sort's own choice).
          expect(median(xs) + 0).toBe(sorted(xs) + 0);
          expect(xs).toEqual(copy);
        },
      ),
      { numRuns: 500 },
    );
  });
});
