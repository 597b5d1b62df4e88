/**
 * Formula v2 targets, one scenario or property test per target. The
 * scenarios follow the targets in docs/scoring.md; accounts are built at multiples of the reference
 * median account (accountSnapshots) so "typical" is defined by the engine's published baselines.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  baselineV2,
  changeExceedsInterval,
  COMPOSITE_GRADE_CUTOFFS_V2,
  dailyScoreSeriesV2,
  gradeWithHysteresis,
  scoreWorkspaceV2,
  type WorkspaceScoreV2,
} from '../../src/scoring/engine/v2/index.ts';
import { accountSnapshots, postDated, syntheticSnapshots } from '../helpers/synthetic.ts';
import { referencePopulation } from '../../src/scoring/engine/v2/reference-population.ts';
import { addDays } from '../../src/core/days.ts';
import { PILLARS, type Platform, PLATFORMS } from '../../src/core/catalog.ts';
import type { DailySnapshot } from '../../src/core/metric-snapshot.ts';

const FROM = '2025-01-01';
const DAYS = 400;
const LAST = addDays(FROM, DAYS - 1);

function account(
  followers: number,
  o: Partial<Parameters<typeof accountSnapshots>[0]> = {},
  platform: Platform = 'instagram',
): DailySnapshot[] {
  return accountSnapshots({
    seed: 7,
    platform,
    from: FROM,
    days: DAYS,
    followers,
    baseline: baselineV2,
    ...o,
  });
}

function score(snapshots: readonly DailySnapshot[], asOf = LAST, lookbackDays = 90): WorkspaceScoreV2 {
  return scoreWorkspaceV2({ snapshots, platforms: [], asOf, lookbackDays });
}

/** Map the snapshots of days >= fromDay (YYYY-MM-DD compare) through f. */
function alter(
  snaps: readonly DailySnapshot[],
  fromDay: string,
  toDay: string,
  f: (s: DailySnapshot, k: number) => DailySnapshot,
): DailySnapshot[] {
  return snaps.map((s) => {
    if (s.day < fromDay || s.day > toDay) return s;
    const k = Math.round((Date.parse(s.day) - Date.parse(fromDay)) / 86_400_000);
    return f({ ...s }, k);
  });
}

function spearman(x: readonly number[], y: readonly number[]): number {
  const rank = (v: readonly number[]) => {
    const idx = v.map((_, i) => i).sort((a, b) => v[a]! - v[b]!);
    const r = new Array<number>(v.length);
    for (let i = 0; i < idx.length;) {
      let j = i;
      while (j + 1 < idx.length && v[idx[j + 1]!] === v[idx[i]!]) j++;
      for (let k = i; k <= j; k++) r[idx[k]!] = (i + j) / 2;
      i = j + 1;
    }
    return r;
  };
  const rx = rank(x);
  const ry = rank(y);
  const mean = (v: number[]) => v.reduce((s, a) => s + a, 0) / v.length;
  const mx = mean(rx);
  const my = mean(ry);
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < x.length; i++) {
    sxy += (rx[i]! - mx) * (ry[i]! - my);
    sxx += (rx[i]! - mx) ** 2;
    syy += (ry[i]! - my) ** 2;
  }
  return sxx > 0 && syy > 0 ? sxy / Math.sqrt(sxx * syy) : 0;
}

