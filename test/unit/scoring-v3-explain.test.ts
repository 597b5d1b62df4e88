/**
 * Formula v3's explanations (docs/scoring.md, "Explanations"): every score carries the readings that
 * produced it and they reproduce it; a change's drivers sum to the change; recommendations come from
 * the account's own readings and never contradict them, tested on the three cases where v2's advice
 * did (each scenario shows v2's misleading advice first).
 */
import { account, DAYS, FROM, LAST, score } from '../helpers/v3-scenarios.ts';
import { describe, expect, it } from 'vitest';
import {
  baselineV3,
  explainChange,
  scoreDrivers,
  scoreWorkspaceV3,
} from '../../src/scoring/engine/v3/index.ts';
import { scoreWorkspaceV2 } from '../../src/scoring/engine/v2/index.ts';
import { referencePopulation } from '../../src/scoring/engine/v2/reference-population.ts';
import { alter, syntheticSnapshots } from '../helpers/synthetic.ts';
import { edgeCases, workspaces } from '../helpers/engine-golden.ts';
import { addDays } from '../../src/core/days.ts';
import { PILLARS, PLATFORM_NAMES, PLATFORMS } from '../../src/core/catalog.ts';
import type { DailySnapshot } from '../../src/core/metric-snapshot.ts';

const v2Actions = (snapshots: readonly DailySnapshot[], asOf = LAST, lookbackDays = 90) =>
  scoreWorkspaceV2({ snapshots, platforms: [], asOf, lookbackDays }).recommendations.map((r) => r.action);

/** The review's crisis (test/unit/scoring-v3.test.ts): comments x5, mentions x10, likes x0.85, 85% negative. */
function crisis(snaps: DailySnapshot[], start: string, end: string): DailySnapshot[] {
  return alter(snaps, start, end, (s, k) => {
    const talk = 7.5 * (s.sentimentPositive + s.sentimentNeutral + s.sentimentNegative);
    return {
      ...s,
      followers: Math.round(s.followers * Math.pow(0.999, k + 1)),
      comments: 5 * s.comments,
      mentions: 10 * s.mentions,
      likes: Math.round(0.85 * s.likes),
      shares: Math.round(1.5 * s.shares),
      sentimentNegative: Math.round(0.85 * talk),
      sentimentPositive: Math.round(0.05 * talk),
      sentimentNeutral: Math.round(0.1 * talk),
    };
  });
}

const sum = (xs: number[]) => xs.reduce((t, x) => t + x, 0);

describe('formula v3: every score carries its drivers', () => {
  const cases = [...workspaces().slice(0, 24), ...edgeCases().filter((_, i) => i % 3 === 0)];

  it('the readings reproduce the score: 50 plus their points is the composite within rounding', () => {
    let checked = 0;
    for (const snaps of cases)
      for (const lookbackDays of [28, 90]) {
        const r = score(snaps, LAST, lookbackDays);
        if (r.coverage === 0) continue;
        const readings = scoreDrivers(r);
        expect(readings.length).toBeGreaterThan(0);
        // Each reading rounds its points to 0.01; the pillars and the score round to 0.1.
        expect(Math.abs(50 + sum(readings.map((x) => x.points)) - r.score)).toBeLessThanOrEqual(
          0.1 + 0.005 * readings.length,
        );
        checked++;
      }
    expect(checked).toBeGreaterThan(40);
  });

  it('every measured platform has every pillar with its readings beside the median account values', () => {
    const r = score([...account(80_000, 1), ...account(20_000, 2, 'tiktok')]);
    for (const p of ['instagram', 'tiktok'] as const)
      for (const k of PILLARS) {
        const d = r.drivers.find((x) => x.pillar === k && x.platform === p);
        expect(d, `${k} ${p}`).toBeDefined();
        expect(d!.readings.length).toBeGreaterThan(0);
        for (const x of d!.readings) {
          expect(Number.isFinite(x.value) && Number.isFinite(x.median)).toBe(true);
        }
      }
    // Posts a week are the snapshots' own count, against v3's median at the account's size.
    const ig = r.drivers.find((x) => x.pillar === 'presence' && x.platform === 'instagram')!.readings[0]!;
    const window = account(80_000, 1).filter((s) => s.day > addDays(LAST, -90));
    expect(ig.metric).toBe('posts_per_week');
    expect(ig.value).toBeCloseTo((sum(window.map((s) => s.posts)) / 90) * 7, 3);
    expect(ig.median).toBeCloseTo(baselineV3('instagram', window.at(-1)!.followers).postsPerWeek, 2);
    // Sentiment: each platform's share of the pooled conversation; the shares and the prior make 1.
    const shares = r.drivers.filter((x) => x.pillar === 'sentiment').map((x) => x.weight);
    expect(shares).toHaveLength(2);
    expect(sum(shares)).toBeLessThan(1);
  });
});

