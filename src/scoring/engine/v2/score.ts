/**
 * Formula v2 entry points: workspace aggregation (platforms weighted by engaged audience), 90%
 * intervals by a delete-a-block jackknife over days, grades calibrated to population shares with
 * hysteresis, the stale flag and interval-gated recommendations.
 */
import { buildDaySeries, type DaySeries } from './day-series.ts';
import { evaluatePlatform, type PlatformEvaluation, type PlatformReadings } from './evaluate-platform.ts';
import { Scratch } from './scratch.ts';
import { WindowMedians, type WindowHints } from './window-medians.ts';
import type {
  AuthenticityFlag,
  AuthenticityFlagCode,
  DailyScorePointV2,
  DailyScoreSeriesV2Input,
  Interval,
  PlatformScoreRowV2,
  ScoreWorkspaceV2Input,
  WorkspaceScoreV2,
} from './types.ts';
import { FORMULA_VERSION_V2 } from './types.ts';
import { clamp, round1 } from '../math.ts';
import {
  composite as compositeOf,
  coverageFactor,
  PART1_PILLARS,
  PART2_PILLARS,
  PILLAR_WEIGHTS,
  UNMEASURED,
  weightedPillars,
} from '../pillars.ts';
import type { CompositeGrade, PillarGrade, Recommendation } from '../types.ts';
import { formatDay, requireDay } from '../../../core/days.ts';
import {
  COMPOSITE_GRADES,
  type Pillar,
  PILLARS,
  type PillarScores,
  type Platform,
  PLATFORMS,
} from '../../../core/catalog.ts';

export { FOLLOWER_SPIKE_MARGIN } from './constants.ts';

/** Default window of a score, in days, ending at its day (audits and the stored daily scores). */
export const DEFAULT_LOOKBACK_DAYS = 90;
/** Windows are clamped to 1..MAX_LOOKBACK_DAYS days. */
export const MAX_LOOKBACK_DAYS = 365;
/** Default window of dailyScoreSeriesV2. */
const DEFAULT_SERIES_WINDOW_DAYS = 28;

/** The latest snapshot older than this many days before `today` marks the score stale. */
export const STALE_AFTER_DAYS = 3;
/** A grade changes only when the score passes the cutoff by this many points (hysteresis; about 1.5 sd of a stationary account's daily composite). */
export const GRADE_HYSTERESIS = 3;
/** Share of each platform's weight split evenly, as in v1; the rest by engaged audience. */
const EVEN_SHARE = 0.2;
/** Blocks of the delete-a-block jackknife. */
const JACKKNIFE_BLOCKS = 8;
/** Two-sided 90% quantile of Student's t with JACKKNIFE_BLOCKS - 1 = 7 degrees of freedom (the jackknife's). */
const T90 = 1.8946;

/**
 * Composite grade cutoffs (lower bounds) at the 95/75/25/5% quantiles of the reference population
 * (reference-population.ts; 20,000 accounts, seed 2026, printed by `npm run population-chart`), so
 * the grades are population shares: elite top 5%, strong next 20%, moderate middle 50%, weak next
 * 20%, critical bottom 5%. test/unit/scoring-v2.test.ts checks the shares on a fresh
 * sample. 20,000 accounts, because on 4,000 a quantile's sampling sd is large enough to move the
 * shares by a point (4.4% elite, 5.5% critical). These sit within 0.2 of another 20,000's (seeds 1-5:
 * 60.3 / 54.3 / 45.4 / 39.4).
 */
export const COMPOSITE_GRADE_CUTOFFS_V2 = { elite: 60.5, strong: 54.5, moderate: 45.5, weak: 39.5 } as const;
/** The share of the reference population in each grade band: what the cutoffs above were chosen for. */
export const GRADE_POPULATION_SHARES_V2 = {
  elite: 0.05,
  strong: 0.2,
  moderate: 0.5,
  weak: 0.2,
  critical: 0.05,
} as const satisfies Record<CompositeGrade, number>;
/** The reference population's median account scores this (every pillar is centred on it). */
export const MEDIAN_SCORE = 50;
/**
 * Pillar colours: green at least 10 points above the median account (50), red at least 10 below.
 * One pair for every pillar, so the shares differ by pillar (docs/scoring.md has them): pillars
 * that spread widely (presence) have more green and red than steady ones (momentum).
 */
export const PILLAR_GRADE_CUTOFFS_V2 = { green: 60, yellow: 40 } as const;

const GRADES: readonly CompositeGrade[] = [...COMPOSITE_GRADES].reverse();