describe('formula v2: calibration (what 50 means)', () => {
  it('a population of median accounts has its median at 50 +/- 3 on every pillar and the composite, at every size and platform', () => {
    const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[xs.length >> 1]!;
    for (const platform of PLATFORMS)
      for (const followers of [2_000, 40_000, 300_000, 5_000_000]) {
        const rs = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11].map((seed) =>
          score(account(followers, { seed }, platform)),
        );
        for (const k of PILLARS)
          expect(
            Math.abs(median(rs.map((r) => r.pillars[k])) - 50),
            `${platform} ${followers} ${k}`,
          ).toBeLessThanOrEqual(3);
        expect(Math.abs(median(rs.map((r) => r.score)) - 50)).toBeLessThanOrEqual(3);
        expect(
          median(rs.map((r) => ['critical', 'weak', 'moderate', 'strong', 'elite'].indexOf(r.grade))),
        ).toBe(2);
      }
  });

  // A noise-free account of constant size at the given rates (constant size: the fixture itself
  // never straddles a tier floor within the window).
  const sweep = (
    rates: (
      p: Platform,
      f: number,
    ) => NonNullable<Parameters<typeof accountSnapshots>[0]['baseline']> extends (...a: never[]) => infer R
      ? R
      : never,
  ) => {
    const logs: number[] = [];
    const scores: number[] = [];
    for (let lf = 3; lf <= 7.0001; lf += 0.02) {
      const followers = Math.round(10 ** lf);
      const snaps = accountSnapshots({
        seed: 3,
        platform: 'instagram',
        from: FROM,
        days: 120,
        followers,
        noise: 0,
        exact: true,
        growthFactor: 0,
        baseline: rates,
      });
      logs.push(lf);
      scores.push(scoreWorkspaceV2({ snapshots: snaps, platforms: [], asOf: addDays(FROM, 119) }).score);
    }
    return { logs, scores };
  };

  it('the reference population: median composite and every pillar median at 50 +/- 3, grades at the published shares', () => {
    // A fresh sample (seed 7): the cutoffs were set from the quantiles of another (seed 2026, 4,000
    // accounts; scripts/population-chart.ts), so this checks them out of sample.
    const n = 600;
    const rs = referencePopulation({ seed: 7, n, from: FROM, days: 120 }).map((a) =>
      scoreWorkspaceV2({ snapshots: a.snapshots, platforms: [], asOf: addDays(FROM, 119) }),
    );
    const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[xs.length >> 1]!;
    expect(Math.abs(median(rs.map((r) => r.score)) - 50)).toBeLessThanOrEqual(3);
    for (const k of PILLARS)
      expect(Math.abs(median(rs.map((r) => r.pillars[k])) - 50), k).toBeLessThanOrEqual(3);
    // Tolerance: about two binomial standard errors at n = 600 (1.8, 3.3, 4.1 points), rounded up.
    const share = (g: string) => rs.filter((r) => r.grade === g).length / n;
    expect(Math.abs(share('elite') - 0.05)).toBeLessThanOrEqual(0.02);
    expect(Math.abs(share('strong') - 0.2)).toBeLessThanOrEqual(0.035);
    expect(Math.abs(share('moderate') - 0.5)).toBeLessThanOrEqual(0.045);
    expect(Math.abs(share('weak') - 0.2)).toBeLessThanOrEqual(0.035);
    expect(Math.abs(share('critical') - 0.05)).toBeLessThanOrEqual(0.02);
  });

  it('baselines are continuous in followers: at the same rates no composite step above 0.5 at any follower count', () => {
    const fixed = baselineV2('instagram', 50_000);
    const { logs, scores } = sweep(() => fixed);
    for (let i = 1; i < scores.length; i++)
      expect(Math.abs(scores[i]! - scores[i - 1]!), `at 10^${logs[i]!.toFixed(2)}`).toBeLessThanOrEqual(0.5);
  });

  it('at the median rates of each size the composite does not depend on size: |Spearman(composite, log followers)| <= 0.1', () => {
    // 600 median accounts (each with its own daily noise), log-uniform from 1k to 10M followers.
    // 600, not 120: with no dependence the sample Spearman has sd 1/sqrt(n - 1), 0.09 at 120
    // (a quarter of samples beyond 0.1 by chance), 0.04 at 600.
    const logs: number[] = [];
    const scores: number[] = [];
    const n = 600;
    for (let i = 0; i < n; i++) {
      const lf = 3 + (4 * (i + 0.5)) / n;
      logs.push(lf);
      const snaps = accountSnapshots({
        seed: 100 + i,
        platform: 'instagram',
        from: FROM,
        days: 120,
        followers: Math.round(10 ** lf),
      });
      scores.push(scoreWorkspaceV2({ snapshots: snaps, platforms: [], asOf: addDays(FROM, 119) }).score);
    }
    expect(Math.abs(spearman(logs, scores))).toBeLessThanOrEqual(0.1);
  });
});