describe('formula v3: the drivers of a change', () => {
  it('sum to the change within rounding and come largest first, over the reference population', () => {
    const pop = referencePopulation({ seed: 77, n: 40, from: FROM, days: DAYS, baseline: baselineV3 });
    let worst = 0;
    for (const [i, a] of pop.entries()) {
      const other = pop[(i + 7) % pop.length]!;
      const snaps = i % 2 === 0 ? a.snapshots : [...a.snapshots, ...other.snapshots];
      const after = score(snaps);
      for (const back of [1, 7, 45]) {
        const before = score(snaps, addDays(LAST, -back));
        const e = explainChange(before, after);
        expect(e.change).toBeCloseTo(after.score - before.score, 5);
        expect(sum(e.drivers.map((d) => d.points)) + e.rounding).toBeCloseTo(e.change, 5);
        worst = Math.max(worst, Math.abs(e.rounding));
        for (let k = 1; k < e.drivers.length; k++)
          expect(Math.abs(e.drivers[k - 1]!.points)).toBeGreaterThanOrEqual(Math.abs(e.drivers[k]!.points));
      }
    }
    // Two scores each rounded to 0.1 on pillars rounded to 0.1, and each driver's points to 0.01.
    expect(worst).toBeLessThanOrEqual(0.25);
  });

  it('views falling on one of two platforms: the top driver is that platform reach views per follower, with the values before and after', () => {
    for (const seed of [1, 2, 3]) {
      const calm = [
        ...account(80_000, seed, 'instagram', { drift: undefined }),
        ...account(80_000, seed + 50, 'tiktok', { drift: undefined }),
      ];
      // Fewer people see TikTok's posts: views, and the engagement and talk they bring, x0.4.
      const cut = alter(calm, addDays(LAST, -20), LAST, (s) =>
        s.platform === 'tiktok'
          ? {
              ...s,
              impressions: Math.round(0.4 * s.impressions),
              likes: Math.round(0.4 * s.likes),
              comments: Math.round(0.4 * s.comments),
              shares: Math.round(0.4 * s.shares),
              saves: Math.round(0.4 * s.saves),
              mentions: Math.round(0.4 * s.mentions),
              sentimentPositive: Math.round(0.4 * s.sentimentPositive),
              sentimentNeutral: Math.round(0.4 * s.sentimentNeutral),
              sentimentNegative: Math.round(0.4 * s.sentimentNegative),
            }
          : s,
      );
      const before = score(calm);
      const after = score(cut);
      const e = explainChange(before, after);
      expect(e.change, `seed ${seed}`).toBeLessThan(-1);
      const top = e.drivers[0]!;
      expect(top).toMatchObject({ pillar: 'reach', platform: 'tiktok', metric: 'views_per_follower_day' });
      expect(top.after!).toBeLessThan(top.before!);
      expect(top.points).toBeLessThan(0);
      // Nothing on Instagram moved by more than a few hundredths.
      for (const d of e.drivers.filter((x) => x.platform === 'instagram'))
        expect(Math.abs(d.points)).toBeLessThan(0.3);
    }
  });

  it('a platform connected between the scores: its arrival is its weight, the others keep their readings', () => {
    const ig = account(80_000, 4);
    const tt = account(80_000, 5, 'tiktok');
    const before = scoreWorkspaceV3({ snapshots: ig, platforms: [], asOf: LAST });
    const after = scoreWorkspaceV3({ snapshots: [...ig, ...tt], platforms: [], asOf: LAST });
    const e = explainChange(before, after);
    expect(sum(e.drivers.map((d) => d.points)) + e.rounding).toBeCloseTo(e.change, 5);
    const arrived = e.drivers.filter((d) => d.platform === 'tiktok' && d.metric === 'platform_weight');
    expect(arrived.length).toBeGreaterThan(0);
    for (const d of arrived) expect(d.before).toBeNull();
    expect(e.drivers.some((d) => d.platform === 'instagram' && d.metric === 'posts_per_week')).toBe(false);
  });

  it('from or to a workspace with nothing measured: the change is coverage', () => {
    const empty = scoreWorkspaceV3({ snapshots: [], platforms: ['instagram'], asOf: LAST });
    const full = score(account(80_000, 6));
    const e = explainChange(empty, full);
    expect(e.drivers).toEqual([expect.objectContaining({ metric: 'coverage', before: 0, after: 1 })]);
    expect(e.drivers[0]!.points + e.rounding).toBeCloseTo(e.change, 5);
  });
});

