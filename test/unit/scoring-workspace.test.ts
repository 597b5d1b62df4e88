import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { scoreWorkspace, type WorkspaceScore } from '../../src/scoring/engine/index.ts';
import { syntheticSnapshots } from '../helpers/synthetic.ts';
import { buildSeries } from '../../src/scoring/engine/series.ts';
import { measure } from '../../src/scoring/engine/signals.ts';
import { platformPillars } from '../../src/scoring/engine/pillars.ts';
import { formatDay, parseDay } from '../../src/core/days.ts';
import { PILLARS, type Platform, PLATFORMS } from '../../src/core/catalog.ts';
import type { DailySnapshot } from '../../src/core/metric-snapshot.ts';

const AS_OF = '2025-03-31';
const END = parseDay(AS_OF)!;

const ZERO: Omit<DailySnapshot, 'platform' | 'day'> = {
  followers: 0,
  posts: 0,
  impressions: 0,
  likes: 0,
  comments: 0,
  shares: 0,
  saves: 0,
  mentions: 0,
  sentimentPositive: 0,
  sentimentNeutral: 0,
  sentimentNegative: 0,
  profileCompleteness: 0,
};

/** `days` consecutive snapshots ending at AS_OF; `f(i)` fills day i (0 = oldest). */
function daily(platform: Platform, days: number, f: (i: number) => Partial<DailySnapshot>): DailySnapshot[] {
  return Array.from({ length: days }, (_, i) => ({
    ...ZERO,
    platform,
    day: formatDay(END - days + 1 + i),
    ...f(i),
  }));
}

/** A healthy micro instagram account: posts every other day, reaches and engages above baseline, liked. */
const healthy = (i: number): Partial<DailySnapshot> => ({
  followers: 50_000 + 50 * i,
  posts: i % 2,
  impressions: 15_000,
  likes: 1_200,
  comments: 60,
  shares: 40,
  saves: 40,
  sentimentPositive: 30,
  sentimentNeutral: 20,
  sentimentNegative: 2,
  profileCompleteness: 1,
});

function allNumbers(r: WorkspaceScore): number[] {
  return [
    r.score,
    r.coverage,
    ...PILLARS.map((k) => r.pillars[k]),
    ...r.platforms.flatMap((p) => [
      p.overallScore,
      p.part1Score,
      p.part2Score,
      p.followerCount,
      p.weight,
      ...PILLARS.map((k) => p.pillars[k]),
    ]),
  ];
}

function expectBounded(r: WorkspaceScore): void {
  for (const x of allNumbers(r)) expect(Number.isFinite(x)).toBe(true);
  for (const x of [r.score, ...PILLARS.map((k) => r.pillars[k])]) {
    expect(x).toBeGreaterThanOrEqual(0);
    expect(x).toBeLessThanOrEqual(100);
    expect(Math.round(x * 10)).toBeCloseTo(x * 10, 9); // one decimal
  }
  for (const row of r.platforms) {
    for (const x of [
      row.overallScore,
      row.part1Score,
      row.part2Score,
      ...PILLARS.map((k) => row.pillars[k]),
    ]) {
      expect(x).toBeGreaterThanOrEqual(0);
      expect(x).toBeLessThanOrEqual(100);
    }
  }
  expect(r.coverage).toBeGreaterThanOrEqual(0);
  expect(r.coverage).toBeLessThanOrEqual(1);
}

const metric = fc.oneof(
  { weight: 6, arbitrary: fc.nat(2_000_000) },
  { weight: 1, arbitrary: fc.constantFrom(0, -1, Number.NaN, Infinity, 1e15, 0.5) },
);

const snapshotArb: fc.Arbitrary<DailySnapshot> = fc.record({
  platform: fc.constantFrom(...PLATFORMS),
  day: fc.integer({ min: END - 400, max: END + 5 }).map(formatDay),
  followers: metric,
  posts: fc.oneof(fc.nat(5), metric),
  impressions: metric,
  likes: metric,
  comments: metric,
  shares: metric,
  saves: metric,
  mentions: metric,
  sentimentPositive: metric,
  sentimentNeutral: metric,
  sentimentNegative: metric,
  profileCompleteness: fc.oneof(
    fc.double({ min: 0, max: 1, noNaN: true }),
    fc.constantFrom(-1, 2, Number.NaN),
  ),
});

