/**
 * Formula v3 entry points (docs/scoring.md, "Formula v3"). A v3 score is formula v2's evaluation of
 * the screened inputs (./screen.ts: what a manipulation added is taken out) against the re-based
 * baselines (./baselines.ts), with three pillars-level changes and two additions:
 * - sentiment is one conversation across platforms (pooled counts, so each platform counts by its
 *   volume of talk), and windows longer than 28 days remember longer (bad news still lands at once);
 * - momentum compares the last 28 days with the window before them, shrunk by its sampling noise
 *   (no dead zone: it measures something for most accounts);
 * - sentiment and momentum intervals come from models of sampling noise, and the composite interval
 *   combines the pillars' (so a real shift narrows rather than widens them);
 * - a crisis signal (./crisis.ts) and the baselines' version on every score.
 */
import { PILLARS, type Pillar, type PillarScores, type Platform } from '../../../core/catalog.ts';
import type { DailySnapshot } from '../../../core/metric-snapshot.ts';
import { formatDay, parseDay, requireDay } from '../../../core/days.ts';
import { clamp, round1 } from '../math.ts';
import {
  composite as compositeOf,
  PART1_PILLARS,
  PART2_PILLARS,
  PILLAR_WEIGHTS,
  weightedPillars,
} from '../pillars.ts';
import type { PillarGrade } from '../types.ts';
import { MEDIAN_NET_SENTIMENT } from '../v2/baselines.ts';
import { MOMENTUM_SCALE, SENTIMENT_PRIOR_V2, SENTIMENT_SCALE, TREND_CAP } from '../v2/constants.ts';
import { Scratch } from '../v2/scratch.ts';
import {
  compositeGradeV2,
  DEFAULT_LOOKBACK_DAYS,
  gradeWithHysteresis,
  MAX_LOOKBACK_DAYS,
  pillarGradeV2,
  scoreWorkspaceEvaluated,
} from '../v2/score.ts';
import type { Interval, PlatformScoreRowV2 } from '../v2/types.ts';
import { baselineSetFor, baselineV3, storedBaseline } from './baselines.ts';
import { MOMENTUM_WEIGHTS, SENTIMENT_BAND } from './constants.ts';
import { crisisSignal } from './crisis.ts';
import { neutralOf } from './counts.ts';
import { unscoredSentimentFlags } from './data-quality.ts';
import { driversOf, type DriverSources } from './explain.ts';
import { recommendV3 } from './recommend.ts';
import { REFERENCE_DAYS, REFERENCE_GAP, screenSnapshots } from './screen.ts';
import {
  FORMULA_VERSION_V3,
  type AuthenticityFlagCodeV3,
  type DailyScorePointV3,
  type DailyScoreSeriesV3Input,
  type ScoreWorkspaceV3Input,
  type WorkspaceScoreV3,
} from './types.ts';

/** Two-sided 90% normal quantile (the sampling-noise intervals are normal approximations). */
const Z90 = 1.6449;
/** Sentiment's recency half-life: 7 days up to a 28-day window, a quarter of longer windows. */
export function sentimentHalfLife(windowDays: number): number {
  return Math.max(7, windowDays / 4);
}
/** Momentum compares the last MOMENTUM_RECENT_DAYS (at most half the window) with the days before. */
export const MOMENTUM_RECENT_DAYS = 28;

const n = (x: number | undefined): number => (x !== undefined && Number.isFinite(x) && x > 0 ? x : 0);

function windowLength(days: number | undefined, fallback: number): number {
  if (days === undefined || !Number.isFinite(days)) return fallback;
  return clamp(Math.floor(days), 1, MAX_LOOKBACK_DAYS);
}

interface Conversation {
  /** Recency-weighted (positive - negative) and classified counts. */
  net: number;
  classified: number;
}

