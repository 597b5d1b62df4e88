/** Workspace scoring: one as-of score (audit / live score) and a daily score series (history). */
import { composite, platformWeights, workspacePillars } from './aggregate.ts';
import { compositeGrade, pillarGrade } from './grades.ts';
import { clamp, round1 } from './math.ts';
import { PART1_PILLARS, PART2_PILLARS, platformPillars, weightedPillars } from './pillars.ts';
import { DEFAULT_MAX_RECOMMENDATIONS, recommend } from './recommendations.ts';
import { buildSeries, type PlatformSeries } from './series.ts';
import { measure, type PlatformSignals } from './signals.ts';
import {
  FORMULA_VERSION,
  type CompositeGrade,
  type PillarGrade,
  type PlatformScoreRow,
  type Recommendation,
} from './types.ts';
import { formatDay, requireDay } from '../../core/days.ts';
import { type Pillar, PILLARS, type PillarScores, type Platform, PLATFORMS } from '../../core/catalog.ts';
import type { DailySnapshot } from '../../core/metric-snapshot.ts';

export const DEFAULT_LOOKBACK_DAYS = 90;
export const MAX_LOOKBACK_DAYS = 365;
export const DEFAULT_SERIES_WINDOW_DAYS = 28;

export interface ScoreWorkspaceInput {
  snapshots: readonly DailySnapshot[];
  /** Platforms the score covers (the audit's platforms_included). Empty: every platform seen in the snapshots. */
  platforms: readonly Platform[];
  /** Last day of the window, YYYY-MM-DD. */
  asOf: string;
  /** Window length in days ending at asOf; default 90, clamped to 1..365. */
  lookbackDays?: number;
  /** Default 5. */
  maxRecommendations?: number;
}

export interface WorkspaceScore {
  formulaVersion: typeof FORMULA_VERSION;
  asOf: string;
  /** First day of the window. */
  windowStart: string;
  lookbackDays: number;
  /** Composite Brand Credit Score, 0-100, one decimal. */
  score: number;
  grade: CompositeGrade;
  /** 0-100, one decimal. */
  pillars: PillarScores;
  pillarGrades: Record<Pillar, PillarGrade>;
  /** One row per platform with data in the window. */
  platforms: PlatformScoreRow[];
  recommendations: Recommendation[];
  /** Share of requested platforms with data in the window, 0..1. 0 means nothing was measured. */
  coverage: number;
  platformsMissing: Platform[];
}

export interface DailyScoreSeriesInput {
  snapshots: readonly DailySnapshot[];
  platforms: readonly Platform[];
  /** First and last day of the series, inclusive, YYYY-MM-DD. */
  from: string;
  to: string;
  /** Rolling window per day; default 28, clamped to 1..365. */
  windowDays?: number;
}

export interface DailyScorePoint {
  day: string;
  score: number;
  pillars: PillarScores;
  coverage: number;
}

function windowLength(days: number | undefined, fallback: number): number {
  if (days === undefined || !Number.isFinite(days)) return fallback;
  return clamp(Math.floor(days), 1, MAX_LOOKBACK_DAYS);
}

/** Known platforms, deduplicated, in canonical order; all platforms seen in the data when none is given. */
function resolvePlatforms(requested: readonly Platform[], snapshots: readonly DailySnapshot[]): Platform[] {
  const wanted = new Set<string>(requested ?? []);
  if (wanted.size === 0) for (const s of snapshots) if (s) wanted.add(s.platform);
  return PLATFORMS.filter((p) => wanted.has(p));
}

interface Evaluation {
  measured: { signals: PlatformSignals; pillars: PillarScores; weight: number }[];
  missing: Platform[];
  coverage: number;
  pillars: PillarScores;
}