describe('scoreWorkspace: stability', () => {
  it('stays within 0-100, finite and one-decimal for arbitrary (even invalid) snapshots', () => {
    fc.assert(
      fc.property(
        fc.array(snapshotArb, { maxLength: 60 }),
        fc.subarray([...PLATFORMS]),
        fc.oneof(fc.integer({ min: -10, max: 800 }), fc.constant(Number.NaN)),
        (snapshots, platforms, lookbackDays) => {
          const r = scoreWorkspace({ snapshots, platforms, asOf: AS_OF, lookbackDays });
          expectBounded(r);
          expect(r.lookbackDays).toBeGreaterThanOrEqual(1);
          expect(r.lookbackDays).toBeLessThanOrEqual(365);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('scores an empty workspace as unmeasured without NaN', () => {
    const r = scoreWorkspace({ snapshots: [], platforms: [], asOf: AS_OF, lookbackDays: 90 });
    expectBounded(r);
    expect(r.coverage).toBe(0);
    expect(r.platforms).toEqual([]);
    // Nothing to credit; sentiment and momentum sit at neutral.
    expect(r.pillars).toEqual({ presence: 0, reach: 0, impact: 0, sentiment: 50, momentum: 50 });
    const requested = scoreWorkspace({ snapshots: [], platforms: ['tiktok'], asOf: AS_OF });
    expect(requested.platformsMissing).toEqual(['tiktok']);
    expect(requested.recommendations[0]?.action).toMatch(/Connect or re-sync tiktok/);
  });

  it('handles all-zero data, zero followers with views, a one-day window and gaps', () => {
    const cases: DailySnapshot[][] = [
      daily('instagram', 90, () => ({})),
      daily('tiktok', 90, () => ({ impressions: 5_000, likes: 300, posts: 1 })),
      daily('youtube', 90, (i) =>
        i % 9 === 0 ? { followers: 1_000, posts: 1, impressions: 200 } : {},
      ).filter((_, i) => i % 9 === 0),
      daily('facebook', 1, () => ({ followers: 10, posts: 1 })),
    ];
    for (const snapshots of cases) {
      for (const lookbackDays of [1, 7, 90, 365]) {
        const r = scoreWorkspace({ snapshots, platforms: [], asOf: AS_OF, lookbackDays });
        expectBounded(r);
        // The sparse youtube case has no snapshot on the last day, so a 1-day window sees nothing.
        const inWindow = snapshots.some((s) => parseDay(s.day)! > END - lookbackDays);
        expect(r.coverage).toBe(inWindow ? 1 : 0);
      }
    }
  });

  it('rejects an invalid asOf instead of guessing', () => {
    expect(() => scoreWorkspace({ snapshots: [], platforms: [], asOf: '2025-02-30' })).toThrow(RangeError);
  });

  it('ignores snapshots outside the window, of unrequested platforms, or with invalid days', () => {
    const base = daily('instagram', 90, healthy);
    const noise: DailySnapshot[] = [
      ...daily('instagram', 200, () => ({ followers: 1, posts: 9, likes: 1e9 })).slice(0, 100), // before the window
      { ...ZERO, platform: 'instagram', day: formatDay(END + 1), followers: 9e9 }, // after asOf
      { ...ZERO, platform: 'instagram', day: 'not-a-day', followers: 9e9 },
      { ...ZERO, platform: 'myspace' as Platform, day: AS_OF, followers: 9e9 },
      ...daily('tiktok', 90, () => ({ followers: 9e9 })),
    ];
    const a = scoreWorkspace({ snapshots: base, platforms: ['instagram'], asOf: AS_OF });
    const b = scoreWorkspace({ snapshots: [...noise, ...base], platforms: ['instagram'], asOf: AS_OF });
    expect(b).toEqual(a);
  });
});

describe('scoreWorkspace: determinism', () => {
  it('gives identical output for identical input and for any order of the snapshots', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.integer({ min: 1, max: 365 }),
        (seed, lookbackDays) => {
          const snapshots = syntheticSnapshots({ seed, from: formatDay(END - 120), days: 121, gapRate: 0.1 });
          const input = { snapshots, platforms: [], asOf: AS_OF, lookbackDays };
          const a = scoreWorkspace(input);
          expect(scoreWorkspace(input)).toEqual(a);
          expect(scoreWorkspace({ ...input, snapshots: [...snapshots].reverse() })).toEqual(a);
        },
      ),
      { numRuns: 25 },
    );
  });
});

describe('impact', () => {
  const kinds = ['likes', 'comments', 'shares', 'saves', 'mentions'] as const;

  it('never drops when engagement rises, all else equal (platform and workspace)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.constantFrom(...kinds),
        fc.integer({ min: 0, max: 89 }),
        fc.integer({ min: 1, max: 100_000 }),
        fc.constantFrom(...PLATFORMS),
        (seed, kind, dayOffset, extra, platform) => {
          const snapshots = syntheticSnapshots({ seed, from: formatDay(END - 89), days: 90, gapRate: 0.05 });
          const target = snapshots.findIndex(
            (s) => s.platform === platform && s.day === formatDay(END - dayOffset),
          );
          fc.pre(target >= 0);
          const more = snapshots.map((s, i) => (i === target ? { ...s, [kind]: s[kind] + extra } : s));
          const before = scoreWorkspace({ snapshots, platforms: [], asOf: AS_OF });
          const after = scoreWorkspace({ snapshots: more, platforms: [], asOf: AS_OF });
          expect(after.pillars.impact).toBeGreaterThanOrEqual(before.pillars.impact);
          const row = (r: WorkspaceScore) => r.platforms.find((p) => p.platform === platform)!;
          expect(row(after).pillars.impact).toBeGreaterThanOrEqual(row(before).pillars.impact);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('never drops when engagement rises, before any rounding', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.constantFrom(...kinds),
        fc.integer({ min: 0, max: 89 }),
        fc.integer({ min: 1, max: 1_000 }),
        fc.integer({ min: 1, max: 90 }),
        (seed, kind, dayOffset, extra, lookback) => {
          const snapshots = syntheticSnapshots({
            seed,
            from: formatDay(END - 89),
            days: 90,
            platforms: ['tiktok'],
          });
          const more = snapshots.map((s) =>
            s.day === formatDay(END - dayOffset) ? { ...s, [kind]: s[kind] + extra } : s,
          );
          const impact = (snaps: DailySnapshot[]) => {
            const series = buildSeries(snaps, ['tiktok'], END - lookback + 1, END).get('tiktok')!;
            return platformPillars(measure(series, END - lookback + 1, END)!).impact;
          };
          expect(impact(more)).toBeGreaterThanOrEqual(impact(snapshots));
        },
      ),
      { numRuns: 200 },
    );
  });

  it('values saves and shares above comments above likes', () => {
    const impactWith = (kind: (typeof kinds)[number]) =>
      scoreWorkspace({
        snapshots: daily('instagram', 90, (i) => ({
          ...healthy(i),
          likes: 100,
          comments: 5,
          shares: 2,
          saves: 2,
          [kind]: 300,
        })),
        platforms: [],
        asOf: AS_OF,
      }).platforms[0]!.pillars.impact;
    expect(impactWith('saves')).toBe(impactWith('shares'));
    expect(impactWith('shares')).toBeGreaterThan(impactWith('comments'));
    expect(impactWith('comments')).toBeGreaterThan(impactWith('likes'));
  });

  it('rises with the engagement rate and is 0 without engagement', () => {
    const at = (likesPerView: number) =>
      scoreWorkspace({
        snapshots: daily('youtube', 90, () => ({
          followers: 5_000,
          impressions: 1_000,
          likes: 1_000 * likesPerView,
        })),
        platforms: [],
        asOf: AS_OF,
      }).pillars.impact;
    expect(at(0.1)).toBeGreaterThan(at(0.05));
    expect(at(0)).toBe(0);
  });
});

describe('sentiment', () => {
  const sentimentOf = (pos: number, neu: number, neg: number) =>
    scoreWorkspace({
      snapshots: daily('twitter', 30, (i) =>
        i === 0
          ? { followers: 1_000, sentimentPositive: pos, sentimentNeutral: neu, sentimentNegative: neg }
          : {},
      ),
      platforms: [],
      asOf: AS_OF,
      lookbackDays: 30,
    }).pillars.sentiment;

  it('is neutral without classified items and stays near neutral for a handful of them', () => {
    expect(sentimentOf(0, 0, 0)).toBe(50);
    expect(sentimentOf(0, 0, 1)).toBeGreaterThan(45);
    expect(sentimentOf(1, 0, 0)).toBeLessThan(55);
    expect(sentimentOf(0, 0, 2_000)).toBeLessThan(5);
    expect(sentimentOf(2_000, 0, 0)).toBeGreaterThan(95);
  });

  it('never falls with more positive items nor rises with more negative items', () => {
    fc.assert(
      fc.property(fc.nat(500), fc.nat(500), fc.nat(500), fc.integer({ min: 1, max: 500 }), (p, u, n, k) => {
        const s = sentimentOf(p, u, n);
        expect(sentimentOf(p + k, u, n)).toBeGreaterThanOrEqual(s);
        expect(sentimentOf(p, u, n + k)).toBeLessThanOrEqual(s);
      }),
      { numRuns: 100 },
    );
  });
});

describe('momentum', () => {
  const momentumOf = (f: (i: number) => number) =>
    scoreWorkspace({
      snapshots: daily('tiktok', 90, (i) => ({
        followers: 20_000,
        posts: 1,
        impressions: f(i),
        likes: f(i) / 20,
      })),
      platforms: [],
      asOf: AS_OF,
    }).pillars.momentum;

  it('is 50 when flat, above when rising, below when falling', () => {
    expect(momentumOf(() => 10_000)).toBe(50);
    expect(momentumOf((i) => 5_000 + 200 * i)).toBeGreaterThan(60);
    expect(momentumOf((i) => 23_000 - 200 * i)).toBeLessThan(40);
  });

  it('is 50 when the window has no data in one of its halves', () => {
    const r = scoreWorkspace({
      snapshots: daily('tiktok', 30, () => ({ followers: 100, impressions: 100, likes: 5 })),
      platforms: [],
      asOf: AS_OF,
      lookbackDays: 90,
    });
    expect(r.pillars.momentum).toBe(50);
  });
});

describe('presence and coverage', () => {
  it('a requested platform without data lowers presence, not the other pillars', () => {
    const snapshots = daily('instagram', 90, healthy);
    const one = scoreWorkspace({ snapshots, platforms: ['instagram'], asOf: AS_OF });
    const two = scoreWorkspace({ snapshots, platforms: ['instagram', 'youtube'], asOf: AS_OF });
    expect(one.coverage).toBe(1);
    expect(two.coverage).toBe(0.5);
    expect(two.pillars.presence).toBeLessThan(one.pillars.presence);
    for (const k of ['reach', 'impact', 'sentiment', 'momentum'] as const)
      expect(two.pillars[k]).toBe(one.pillars[k]);
    expect(two.platformsMissing).toEqual(['youtube']);
  });

  it('posting every week scores higher presence than posting in a few weeks', () => {
    const presence = (posting: (i: number) => number) =>
      scoreWorkspace({
        snapshots: daily('instagram', 91, (i) => ({ ...healthy(i), posts: posting(i) })),
        platforms: [],
        asOf: AS_OF,
      }).pillars.presence;
    expect(presence((i) => (i % 2 === 0 ? 1 : 0))).toBeGreaterThan(
      presence((i) => (i < 28 && i % 2 === 0 ? 1 : 0)),
    );
  });
});

describe('platform rows', () => {
  it('have tier, audience, grade, and parts that recombine to the overall score', () => {
    const snapshots = [
      ...daily('instagram', 90, healthy),
      ...daily('youtube', 90, (i) => ({ ...healthy(i), followers: 2_000_000 })),
    ];
    const r = scoreWorkspace({ snapshots, platforms: [], asOf: AS_OF });
    expect(r.platforms.map((p) => [p.platform, p.tier, p.followerCount])).toEqual([
      ['instagram', 'micro', 50_000 + 50 * 89],
      ['youtube', 'mega', 2_000_000],
    ]);
    for (const row of r.platforms) {
      expect(row.overallScore).toBeCloseTo(0.4 * row.part1Score + 0.6 * row.part2Score, 0);
      expect(['elite', 'strong', 'moderate', 'weak', 'critical']).toContain(row.grade);
    }
    // The larger audience carries more weight, but the floor keeps the small one in.
    const [ig, yt] = r.platforms;
    expect(yt!.weight).toBeGreaterThan(ig!.weight);
    expect(ig!.weight).toBeGreaterThanOrEqual(0.1);
    expect(ig!.weight + yt!.weight).toBeCloseTo(1, 12);
  });
});