function conversationOf(
  snaps: readonly DailySnapshot[],
  start: number,
  end: number,
  halfLife: number,
): Conversation {
  let net = 0;
  let classified = 0;
  for (const s of snaps) {
    const d = requireDay(s.day, 'day');
    if (d < start || d > end) continue;
    const w = Math.pow(2, -(end - d) / halfLife);
    const pos = n(s.sentimentPositive);
    const neg = n(s.sentimentNegative);
    net += w * (pos - neg);
    classified += w * (pos + neg + neutralOf(s));
  }
  return { net, classified };
}

function sentimentFromNet(net: number): number {
  return clamp(50 + 50 * Math.tanh((net - MEDIAN_NET_SENTIMENT) / SENTIMENT_SCALE), 0, 100);
}

/** Sentiment of pooled counts (shrunk to the median account's net) and its 90% interval. */
function sentimentWithInterval(c: Conversation): { value: number; interval: Interval } {
  const m = c.classified + SENTIMENT_PRIOR_V2;
  const net = (c.net + MEDIAN_NET_SENTIMENT * SENTIMENT_PRIOR_V2) / m;
  // Multinomial sampling noise of the net share over the effective count: var(net) <= (1 - net^2) / m.
  const se = Math.sqrt(Math.max(0, 1 - net * net) / m);
  return {
    value: sentimentFromNet(net),
    interval: {
      low: round1(sentimentFromNet(net - Z90 * se)),
      high: round1(sentimentFromNet(net + Z90 * se)),
    },
  };
}

function daysByPlatform(snaps: readonly DailySnapshot[]): Map<Platform, DailySnapshot[]> {
  const m = new Map<Platform, DailySnapshot[]>();
  for (const s of snaps) {
    if (!s || typeof s.day !== 'string') continue;
    try {
      requireDay(s.day, 'day');
    } catch {
      continue;
    }
    const list = m.get(s.platform) ?? [];
    list.push(s);
    m.set(s.platform, list);
  }
  return m;
}

interface Momentum {
  value: number;
  /** Half-width of its 90% interval (from the day-to-day noise of its signals). */
  half: number;
  /** Its signals (explanations), or null when the window is too short for a trend. */
  signals: { engagementTrend: number; viewsTrend: number; recentNet: number } | null;
}

/**
 * Momentum of one platform: log change of approval (likes, shares, saves) and of views, per organic
 * follower, from the window's days before the last MOMENTUM_RECENT_DAYS to those days, per 28 days,
 * each shrunk by its sampling noise (trend x t^2 / (t^2 + se^2)); plus any drop of the last week's
 * net sentiment below the median band (only a deterioration counts, so a negative item can only lower it).
 */