describe('formula v2: valence', () => {
  const crisis = (snaps: DailySnapshot[], start: string) =>
    alter(snaps, start, LAST, (s, k) => {
      const talk = s.sentimentPositive + s.sentimentNeutral + s.sentimentNegative + 2000;
      const classified = 10 * talk;
      return {
        ...s,
        followers: Math.round(s.followers * (1 - 0.03 * Math.min(1, (k + 1) / 7))),
        comments: 5 * s.comments,
        shares: 2 * s.shares,
        mentions: s.mentions + 2000,
        sentimentNegative: Math.round(0.75 * classified),
        sentimentPositive: Math.round(0.1 * classified),
        sentimentNeutral: Math.round(0.15 * classified),
      };
    });

  it('the crisis drops the composite >= 15 points and >= 1 grade within 7 days, in the 28- and 90-day windows', () => {
    const honest = account(250_000);
    const start = addDays(LAST, -20);
    const hit = crisis(honest, start);
    for (const window of [28, 90]) {
      const before = score(hit, addDays(start, -1), window);
      // With hysteresis against the grade before the crisis, as the service publishes it.
      const after = scoreWorkspaceV2({
        snapshots: hit,
        platforms: [],
        asOf: addDays(start, 6),
        lookbackDays: window,
        previousGrade: before.grade,
      });
      expect(before.score - after.score, `window ${window}`).toBeGreaterThanOrEqual(15);
      const order = ['critical', 'weak', 'moderate', 'strong', 'elite'];
      expect(order.indexOf(after.grade)).toBeLessThan(order.indexOf(before.grade));
    }
  });

  it('negative comments and mentions never raise impact or momentum', () => {
    const base = account(40_000);
    const from = addDays(LAST, -30);
    for (const extra of [1, 10, 100, 1000]) {
      const more = alter(base, from, LAST, (s) => ({
        ...s,
        comments: s.comments + extra,
        mentions: s.mentions + extra,
        sentimentNegative: s.sentimentNegative + 2 * extra,
      }));
      for (const window of [28, 90]) {
        const a = score(base, LAST, window);
        const b = score(more, LAST, window);
        expect(b.pillars.impact).toBeLessThanOrEqual(a.pillars.impact);
        expect(b.pillars.momentum).toBeLessThanOrEqual(a.pillars.momentum);
      }
    }
  });
});