function evaluate(
  series: Map<Platform, PlatformSeries>,
  platforms: readonly Platform[],
  start: number,
  end: number,
): Evaluation {
  const signals: PlatformSignals[] = [];
  const missing: Platform[] = [];
  for (const p of platforms) {
    const s = series.get(p);
    const m = s ? measure(s, start, end) : null;
    if (m) signals.push(m);
    else missing.push(p);
  }
  const weights = platformWeights(signals.map((s) => s.followers));
  const measured = signals.map((s, i) => ({
    signals: s,
    pillars: platformPillars(s),
    weight: weights[i] ?? 0,
  }));
  const coverage = platforms.length > 0 ? signals.length / platforms.length : 0;
  return {
    measured,
    missing,
    coverage,
    pillars: workspacePillars(
      measured.map((m) => m.pillars),
      weights,
      coverage,
    ),
  };
}

function rounded(p: PillarScores): PillarScores {
  return {
    presence: round1(p.presence),
    reach: round1(p.reach),
    impact: round1(p.impact),
    sentiment: round1(p.sentiment),
    momentum: round1(p.momentum),
  };
}

/** Score a workspace as of a day over a lookback window. Throws RangeError only for an invalid asOf. */
export function scoreWorkspace(input: ScoreWorkspaceInput): WorkspaceScore {
  const end = requireDay(input.asOf, 'asOf');
  const lookbackDays = windowLength(input.lookbackDays, DEFAULT_LOOKBACK_DAYS);
  const start = end - lookbackDays + 1;
  const snapshots = input.snapshots ?? [];
  const platforms = resolvePlatforms(input.platforms, snapshots);
  const ev = evaluate(buildSeries(snapshots, platforms, start, end), platforms, start, end);

  const score = round1(composite(ev.pillars));
  const pillars = rounded(ev.pillars);
  const pillarGrades = {} as Record<Pillar, PillarGrade>;
  for (const k of PILLARS) pillarGrades[k] = pillarGrade(pillars[k]);

  const rows: PlatformScoreRow[] = ev.measured.map(({ signals, pillars: p, weight }) => {
    const overall = round1(composite(p));
    return {
      platform: signals.platform,
      tier: signals.tier,
      followerCount: Math.round(signals.followers),
      overallScore: overall,
      grade: compositeGrade(overall),
      part1Score: round1(weightedPillars(p, PART1_PILLARS)),
      part2Score: round1(weightedPillars(p, PART2_PILLARS)),
      pillars: rounded(p),
      weight,
    };
  });

  const max = input.maxRecommendations;
  return {
    formulaVersion: FORMULA_VERSION,
    asOf: formatDay(end),
    windowStart: formatDay(start),
    lookbackDays,
    score,
    grade: compositeGrade(score),
    pillars,
    pillarGrades,
    platforms: rows,
    recommendations: recommend(
      ev.measured,
      ev.missing,
      platforms.length,
      lookbackDays,
      max !== undefined && Number.isFinite(max) ? max : DEFAULT_MAX_RECOMMENDATIONS,
    ),
    coverage: ev.coverage,
    platformsMissing: ev.missing,
  };
}

/**
 * Score as of each day from `from` to `to` with a rolling window of `windowDays` days.
 * Point d equals scoreWorkspace({ asOf: d, lookbackDays: windowDays }) for the same snapshots
 * and platforms. The snapshots are indexed once into prefix sums, so the cost is
 * O(snapshots + days x platforms x windowDays / 7), not O(days x windowDays).
 */
export function dailyScoreSeries(input: DailyScoreSeriesInput): DailyScorePoint[] {
  const from = requireDay(input.from, 'from');
  const to = requireDay(input.to, 'to');
  if (from > to) return [];
  const windowDays = windowLength(input.windowDays, DEFAULT_SERIES_WINDOW_DAYS);
  const snapshots = input.snapshots ?? [];
  const platforms = resolvePlatforms(input.platforms, snapshots);
  const series = buildSeries(snapshots, platforms, from - windowDays + 1, to);
  const out: DailyScorePoint[] = [];
  for (let day = from; day <= to; day++) {
    const ev = evaluate(series, platforms, day - windowDays + 1, day);
    out.push({
      day: formatDay(day),
      score: round1(composite(ev.pillars)),
      pillars: rounded(ev.pillars),
      coverage: ev.coverage,
    });
  }
  return out;
}
