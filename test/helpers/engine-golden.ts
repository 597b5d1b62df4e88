// The golden-output harness of the scoring engines (test/unit/scoring-v*-golden.test.ts): a fixed,
// varied set of deterministic inputs and a digest of every output, shared so each formula version is
// held to the same cases.
import { createHash } from 'node:crypto';
import type { DailyScoreSeriesV2Input, ScoreWorkspaceV2Input } from '../../src/scoring/engine/v2/index.ts';
import { referencePopulation } from '../../src/scoring/engine/v2/reference-population.ts';
import { accountSnapshots, alter, postDated, prng, syntheticSnapshots } from './synthetic.ts';
import { addDays } from '../../src/core/days.ts';
import { PLATFORMS, type Platform } from '../../src/core/catalog.ts';
import type { CompositeGrade } from '../../src/scoring/engine/types.ts';
import type { DailySnapshot } from '../../src/core/metric-snapshot.ts';

const FROM = '2025-01-01';
const DAYS = 400;
const LAST = addDays(FROM, DAYS - 1);
const GRADES: (CompositeGrade | null)[] = [null, 'elite', 'strong', 'moderate', 'weak', 'critical'];

/** JSON with every number spelled exactly (-0, NaN and the infinities kept apart from 0 and null). */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => {
    if (typeof v !== 'number') return v;
    if (Object.is(v, -0)) return '#-0';
    return Number.isFinite(v) ? v : `#${v}`;
  });
}

export class Digest {
  private readonly all = createHash('sha256');
  count = 0;
  add(output: unknown): void {
    this.all.update(createHash('sha256').update(canonical(output)).digest('hex'));
    this.count++;
  }
  hex(): string {
    return this.all.digest('hex');
  }
}

/** Workspaces of 1 to 5 reference-population accounts (each on its own platform), plus synthetic ones. */
export function workspaces(): DailySnapshot[][] {
  const out: DailySnapshot[][] = [];
  const population = referencePopulation({ seed: 2024, n: 120, from: FROM, days: DAYS });
  for (let i = 0, size = 1; i < population.length; i += size, size = (size % 5) + 1) {
    const taken = new Set<Platform>();
    const ws: DailySnapshot[] = [];
    for (const a of population.slice(i, i + size)) {
      if (taken.has(a.profile.platform)) continue;
      taken.add(a.profile.platform);
      ws.push(...a.snapshots);
    }
    out.push(ws);
  }
  for (let seed = 1; seed <= 16; seed++)
    out.push(
      syntheticSnapshots({
        seed,
        from: FROM,
        days: DAYS,
        platforms: PLATFORMS.slice(0, 1 + (seed % PLATFORMS.length)),
        gapRate: (seed % 4) * 0.1,
      }),
    );
  return out;
}

/** Accounts built to raise each flag and reach each branch: purchases, pods, spikes, bad values, post dating. */
export function edgeCases(): DailySnapshot[][] {
  const rnd = prng(99);
  const out: DailySnapshot[][] = [];
  const account = (followers: number, seed: number, platform: Platform, o = {}) =>
    accountSnapshots({ seed, platform, from: FROM, days: DAYS, followers, ...o });
  for (const [i, platform] of PLATFORMS.entries()) {
    const seed = 40 + i;
    const honest = account(Math.round(2_000 * 10 ** (i * 0.8)), seed, platform, { postsFactor: 1.5 });
    const buyDay = addDays(LAST, -20 - 11 * i);
    out.push(alter(honest, buyDay, LAST, (s) => ({ ...s, followers: Math.round(s.followers * (1.2 + i)) })));
    out.push(
      honest.map((s) =>
        s.posts > 0 ? { ...s, likes: s.likes + 300, comments: s.comments + 75, sentimentPositive: 40 } : s,
      ),
    );
    out.push(
      alter(honest, addDays(LAST, -10 - i), addDays(LAST, -10 - i), (s) => ({ ...s, impressions: 5e6 })),
    );
    out.push(honest.map((s) => (s.day === addDays(LAST, -3) ? s : { ...s, impressions: 0 })));
    out.push(
      honest.map((s) =>
        rnd() < 0.05
          ? { ...s, followers: rnd() < 0.5 ? Number.NaN : 0, likes: rnd() < 0.5 ? -5 : s.likes }
          : s,
      ),
    );
    out.push(postDated(honest, { mark: i % 2 === 0 }));
    out.push(postDated(honest, { views: true, mark: true }));
    out.push(postDated(honest, { accrualDays: 3, mark: i % 2 === 1 }));
    out.push(
      account(30_000, seed + 10, platform, {
        season: { amplitude: 0.4, phase: i },
        drift: { sd: 0.3, days: 30 },
        growthFactor: i - 1,
        netSentiment: -0.5 + 0.25 * i,
        postsFactor: i === 0 ? 0 : 1,
      }),
    );
    out.push(account(50, seed + 20, platform, { noise: 0, exact: true, viewsFactor: 0.1 }));
  }
  return out;
}

/** Four score requests per case, each output hashed. */
export function scoreDigest(
  cases: readonly DailySnapshot[][],
  score: (input: ScoreWorkspaceV2Input) => unknown,
): Digest {
  const digest = new Digest();
  cases.forEach((snapshots, i) => {
    const inputs: ScoreWorkspaceV2Input[] = [
      { snapshots, platforms: [], asOf: LAST },
      { snapshots, platforms: [], asOf: LAST, lookbackDays: [7, 28, 365, 1000][i % 4]! },
      {
        snapshots,
        platforms: i % 3 === 0 ? [...PLATFORMS] : [PLATFORMS[i % PLATFORMS.length]!],
        asOf: addDays(LAST, -37 - (i % 50)),
        lookbackDays: 90,
        previousGrade: GRADES[i % GRADES.length]!,
        maxRecommendations: i % 6,
        today: addDays(LAST, i % 9),
      },
      { snapshots, platforms: [], asOf: addDays(FROM, 20 + (i % 30)), lookbackDays: 60 },
    ];
    for (const input of inputs) digest.add(score(input));
  });
  return digest;
}

/** Two series requests on every `every`-th case (the first starting `spanDays` before the last day), hashed. */
export function seriesDigest(
  cases: readonly DailySnapshot[][],
  series: (input: DailyScoreSeriesV2Input) => unknown,
  { every, spanDays }: { every: number; spanDays: number },
): Digest {
  const digest = new Digest();
  cases.forEach((snapshots, i) => {
    if (i % every !== 0) return;
    const inputs: DailyScoreSeriesV2Input[] = [
      {
        snapshots,
        platforms: [],
        from: addDays(LAST, -spanDays),
        to: LAST,
        windowDays: 90,
        previousGrade: GRADES[i % GRADES.length]!,
        intervals: false,
      },
      {
        snapshots,
        platforms: [],
        from: addDays(LAST, -20),
        to: addDays(LAST, 5),
        windowDays: [28, 7, 90][i % 3],
      },
    ];
    for (const input of inputs) digest.add(series(input));
  });
  return digest;
}