describe('formula v2: authenticity and robustness', () => {
  it('follower purchases (+10% to +1000%) gain at most 0.5 at any time in the window and are flagged', () => {
    const honest = account(60_000);
    const buyDay = addDays(LAST, -60);
    for (const pct of [0.1, 0.5, 1, 10]) {
      const bought = alter(honest, buyDay, LAST, (s) => ({
        ...s,
        followers: Math.round(s.followers * (1 + pct)),
      }));
      for (let d = 0; d <= 60; d += 6) {
        const asOf = addDays(buyDay, d);
        const a = score(honest, asOf);
        const b = score(bought, asOf);
        expect(b.score - a.score, `+${pct * 100}% day ${d}`).toBeLessThanOrEqual(0.5);
        expect(b.authenticityFlags.some((f) => f.code === 'follower_spike' && f.day === buyDay)).toBe(true);
      }
    }
  });

  it('an engagement pod (a fixed block of likes and comments on every post) scores no higher than its honest twin and is flagged', () => {
    for (const [followers, block] of [
      [8_000, 60],
      [50_000, 300],
      [400_000, 1500],
    ] as const) {
      for (const seed of [31, 32, 33]) {
        const honest = account(followers, { seed, postsFactor: 1.5 });
        const podded = honest.map((s) =>
          s.posts > 0
            ? {
                ...s,
                likes: s.likes + block,
                comments: s.comments + block / 4,
                sentimentPositive: s.sentimentPositive + block / 8,
                sentimentNeutral: s.sentimentNeutral + block / 8,
              }
            : s,
        );
        for (const window of [28, 90]) {
          const a = score(honest, LAST, window);
          const b = score(podded, LAST, window);
          expect(b.score, `${followers} seed ${seed} window ${window}`).toBeLessThanOrEqual(a.score);
          expect(b.authenticityFlags.some((f) => f.code === 'engagement_pod')).toBe(true);
          expect(a.authenticityFlags.some((f) => f.code === 'engagement_pod')).toBe(false);
        }
      }
    }
  });

  it('a purchase on the best platform of a multi-platform workspace gains at most 1.0', () => {
    const ig = account(200_000, { seed: 1, engagementFactor: 1.5 }, 'instagram');
    const tt = account(20_000, { seed: 2, engagementFactor: 0.7 }, 'tiktok');
    const buyDay = addDays(LAST, -45);
    for (const pct of [0.5, 3, 10]) {
      const bought = alter(ig, buyDay, LAST, (s) => ({
        ...s,
        followers: Math.round(s.followers * (1 + pct)),
      }));
      const a = score([...ig, ...tt]);
      const b = score([...bought, ...tt]);
      expect(b.score - a.score).toBeLessThanOrEqual(1.0);
    }
  });

  it('three zero-reach filler posts a week on a dormant account gain at most 1.0', () => {
    const dormant = account(20_000, { postsFactor: 0, viewsFactor: 0.2, engagementFactor: 0.5, seed: 11 });
    const start = addDays(LAST, -89);
    const filler = alter(dormant, start, LAST, (s, k) => ({
      ...s,
      posts: [0, 2, 4].includes(k % 7) ? 1 : 0,
    }));
    expect(score(filler).score - score(dormant).score).toBeLessThanOrEqual(1.0);
  });

  it('one day with more than 30% of the views: at most +5 while in the window, at most 3 points on the day it leaves', () => {
    const small = account(6_000, { seed: 5 });
    const spikeDay = addDays(LAST, -120);
    const spiked = alter(small, spikeDay, spikeDay, (s) => ({ ...s, impressions: 200_000 }));
    for (const window of [28, 90]) {
      const honest = dailyScoreSeriesV2({
        snapshots: small,
        platforms: [],
        from: spikeDay,
        to: addDays(spikeDay, window + 2),
        windowDays: window,
      });
      const gamed = dailyScoreSeriesV2({
        snapshots: spiked,
        platforms: [],
        from: spikeDay,
        to: addDays(spikeDay, window + 2),
        windowDays: window,
      });
      for (let i = 0; i < window; i++) expect(gamed[i]!.score - honest[i]!.score).toBeLessThanOrEqual(5);
      expect(gamed[0]!.authenticityFlags).toContain('view_spike');
      // Day `window` is the first whose window no longer holds the spike.
      expect(Math.abs(gamed[window]!.score - gamed[window - 1]!.score)).toBeLessThanOrEqual(3);
    }
  });

  it('throttling reach in the older half of the window gains at most 2.0', () => {
    const honest = account(80_000, { seed: 9 });
    const start = addDays(LAST, -89);
    const throttled = alter(honest, start, addDays(start, 44), (s) => ({
      ...s,
      impressions: Math.round(s.impressions * 0.4),
    }));
    expect(score(throttled).score - score(honest).score).toBeLessThanOrEqual(2.0);
  });

  it('a one-day 0 or NaN follower value moves the composite by at most 0.5', () => {
    const honest = account(120_000, { seed: 4 });
    for (const offset of [0, -1, -30, -89])
      for (const bad of [0, Number.NaN]) {
        const day = addDays(LAST, offset);
        const broken = alter(honest, day, day, (s) => ({ ...s, followers: bad }));
        for (const window of [28, 90])
          expect(
            Math.abs(score(broken, LAST, window).score - score(honest, LAST, window).score),
          ).toBeLessThanOrEqual(0.5);
      }
  });

  it('impressions reported on one day only re-weight reach and impact instead of scoring them', () => {
    const honest = account(30_000, { seed: 6 });
    const none = honest.map((s) => ({ ...s, impressions: 0 }));
    const oneDay = honest.map((s) => (s.day === addDays(LAST, -3) ? s : { ...s, impressions: 0 }));
    const a = score(none);
    const b = score(oneDay);
    expect(Math.abs(b.score - a.score)).toBeLessThanOrEqual(0.5);
    expect(b.authenticityFlags.some((f) => f.code === 'views_unreported')).toBe(true);
    // Unreported is not zero: the account still sits near the median.
    expect(Math.abs(a.score - 50)).toBeLessThanOrEqual(5);
  });

  it('flags stale data when the latest snapshot is more than 3 days old', () => {
    const snaps = account(10_000);
    expect(
      scoreWorkspaceV2({ snapshots: snaps, platforms: [], asOf: LAST, today: addDays(LAST, 3) }).stale,
    ).toBe(false);
    const r = scoreWorkspaceV2({ snapshots: snaps, platforms: [], asOf: LAST, today: addDays(LAST, 4) });
    expect(r.stale).toBe(true);
    expect(r.latestDataDay).toBe(LAST);
    expect(score(snaps, addDays(LAST, 10)).stale).toBe(true);
  });
});