export function compositeGradeV2(score: number): CompositeGrade {
  const x = round1(score);
  const c = COMPOSITE_GRADE_CUTOFFS_V2;
  if (x >= c.elite) return 'elite';
  if (x >= c.strong) return 'strong';
  if (x >= c.moderate) return 'moderate';
  if (x >= c.weak) return 'weak';
  return 'critical';
}

export function pillarGradeV2(score: number): PillarGrade {
  const x = round1(score);
  if (x >= PILLAR_GRADE_CUTOFFS_V2.green) return 'green';
  if (x >= PILLAR_GRADE_CUTOFFS_V2.yellow) return 'yellow';
  return 'red';
}

/** Grade with hysteresis: keep `previous` while the score is within GRADE_HYSTERESIS of its band. */
export function gradeWithHysteresis(
  score: number,
  previous: CompositeGrade | null | undefined,
): CompositeGrade {
  const raw = compositeGradeV2(score);
  if (!previous || previous === raw) return raw;
  const lo = GRADES.indexOf(compositeGradeV2(score - GRADE_HYSTERESIS));
  const hi = GRADES.indexOf(compositeGradeV2(score + GRADE_HYSTERESIS));
  const p = GRADES.indexOf(previous);
  return p >= lo && p <= hi ? previous : raw;
}

/**
 * Whether a move from `previous` to `next` is a real change (for score.changed): the new score
 * lies outside the previous score's 90% interval.
 */
export function changeExceedsInterval(
  previous: { score: number; scoreInterval: Interval },
  next: { score: number },
): boolean {
  return next.score < previous.scoreInterval.low || next.score > previous.scoreInterval.high;
}

function resolvePlatforms(
  requested: readonly Platform[],
  snapshots: readonly { platform: string }[],
): Platform[] {
  const wanted = new Set<string>(requested ?? []);
  if (wanted.size === 0) for (const s of snapshots) if (s) wanted.add(s.platform);
  return PLATFORMS.filter((p) => wanted.has(p));
}

function windowLength(days: number | undefined, fallback: number): number {
  if (days === undefined || !Number.isFinite(days)) return fallback;
  return clamp(Math.floor(days), 1, MAX_LOOKBACK_DAYS);
}

interface Workspace {
  measured: { ev: PlatformEvaluation; weight: number }[];
  missing: Platform[];
  coverage: number;
  pillars: PillarScores;
  composite: number;
}

function aggregate(
  scratch: Scratch,
  series: Map<Platform, DaySeries>,
  platforms: readonly Platform[],
  start: number,
  end: number,
  skipFrom = 1,
  skipTo = 0,
  hints?: Map<Platform, WindowHints>,
): Workspace {
  const evs: PlatformEvaluation[] = [];
  const missing: Platform[] = [];
  for (const p of platforms) {
    const s = series.get(p);
    const ev = s ? evaluatePlatform(scratch, s, start, end, skipFrom, skipTo, hints?.get(p)) : null;
    if (ev) evs.push(ev);
    else missing.push(p);
  }
  // Engaged audience, not raw followers: bought followers on one platform do not re-weight the workspace.
  const total = evs.reduce((t, e) => t + e.engagedAudience, 0);
  const n = evs.length;
  const measured = evs.map((ev) => ({
    ev,
    weight: total > 0 ? EVEN_SHARE / n + ((1 - EVEN_SHARE) * ev.engagedAudience) / total : 1 / n,
  }));
  const coverage = platforms.length > 0 ? n / platforms.length : 0;
  let pillars: PillarScores;
  if (n === 0) pillars = { ...UNMEASURED };
  else {
    pillars = { presence: 0, reach: 0, impact: 0, sentiment: 0, momentum: 0 };
    for (const { ev, weight } of measured) for (const k of PILLARS) pillars[k] += weight * ev.pillars[k];
    pillars.presence *= coverageFactor(coverage);
    for (const k of PILLARS) pillars[k] = clamp(pillars[k], 0, 100);
  }
  return { measured, missing, coverage, pillars, composite: compositeOf(pillars) };
}

interface Scored {
  ws: Workspace;
  interval: Interval;
  pillarIntervals: Record<Pillar, Interval>;
}