describe('formula v3: recommendations never contradict the data (each case misled under v2)', () => {
  it('a brand posting four times a week is not told to post "more regularly": v3 quotes its posts a week against the median', () => {
    // The seeds whose account posts 3.9-4.2 times a week over the window.
    for (const seed of [2, 3, 5, 9]) {
      const median = baselineV3('facebook', 80_000).postsPerWeek;
      const snaps = account(80_000, seed, 'facebook', { postsFactor: 4 / median });
      const window = snaps.filter((s) => s.day > addDays(LAST, -90));
      const perWeek = (sum(window.map((s) => s.posts)) / 90) * 7;
      expect(perWeek).toBeGreaterThan(3.5);
      expect(perWeek).toBeLessThan(4.25);
      // Every week of the window has a post.
      for (let w = 0; w < 12; w++)
        expect(sum(window.slice(7 * w, 7 * w + 7).map((s) => s.posts)), `week ${w}`).toBeGreaterThan(0);
      expect(v2Actions(snaps), `seed ${seed}`).toContain(
        'Post more regularly on facebook: posting sits below the median account of its size',
      );
      const recs = score(snaps).recommendations;
      for (const r of recs) expect(r.action).not.toMatch(/regular/);
      const posts = recs.find((r) => r.metric === 'posts_per_week');
      expect(posts, `seed ${seed}`).toBeDefined();
      expect(posts!.value).toBeCloseTo(perWeek, 3);
      expect(posts!.value).toBeLessThan(posts!.median);
      expect(posts!.action).toContain(`${(Math.floor(perWeek * 10) / 10).toFixed(1)} posts a week against`);
    }
  });

  it('views not falling while the talk turned: v2 says "views are trending down", v3 never names views', () => {
    const start = addDays(LAST, -13);
    const day7 = addDays(start, 6);
    for (const seed of [1, 2, 3]) {
      const calm = account(80_000, seed);
      const hit = crisis(calm, start, LAST);
      // The crisis leaves views as they were.
      expect(hit.map((s) => s.impressions)).toEqual(calm.map((s) => s.impressions));
      expect(v2Actions(hit, day7, 28), `seed ${seed}`).toContain(
        'Reverse the slowdown on instagram: engagement and views are trending down',
      );
      const r = score(hit, day7, 28);
      const views = r.drivers
        .find((d) => d.pillar === 'momentum')!
        .readings.find((x) => x.metric === 'views_trend')!;
      expect(views.value).toBeGreaterThan(-0.05);
      // Views per follower over the last 14 days against the 14 before (the 28-day window's halves).
      const mean = (from: number, to: number) => {
        const days = hit.filter((s) => s.day > addDays(day7, -to) && s.day <= addDays(day7, -from));
        return sum(days.map((s) => s.impressions / s.followers)) / days.length;
      };
      expect(mean(0, 14) / mean(14, 28), `seed ${seed}`).toBeGreaterThan(0.95);
      for (const rec of r.recommendations) {
        expect(rec.metric).not.toBe('views_trend');
        expect(rec.action).not.toMatch(/views/);
      }
    }
  });

  it('engagement per view during a crisis: v2 says "raise engagement per view", v3 names sentiment first with the crisis figures', () => {
    const start = addDays(LAST, -13);
    const day7 = addDays(start, 6);
    for (const seed of [1, 3]) {
      const hit = crisis(account(80_000, seed), start, LAST);
      expect(v2Actions(hit, day7, 28), `seed ${seed}`).toContain(
        'Raise engagement per view on instagram: it sits below the median account of its size',
      );
      for (const window of [28, 90]) {
        const r = score(hit, day7, window);
        expect(r.crisis.active).toBe(true);
        expect(r.recommendations[0]).toMatchObject({
          pillar: 'sentiment',
          metric: 'net_sentiment',
          platform: 'instagram',
        });
        expect(r.recommendations[0]!.action).toContain(
          `${Math.round(100 * r.crisis.negative_share)}% of the last week's comments and mentions`,
        );
        expect(r.recommendations[0]!.value).toBeLessThan(r.recommendations[0]!.median);
        expect(
          r.recommendations.some((x) => x.pillar === 'impact' || /engagement per view/.test(x.action)),
        ).toBe(false);
      }
    }
  });

  it('over the reference population every recommendation names a reading below its median, quotes it, and gains', () => {
    const pop = referencePopulation({ seed: 5150, n: 120, from: FROM, days: DAYS, baseline: baselineV3 });
    let seen = 0;
    for (const a of pop) {
      const r = score(a.snapshots);
      for (const rec of r.recommendations) {
        seen++;
        expect(rec.value).toBeLessThan(rec.median);
        expect(rec.gain).toBeGreaterThan(0);
        expect(r.pillarIntervals[rec.pillar].high < 50 || r.crisis.active).toBe(true);
        const d = r.drivers.find((x) => x.pillar === rec.pillar && x.platform === rec.platform)!;
        expect(d.readings.find((x) => x.metric === rec.metric)?.value).toBe(rec.value);
        // The platform by the name the drivers and the dashboard use (PLATFORM_NAMES), not its key.
        expect(rec.action).toContain(PLATFORM_NAMES[rec.platform]);
        // The printed figures: the value rounded down, the median rounded up, so never "at the median".
        const figures = [...rec.action.matchAll(/[+-]?\d+(?:\.\d+)?/g)].map((m) => Number(m[0]));
        expect(figures.length).toBeGreaterThanOrEqual(1);
        if (
          rec.metric !== 'engagement_trend' &&
          rec.metric !== 'views_trend' &&
          rec.metric !== 'monthly_growth' &&
          rec.metric !== 'post_view_lift'
        )
          expect(figures[0]!).toBeLessThan(figures[1]!);
      }
      expect(r.recommendations.map((x) => x.priority)).toEqual(r.recommendations.map((_, i) => i + 1));
    }
    expect(seen).toBeGreaterThan(20);
  });
});

describe('formula v3: explanations of synthetic workspaces with gaps', () => {
  it('every platform count and gap rate gives drivers that reproduce the score', () => {
    for (let seed = 1; seed <= 10; seed++) {
      const snaps = syntheticSnapshots({
        seed,
        from: FROM,
        days: DAYS,
        platforms: PLATFORMS.slice(0, 1 + (seed % PLATFORMS.length)),
        gapRate: (seed % 4) * 0.1,
      });
      const r = scoreWorkspaceV3({ snapshots: snaps, platforms: [...PLATFORMS], asOf: LAST });
      const readings = scoreDrivers(r);
      expect(Math.abs(50 + sum(readings.map((x) => x.points)) - r.score), `seed ${seed}`).toBeLessThanOrEqual(
        0.1 + 0.005 * readings.length,
      );
    }
  });
});