describe('formula v2: engagement dated on the post day', () => {
  // A source that reads each post's lifetime totals (the Instagram and Facebook connectors) books
  // all of a post's engagement on its publication day; the engine spreads it back over the days up
  // to the next post (docs/scoring.md, "Engagement dated on the post day").
  const hasPod = (r: WorkspaceScoreV2) => r.authenticityFlags.some((f) => f.code === 'engagement_pod');

  it('a median account scores as its daily-dated twin on every platform and size, and raises no flag', () => {
    for (const platform of PLATFORMS)
      for (const followers of [2_000, 40_000, 300_000, 5_000_000])
        for (const seed of [1, 2, 3]) {
          const daily = account(followers, { seed, drift: { sd: 0.2, days: 60 } }, platform);
          const a = score(daily);
          const b = score(postDated(daily));
          const what = `${platform} ${followers} seed ${seed}: ${a.score} / ${b.score}`;
          // Measured: at most 0.2 / 0.7 / 0 (spreading moves engagement a few days later, so its
          // recency weights and winsorising differ a little from the daily days').
          expect(Math.abs(b.score - a.score), what).toBeLessThanOrEqual(0.5);
          expect(Math.abs(b.pillars.impact - a.pillars.impact), what).toBeLessThanOrEqual(1.5);
          expect(Math.abs(b.pillars.momentum - a.pillars.momentum), what).toBeLessThanOrEqual(0.5);
          expect(b.authenticityFlags, what).toEqual(a.authenticityFlags);
        }
  });

  it('300 reference accounts (every size, quality and drift) score as their daily-dated twins', () => {
    const asOf = addDays(FROM, 149);
    const diffs: number[] = [];
    for (const { profile, snapshots } of referencePopulation({ seed: 7, n: 300, from: FROM, days: 150 })) {
      // A window without any post holds none of its post-dated engagement (it belongs to earlier
      // posts): there is nothing to read, and impact is 0 (2 of the 300).
      if (!snapshots.slice(-90).some((s) => Number(s.posts) > 0)) continue;
      const a = score(snapshots, asOf);
      const b = score(postDated(snapshots), asOf);
      const what = `${profile.platform} ${Math.round(profile.followers)}: ${a.score} / ${b.score}`;
      // Measured: |composite| at most 0.9, 95% within 0.2; impact at most 3.8 (accounts with a
      // few engagements a day, whose spread days are winsorised differently); momentum 0.4.
      expect(Math.abs(b.score - a.score), what).toBeLessThanOrEqual(1.5);
      expect(Math.abs(b.pillars.impact - a.pillars.impact), what).toBeLessThanOrEqual(5);
      expect(Math.abs(b.pillars.momentum - a.pillars.momentum), what).toBeLessThanOrEqual(1);
      // No pod where the daily-dated twin has none.
      if (hasPod(b)) expect(hasPod(a), what).toBe(true);
      diffs.push(Math.abs(b.score - a.score));
    }
    expect(diffs.length).toBeGreaterThan(290);
    diffs.sort((x, y) => x - y);
    expect(diffs[Math.floor(0.95 * diffs.length)]).toBeLessThanOrEqual(0.3);
  });

  it('marked by its source, posts that earn their engagement over their first days read as the daily twin, daily posters too', () => {
    // Without the mark, a window in which every day has a post shows no post-less day to recognise
    // post-dated engagement by, and lifetime totals that accrue over a post's first days are smoothed
    // against the daily views: unmarked, the pod regression took 65 of the 82 daily posters below
    // for pods (1-day accrual; 81 of 82 at 2 days), at -3.5 points on average (-7.4).
    const asOf = addDays(FROM, 149);
    let dailyPosters = 0;
    const accounts = referencePopulation({ seed: 7, n: 600, from: FROM, days: 150 }).filter(
      (a) => a.profile.platform === 'instagram' || a.profile.platform === 'facebook',
    );
    for (const { profile, snapshots } of accounts) {
      const window = snapshots.slice(-90);
      if (!window.some((s) => Number(s.posts) > 0)) continue;
      const a = score(snapshots, asOf);
      // A daily-dated twin taken for a pod loses its block; the post-dated one is not tested for it.
      if (hasPod(a)) continue;
      if (window.every((s) => Number(s.posts) > 0)) dailyPosters++;
      const b = score(postDated(snapshots, { accrualDays: 1, mark: true }), asOf);
      const what = `${profile.platform} ${Math.round(profile.followers)}: ${a.score} / ${b.score}`;
      // Measured on these 239: |composite| at most 1.2 (mean -0.25: what posts before the window
      // earned inside it is not the window's), impact 4.4, momentum 0.4.
      expect(Math.abs(b.score - a.score), what).toBeLessThanOrEqual(2);
      expect(Math.abs(b.pillars.impact - a.pillars.impact), what).toBeLessThanOrEqual(6);
      expect(Math.abs(b.pillars.momentum - a.pillars.momentum), what).toBeLessThanOrEqual(2);
      expect(hasPod(b), what).toBe(false);
    }
    expect(dailyPosters).toBeGreaterThan(60);
  });

  it('a pod on a source that dates views and engagement per post (X) is flagged and scores no higher than its honest twin', () => {
    // Per-post views match per-post engagement, so the post-day regression (every reported day is a
    // post day: its indicator is an intercept) still separates the block from honest engagement.
    for (const followers of [8_000, 50_000, 400_000])
      for (const seed of [31, 32, 33]) {
        const honest = postDated(account(followers, { seed, postsFactor: 1.5 }, 'twitter'), { views: true });
        const postDays = honest.filter((s) => Number(s.posts) > 0);
        const block = Math.max(
          2,
          Math.round((0.6 * postDays.reduce((t, s) => t + Number(s.likes), 0)) / postDays.length),
        );
        const podded = honest.map((s) =>
          Number(s.posts) > 0
            ? { ...s, likes: Number(s.likes) + block, comments: Number(s.comments) + block / 4 }
            : s,
        );
        for (const window of [28, 90]) {
          const a = score(honest, LAST, window);
          const b = score(podded, LAST, window);
          const what = `${followers} seed ${seed} window ${window}`;
          expect(b.score, what).toBeLessThanOrEqual(a.score);
          expect(hasPod(b), what).toBe(true);
          expect(hasPod(a), what).toBe(false);
        }
      }
  });
});