/** Delete-a-block jackknife over the window's days: se = sqrt((B-1)/B sum (t_i - mean)^2). */
function scoreWithIntervals(
  scratch: Scratch,
  series: Map<Platform, DaySeries>,
  platforms: readonly Platform[],
  start: number,
  end: number,
  withIntervals = true,
  hints?: Map<Platform, WindowHints>,
): Scored {
  const ws = aggregate(scratch, series, platforms, start, end, 1, 0, hints);
  const len = end - start + 1;
  const blocks = Math.min(JACKKNIFE_BLOCKS, len);
  const reps: Workspace[] = [];
  if (withIntervals && ws.measured.length > 0 && blocks >= 2)
    for (let k = 0; k < blocks; k++) {
      const from = start + Math.floor((k * len) / blocks);
      const to = start + Math.floor(((k + 1) * len) / blocks) - 1;
      reps.push(aggregate(scratch, series, platforms, start, end, from, to));
    }
  const interval = (value: number, get: (w: Workspace) => number): Interval => {
    if (reps.length < 2) return { low: round1(value), high: round1(value) };
    const vals = reps.map(get);
    const mean = vals.reduce((s, v) => s + v, 0) / vals.length;
    const ss = vals.reduce((s, v) => s + (v - mean) ** 2, 0);
    const se = Math.sqrt(((reps.length - 1) / reps.length) * ss);
    return { low: round1(clamp(value - T90 * se, 0, 100)), high: round1(clamp(value + T90 * se, 0, 100)) };
  };
  const pillarIntervals = {} as Record<Pillar, Interval>;
  for (const k of PILLARS) pillarIntervals[k] = interval(ws.pillars[k], (w) => w.pillars[k]);
  return { ws, interval: interval(ws.composite, (w) => w.composite), pillarIntervals };
}

function rounded(p: PillarScores): PillarScores {
  const out = {} as PillarScores;
  for (const k of PILLARS) out[k] = round1(p[k]);
  return out;
}

function flagsOf(ws: Workspace): AuthenticityFlag[] {
  return ws.measured.flatMap((m) => m.ev.flags);
}

function latestDay(ws: Workspace): number | null {
  let latest: number | null = null;
  for (const m of ws.measured)
    if (latest === null || m.ev.latestObserved > latest) latest = m.ev.latestObserved;
  return latest;
}

const ACTIONS: Record<Pillar, (p: Platform) => string> = {
  presence: (p) => `Post more regularly on ${p}: posting sits below the median account of its size`,
  reach: (p) =>
    `Grow visibility on ${p}: views per follower and growth sit below the median account of its size`,
  impact: (p) => `Raise engagement per view on ${p}: it sits below the median account of its size`,
  sentiment: (p) => `Address negative conversation on ${p}: net sentiment sits below the median account`,
  momentum: (p) => `Reverse the slowdown on ${p}: engagement and views are trending down`,
};

/** Recommend only where the pillar's whole 90% interval lies below the median (50). */
function recommendV2(s: Scored, max: number): Recommendation[] {
  const out: { pillar: Pillar; platform: Platform; gain: number }[] = [];
  for (const k of PILLARS) {
    if (!(s.pillarIntervals[k].high < 50)) continue;
    let worst: { ev: PlatformEvaluation; weight: number } | null = null;
    for (const m of s.ws.measured) if (!worst || m.ev.pillars[k] < worst.ev.pillars[k]) worst = m;
    if (!worst) continue;
    out.push({ pillar: k, platform: worst.ev.platform, gain: (50 - s.ws.pillars[k]) * PILLAR_WEIGHTS[k] });
  }
  out.sort((x, y) => y.gain - x.gain);
  return out.slice(0, Math.max(0, max)).map((c, i) => ({
    priority: i + 1,
    pillar: c.pillar,
    action: ACTIONS[c.pillar](c.platform),
    expected_impact: `up to +${round1(c.gain).toFixed(1)} points on the score`,
  }));
}

/** Score a workspace as of a day over a lookback window. Throws RangeError only for an invalid day. */
export function scoreWorkspaceV2(input: ScoreWorkspaceV2Input): WorkspaceScoreV2 {
  return scoreWorkspaceWith(input, new Scratch());
}

/**
 * scoreWorkspaceV2 with the given working buffers, whose `baseline` the platforms are scored against
 * (formula v3 scores v2's evaluation against its re-based baselines; v2 itself always uses baselineV2).
 */
export function scoreWorkspaceWith(input: ScoreWorkspaceV2Input, scratch: Scratch): WorkspaceScoreV2 {
  return scoreWorkspaceEvaluated(input, scratch).result;
}

/** A platform's evaluation and its weight in the workspace (formula v3's explanations read them). */
export interface MeasuredPlatform {
  platform: Platform;
  weight: number;
  /** The platform's pillars before rounding. */
  pillars: PillarScores;
  readings: PlatformReadings;
}

/**
 * scoreWorkspaceWith, with what the result was computed from: each measured platform's unrounded
 * pillars, weight and readings, and the coverage (formula v3's explanations; not part of a v2 result).
 */