function momentumOf(snaps: readonly DailySnapshot[], start: number, end: number): Momentum {
  const len = end - start + 1;
  const recent = Math.min(MOMENTUM_RECENT_DAYS, Math.floor(len / 2));
  if (recent < 7) return { value: 50, half: 0, signals: null };
  const split = end - recent;
  const series = (get: (s: DailySnapshot) => number) => {
    const a: number[] = [];
    const b: number[] = [];
    for (const s of snaps) {
      const d = requireDay(s.day, 'day');
      if (d < start || d > end) continue;
      const f = n(s.followers);
      const v = get(s);
      if (!(f > 0) || !(v > 0)) continue;
      (d > split ? b : a).push(Math.log(v / f));
    }
    return { a, b };
  };
  const trendOf = (get: (s: DailySnapshot) => number): { t: number; se: number } => {
    const { a, b } = series(get);
    if (a.length < 5 || b.length < 5) return { t: 0, se: 0 };
    const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
    const vr = (xs: number[], m: number) => xs.reduce((s, x) => s + (x - m) ** 2, 0) / (xs.length - 1);
    const ma = mean(a);
    const mb = mean(b);
    // Days apart of the two halves' centres: the change per 28 days.
    const gap = (len - recent) / 2 + recent / 2;
    const per28 = 28 / gap;
    const t = clamp((mb - ma) * per28, -TREND_CAP, TREND_CAP);
    const se = Math.sqrt(vr(a, ma) / a.length + vr(b, mb) / b.length) * per28;
    return { t, se };
  };
  const eng = trendOf((s) => n(s.likes) + n(s.shares) + n(s.saves));
  const views = trendOf((s) => n(s.impressions));
  const shrink = ({ t, se }: { t: number; se: number }) => (t === 0 ? 0 : (t * t * t) / (t * t + se * se));
  let rNet = 0;
  let rCls = 0;
  for (const s of snaps) {
    const d = requireDay(s.day, 'day');
    if (d <= end - 7 || d > end) continue;
    rNet += n(s.sentimentPositive) - n(s.sentimentNegative);
    rCls += n(s.sentimentPositive) + n(s.sentimentNegative) + neutralOf(s);
  }
  const recentNet = (rNet + MEDIAN_NET_SENTIMENT * SENTIMENT_PRIOR_V2) / (rCls + SENTIMENT_PRIOR_V2);
  const shift = clamp(2 * Math.min(0, recentNet - (MEDIAN_NET_SENTIMENT - SENTIMENT_BAND)), -TREND_CAP, 0);
  const w = MOMENTUM_WEIGHTS;
  const m = w.engagement * shrink(eng) + w.views * shrink(views) + w.sentiment * shift;
  const seM = Math.sqrt((w.engagement * eng.se) ** 2 + (w.views * views.se) ** 2);
  const slope = (50 / MOMENTUM_SCALE) * (1 - Math.tanh(m / MOMENTUM_SCALE) ** 2);
  return {
    value: clamp(50 + 50 * Math.tanh(m / MOMENTUM_SCALE), 0, 100),
    half: Z90 * seM * slope,
    signals: { engagementTrend: shrink(eng), viewsTrend: shrink(views), recentNet },
  };
}

function halfWidth(value: number, i: Interval): number {
  return Math.max(0, value - i.low, i.high - value);
}

function intervalOf(value: number, half: number): Interval {
  return { low: round1(clamp(value - half, 0, 100)), high: round1(clamp(value + half, 0, 100)) };
}

/**
 * Days before a window's first day that a v3 score reads: the screen's oldest reference week starts
 * REFERENCE_GAP + REFERENCE_DAYS + 6 days before it, and the crisis signal's baseline (187 days back
 * from the score's day) lies inside that. Older snapshots are never read, so a score depends only on
 * the snapshots of its input span (scoreInputDays), whatever else a caller loaded.
 */
export const HISTORY_DAYS = REFERENCE_GAP + REFERENCE_DAYS + 6;

/** Days of snapshots, ending on the score's day, that a v3 score over `lookbackDays` reads. */
export function scoreInputDays(lookbackDays: number = DEFAULT_LOOKBACK_DAYS): number {
  return windowLength(lookbackDays, DEFAULT_LOOKBACK_DAYS) + HISTORY_DAYS;
}

/** The snapshots a score with window [start, end] reads (days that do not parse are kept for v2's checks). */
function inputOf(snapshots: readonly DailySnapshot[], start: number, end: number): DailySnapshot[] {
  const from = start - HISTORY_DAYS;
  return snapshots.filter((s) => {
    const d = s && typeof s.day === 'string' ? parseDay(s.day) : null;
    return d === null || (d >= from && d <= end);
  });
}