describe('formula v2: uncertainty', () => {
  it('every interval contains its value; a change inside the interval is not a change', () => {
    const r = score(account(75_000, { seed: 12 }));
    expect(r.scoreInterval.low).toBeLessThanOrEqual(r.score);
    expect(r.scoreInterval.high).toBeGreaterThanOrEqual(r.score);
    expect(r.scoreInterval.high).toBeGreaterThan(r.scoreInterval.low);
    for (const k of PILLARS) {
      expect(r.pillarIntervals[k].low).toBeLessThanOrEqual(r.pillars[k]);
      expect(r.pillarIntervals[k].high).toBeGreaterThanOrEqual(r.pillars[k]);
    }
    expect(changeExceedsInterval(r, { score: r.score })).toBe(false);
    expect(changeExceedsInterval(r, { score: r.scoreInterval.high + 0.1 })).toBe(true);
  });

  it('a daily series point equals the as-of score of that day (value, interval, flags); intervals can be skipped', () => {
    const snaps = [...account(30_000, { seed: 41 }), ...account(3_000, { seed: 42 }, 'tiktok')];
    const series = dailyScoreSeriesV2({
      snapshots: snaps,
      platforms: [],
      from: addDays(LAST, -4),
      to: LAST,
      windowDays: 28,
    });
    for (const p of series) {
      const r = scoreWorkspaceV2({ snapshots: snaps, platforms: [], asOf: p.day, lookbackDays: 28 });
      expect(p.score).toBe(r.score);
      expect(p.scoreInterval).toEqual(r.scoreInterval);
      expect(p.pillars).toEqual(r.pillars);
    }
    const bare = dailyScoreSeriesV2({
      snapshots: snaps,
      platforms: [],
      from: LAST,
      to: LAST,
      windowDays: 28,
      intervals: false,
    });
    expect(bare[0]!.score).toBe(series.at(-1)!.score);
    expect(bare[0]!.scoreInterval).toEqual({ low: bare[0]!.score, high: bare[0]!.score });
  });

  it('grade hysteresis keeps the previous grade within 3 points of a cutoff', () => {
    // The hysteresis is GRADE_HYSTERESIS = 3 points around the cutoff where moderate starts.
    const m = COMPOSITE_GRADE_CUTOFFS_V2.moderate;
    expect(gradeWithHysteresis(m - 2.9, 'moderate')).toBe('moderate');
    expect(gradeWithHysteresis(m - 3.1, 'moderate')).toBe('weak');
    expect(gradeWithHysteresis(m + 2.9, 'weak')).toBe('weak');
    expect(gradeWithHysteresis(m + 3.1, 'weak')).toBe('moderate');
    expect(gradeWithHysteresis(m + 0.5, null)).toBe('moderate');
  });

  it('a stationary account: "Reverse the slowdown" on <= 5% of days and <= 2 grade flips a year', () => {
    // Including a weekly-posting youtube channel, the noisiest case for a 28-day window.
    for (const [seed, followers, platform] of [
      [21, 150_000, 'instagram'],
      [22, 150_000, 'instagram'],
      [5, 2_000_000, 'youtube'],
    ] as const) {
      const snaps = account(followers, { seed }, platform);
      const series = dailyScoreSeriesV2({
        snapshots: snaps,
        platforms: [],
        from: addDays(LAST, -364),
        to: LAST,
        windowDays: 28,
      });
      let flips = 0;
      for (let i = 1; i < series.length; i++) if (series[i]!.grade !== series[i - 1]!.grade) flips++;
      expect(flips).toBeLessThanOrEqual(2);
      let slowdown = 0;
      for (let i = 0; i < series.length; i += 5) {
        const r = scoreWorkspaceV2({
          snapshots: snaps,
          platforms: [],
          asOf: series[i]!.day,
          lookbackDays: 28,
        });
        if (r.recommendations.some((x) => x.action.startsWith('Reverse the slowdown'))) slowdown++;
      }
      expect(slowdown / Math.ceil(series.length / 5)).toBeLessThanOrEqual(0.05);
    }
  });
});