export function scoreWorkspaceEvaluated(
  input: ScoreWorkspaceV2Input,
  scratch: Scratch,
): { result: WorkspaceScoreV2; measured: MeasuredPlatform[]; coverage: number } {
  const end = requireDay(input.asOf, 'asOf');
  const today = input.today !== undefined ? requireDay(input.today, 'today') : end;
  const lookbackDays = windowLength(input.lookbackDays, DEFAULT_LOOKBACK_DAYS);
  const start = end - lookbackDays + 1;
  const snapshots = input.snapshots ?? [];
  const platforms = resolvePlatforms(input.platforms, snapshots);
  const series = buildDaySeries(snapshots, platforms, start, end);
  const s = scoreWithIntervals(scratch, series, platforms, start, end);
  const pillars = rounded(s.ws.pillars);
  const pillarGrades = {} as Record<Pillar, PillarGrade>;
  for (const k of PILLARS) pillarGrades[k] = pillarGradeV2(pillars[k]);
  const rows: PlatformScoreRowV2[] = s.ws.measured.map(({ ev, weight }) => {
    const overall = round1(compositeOf(ev.pillars));
    return {
      platform: ev.platform,
      tier: ev.tier,
      followerCount: Math.round(ev.organicFollowers),
      overallScore: overall,
      grade: compositeGradeV2(overall),
      part1Score: round1(weightedPillars(ev.pillars, PART1_PILLARS)),
      part2Score: round1(weightedPillars(ev.pillars, PART2_PILLARS)),
      pillars: rounded(ev.pillars),
      weight,
    };
  });
  const score = round1(s.ws.composite);
  const latest = latestDay(s.ws);
  const max = input.maxRecommendations;
  const result: WorkspaceScoreV2 = {
    formulaVersion: FORMULA_VERSION_V2,
    asOf: formatDay(end),
    windowStart: formatDay(start),
    lookbackDays,
    score,
    scoreInterval: s.interval,
    grade: gradeWithHysteresis(score, input.previousGrade),
    pillars,
    pillarIntervals: s.pillarIntervals,
    pillarGrades,
    platforms: rows,
    recommendations: recommendV2(s, max !== undefined && Number.isFinite(max) ? max : 5),
    coverage: s.ws.coverage,
    platformsMissing: s.ws.missing,
    stale: latest === null || today - latest > STALE_AFTER_DAYS,
    latestDataDay: latest === null ? null : formatDay(latest),
    authenticityFlags: flagsOf(s.ws),
  };
  const measured = s.ws.measured.map(({ ev, weight }) => ({
    platform: ev.platform,
    weight,
    pillars: ev.pillars,
    readings: ev.readings,
  }));
  return { result, measured, coverage: s.ws.coverage };
}

/** Score as of each day from `from` to `to` with a rolling window; point d equals scoreWorkspaceV2 for d. */
export function dailyScoreSeriesV2(input: DailyScoreSeriesV2Input): DailyScorePointV2[] {
  const from = requireDay(input.from, 'from');
  const to = requireDay(input.to, 'to');
  if (from > to) return [];
  const windowDays = windowLength(input.windowDays, DEFAULT_SERIES_WINDOW_DAYS);
  const snapshots = input.snapshots ?? [];
  const platforms = resolvePlatforms(input.platforms, snapshots);
  const origin = from - windowDays + 1;
  const series = buildDaySeries(snapshots, platforms, origin, to);
  // Sliding windows: each platform's window medians move one day per step (linear in the days)
  // rather than being recomputed from the whole window every day.
  const scratch = new Scratch();
  const sliding = new Map<Platform, WindowMedians>();
  for (const [p, d] of series) sliding.set(p, new WindowMedians(d, scratch));
  const hints = new Map<Platform, WindowHints>();
  const out: DailyScorePointV2[] = [];
  let grade = input.previousGrade ?? null;
  for (let day = from; day <= to; day++) {
    for (const [p, w] of sliding) hints.set(p, w.moveTo(day - from, day - origin));
    const s = scoreWithIntervals(
      scratch,
      series,
      platforms,
      day - windowDays + 1,
      day,
      input.intervals !== false,
      hints,
    );
    const score = round1(s.ws.composite);
    grade = gradeWithHysteresis(score, grade);
    const latest = latestDay(s.ws);
    out.push({
      day: formatDay(day),
      score,
      scoreInterval: s.interval,
      grade,
      pillars: rounded(s.ws.pillars),
      pillarIntervals: s.pillarIntervals,
      coverage: s.ws.coverage,
      stale: latest === null || day - latest > STALE_AFTER_DAYS,
      authenticityFlags: [...new Set<AuthenticityFlagCode>(flagsOf(s.ws).map((f) => f.code))],
    });
  }
  return out;
}