/** Score a workspace as of a day over a lookback window under formula v3. Throws RangeError only for an invalid day. */
export function scoreWorkspaceV3(input: ScoreWorkspaceV3Input): WorkspaceScoreV3 {
  const end = requireDay(input.asOf, 'asOf');
  const lookbackDays = windowLength(input.lookbackDays, DEFAULT_LOOKBACK_DAYS);
  const start = end - lookbackDays + 1;
  const screen = screenSnapshots(inputOf(input.snapshots ?? [], start, end), input.asOf, formatDay(start));
  const evaluated = scoreWorkspaceEvaluated(
    { ...input, snapshots: screen.snapshots },
    new Scratch(
      input.industry ? (platform, followers) => baselineV3(platform, followers, input.industry) : baselineV3,
    ),
  );
  const v2 = evaluated.result;
  const baseline = baselineSetFor(input.industry);
  const byPlatform = daysByPlatform(screen.snapshots);
  const crisis = crisisSignal(screen.snapshots, input.asOf);
  const pillars: PillarScores = { ...v2.pillars };
  const pillarIntervals = { ...v2.pillarIntervals };
  const halfLife = sentimentHalfLife(lookbackDays);
  const rows: PlatformScoreRowV2[] = [];
  const sentimentParts: DriverSources['sentiment'][number][] = [];
  const momentumParts: DriverSources['momentum'][number][] = [];
  if (v2.platforms.length > 0) {
    // One conversation: pooled counts over the scored platforms. A longer window remembers longer,
    // but bad news lands at once: it takes the lower of its own and the 28-day reading.
    const pool = (hl: number): Conversation => {
      const c: Conversation = { net: 0, classified: 0 };
      for (const r of v2.platforms) {
        const one = conversationOf(byPlatform.get(r.platform) ?? [], start, end, hl);
        c.net += one.net;
        c.classified += one.classified;
      }
      return c;
    };
    const slow = sentimentWithInterval(pool(halfLife));
    const fast = halfLife > 7 ? sentimentWithInterval(pool(7)) : slow;
    const sent = fast.value < slow.value ? fast : slow;
    pillars.sentiment = sent.value;
    pillarIntervals.sentiment = sent.interval;
    // The explanations' view of the reading taken: each platform's share of the pooled conversation.
    const usedHalfLife = sent === fast && fast !== slow ? 7 : halfLife;
    const parts = v2.platforms.map((r) => ({
      platform: r.platform,
      ...conversationOf(byPlatform.get(r.platform) ?? [], start, end, usedHalfLife),
    }));
    const effective = parts.reduce((t, x) => t + x.classified, 0) + SENTIMENT_PRIOR_V2;
    for (const x of parts)
      sentimentParts.push({
        platform: x.platform,
        share: x.classified / effective,
        net: x.classified > 0 ? x.net / x.classified : null,
      });
    let mom = 0;
    let momHalf = 0;
    for (const r of v2.platforms) {
      const snaps = byPlatform.get(r.platform) ?? [];
      const m = momentumOf(snaps, start, end);
      mom += r.weight * m.value;
      momHalf += r.weight * m.half;
      if (m.signals) momentumParts.push({ platform: r.platform, weight: r.weight, ...m.signals });
      const own = conversationOf(snaps, start, end, halfLife);
      const ownFast = halfLife > 7 ? conversationOf(snaps, start, end, 7) : own;
      const p: PillarScores = {
        ...r.pillars,
        sentiment: round1(Math.min(sentimentWithInterval(own).value, sentimentWithInterval(ownFast).value)),
        momentum: round1(m.value),
      };
      const overall = round1(compositeOf(p));
      rows.push({
        ...r,
        pillars: p,
        overallScore: overall,
        grade: compositeGradeV2(overall),
        part1Score: round1(weightedPillars(p, PART1_PILLARS)),
        part2Score: round1(weightedPillars(p, PART2_PILLARS)),
      });
    }
    pillars.momentum = mom;
    pillarIntervals.momentum = intervalOf(mom, momHalf);
  }
  for (const k of PILLARS) pillars[k] = round1(clamp(pillars[k], 0, 100));
  const score = round1(compositeOf(pillars));
  // The composite's interval combines the pillars' half-widths as independent errors.
  let ss = 0;
  for (const k of PILLARS) ss += (PILLAR_WEIGHTS[k] * halfWidth(pillars[k], pillarIntervals[k])) ** 2;
  const scoreInterval = v2.platforms.length > 0 ? intervalOf(score, Math.sqrt(ss)) : v2.scoreInterval;
  const pillarGrades = {} as Record<Pillar, PillarGrade>;
  for (const k of PILLARS) pillarGrades[k] = pillarGradeV2(pillars[k]);
  const drivers = driversOf({
    measured: evaluated.measured,
    coverage: evaluated.coverage,
    sentiment: sentimentParts,
    momentum: momentumParts,
  });
  return {
    ...v2,
    formulaVersion: FORMULA_VERSION_V3,
    score,
    scoreInterval,
    grade: gradeWithHysteresis(score, input.previousGrade),
    pillars,
    pillarIntervals,
    pillarGrades,
    platforms: rows.length > 0 ? rows : v2.platforms,
    recommendations: recommendV3({ drivers, pillarIntervals, crisis }, input.maxRecommendations),
    drivers,
    authenticityFlags: [
      ...v2.authenticityFlags,
      ...screen.flags,
      ...unscoredSentimentFlags(
        screen.snapshots,
        v2.platforms.map((r) => r.platform),
        start,
        end,
      ),
    ],
    crisis,
    baseline,
    baselineVersion: storedBaseline(baseline),
    screened: screen.screened,
  };
}