describe('formula v2: bad input', () => {
  it('any metric value (NaN, negative, Infinity, huge) and any gaps give finite scores and ordered intervals in 0-100', () => {
    const bad = fc.constantFrom(Number.NaN, -1, Infinity, -Infinity, 0, 1e18, 0.5);
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10_000 }),
        fc.array(
          fc.tuple(
            fc.nat(400),
            fc.constantFrom('followers', 'impressions', 'likes', 'sentimentNegative', 'posts'),
            bad,
          ),
          {
            maxLength: 30,
          },
        ),
        fc.constantFrom(1, 7, 28, 90),
        (seed, corruptions, window) => {
          const snaps = syntheticSnapshots({ seed, from: '2025-01-01', days: 120, gapRate: 0.2 });
          for (const [i, key, value] of corruptions)
            if (snaps.length) (snaps[i % snaps.length] as unknown as Record<string, number>)[key] = value;
          const r = scoreWorkspaceV2({
            snapshots: snaps,
            platforms: [],
            asOf: '2025-04-30',
            lookbackDays: window,
          });
          const check = (v: number, iv: { low: number; high: number }) => {
            expect(Number.isFinite(v)).toBe(true);
            expect(iv.low).toBeGreaterThanOrEqual(0);
            expect(iv.high).toBeLessThanOrEqual(100);
            expect(iv.low).toBeLessThanOrEqual(v);
            expect(iv.high).toBeGreaterThanOrEqual(v);
          };
          check(r.score, r.scoreInterval);
          for (const k of PILLARS) check(r.pillars[k], r.pillarIntervals[k]);
          for (const row of r.platforms)
            expect(Number.isFinite(row.weight) && Number.isFinite(row.followerCount)).toBe(true);
        },
      ),
      { numRuns: 60 },
    );
  });
});