/**
 * Score as of each day from `from` to `to` with a rolling window; point d equals scoreWorkspaceV3
 * for d (each day is scored on its own: the screen's references move with the day).
 */
export function dailyScoreSeriesV3(input: DailyScoreSeriesV3Input): DailyScorePointV3[] {
  const from = requireDay(input.from, 'from');
  const to = requireDay(input.to, 'to');
  if (from > to) return [];
  const windowDays = windowLength(input.windowDays, 28);
  // Each day reads only its input span (scoreInputDays): the snapshots sorted by day once, and each
  // day handed its slice, so a long history costs per day what the span costs, not what all of it does.
  const dated: { d: number; s: DailySnapshot }[] = [];
  const undated: DailySnapshot[] = [];
  for (const s of input.snapshots ?? []) {
    const d = s && typeof s.day === 'string' ? parseDay(s.day) : null;
    if (d === null) undated.push(s);
    else dated.push({ d, s });
  }
  dated.sort((a, b) => a.d - b.d);
  const firstOnOrAfter = (day: number): number => {
    let lo = 0;
    let hi = dated.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (dated[mid]!.d < day) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  const span = windowDays + HISTORY_DAYS;
  const out: DailyScorePointV3[] = [];
  let grade = input.previousGrade ?? null;
  for (let day = from; day <= to; day++) {
    const slice = dated.slice(firstOnOrAfter(day - span + 1), firstOnOrAfter(day + 1)).map((x) => x.s);
    const s = scoreWorkspaceV3({
      snapshots: undated.length ? [...undated, ...slice] : slice,
      platforms: input.platforms,
      asOf: formatDay(day),
      lookbackDays: windowDays,
      previousGrade: grade,
      industry: input.industry ?? null,
    });
    grade = s.grade;
    const point = input.intervals === false;
    out.push({
      day: s.asOf,
      score: s.score,
      scoreInterval: point ? { low: s.score, high: s.score } : s.scoreInterval,
      grade,
      pillars: s.pillars,
      pillarIntervals: point ? pointIntervals(s.pillars) : s.pillarIntervals,
      coverage: s.coverage,
      stale: s.stale,
      authenticityFlags: [...new Set<AuthenticityFlagCodeV3>(s.authenticityFlags.map((f) => f.code))],
      crisis: s.crisis,
    });
  }
  return out;
}

function pointIntervals(p: PillarScores): Record<Pillar, Interval> {
  const out = {} as Record<Pillar, Interval>;
  for (const k of PILLARS) out[k] = { low: p[k], high: p[k] };
  return out;
}
