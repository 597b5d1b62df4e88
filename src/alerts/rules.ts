// The alert conditions: what each one's parameters are, and whether it holds for a workspace's state
// (docs/alerts.md "Conditions"). Pure: the evaluator (evaluate.ts) reads the state and records the verdicts.
import {
  COMPOSITE_GRADES,
  PILLARS,
  type CompositeGrade,
  type Pillar,
  type PillarScores,
  type Platform,
} from '../core/catalog.ts';
import { addDays } from '../core/days.ts';
import type { ScoreChange } from '../core/workspace-change.ts';
import { DomainError } from '../core/errors.ts';
import type { AlertCondition } from '../infra/db/types.ts';
import type { DailyScorePoint } from '../scoring/daily-scores.ts';
import { round1 } from '../scoring/engine/index.ts';
import type { Static } from 'typebox';
import type { AlertDrivers } from '../webhooks/events.ts';

export type Drivers = Static<typeof AlertDrivers>;
export const DIRECTIONS = ['down', 'up', 'any'] as const;
export type Direction = (typeof DIRECTIONS)[number];

/** The parameters of each condition, as stored in alert_rules.params and returned by the API. */
export interface AlertParams {
  threshold?: number;
  points?: number;
  days?: number;
  pillar?: Pillar;
  direction?: Direction;
}

export type { CrisisState } from '../core/workspace-change.ts';
/** A recorded score, as the evaluator is told about it in the transaction that records it. */
export type AlertScoreChange = ScoreChange;

/** Everything a condition can look at. */
export interface AlertState {
  today: string;
  change: AlertScoreChange | null;
  /** Stored daily scores of the longest look-back any rule needs, oldest first (today's included). */
  daily: DailyScorePoint[];
  connections: Array<{ platform: Platform; handle: string; reason: string | null }>;
}

export interface Verdict {
  firing: boolean;
  summary: string;
  drivers: Drivers;
}

/** The rule's firing episode, as a condition may look at it. */
export interface OpenEpisode {
  drivers: Drivers;
  /** YYYY-MM-DD it fired. */
  triggeredDay: string;
}

export const MAX_DAYS = 90;
const DEFAULTS: Record<AlertCondition, AlertParams> = {
  score_below: {},
  score_drop: { days: 7 },
  pillar_change: { days: 7, direction: 'down' },
  grade_change: { direction: 'down' },
  crisis: {},
  connection_needs_brand: {},
};
const REQUIRED: Record<AlertCondition, Array<keyof AlertParams>> = {
  score_below: ['threshold'],
  score_drop: ['points', 'days'],
  pillar_change: ['pillar', 'points', 'days', 'direction'],
  grade_change: ['direction'],
  crisis: [],
  connection_needs_brand: [],
};

function invalid(parameter: string, detail: string): DomainError<'invalid_parameter'> {
  return new DomainError('invalid_parameter', detail, { parameter, message: detail });
}

/**
 * The stored parameters of a condition: its defaults, then what was given; a parameter the
 * condition needs and lacks, or one it does not use, is a 400 naming it.
 */
export function conditionParams(condition: AlertCondition, given: AlertParams): AlertParams {
  const params: AlertParams = { ...DEFAULTS[condition] };
  for (const key of Object.keys(given) as Array<keyof AlertParams>) {
    if (given[key] === undefined) continue;
    if (!REQUIRED[condition].includes(key)) {
      throw invalid(key, `${key} does not apply to the ${condition} condition.`);
    }
    (params as Record<string, unknown>)[key] = given[key];
  }
  for (const key of REQUIRED[condition]) {
    if (params[key] === undefined) throw invalid(key, `The ${condition} condition needs ${key}.`);
  }
  if (condition === 'grade_change' && params.direction === 'up') {
    throw invalid('direction', 'grade_change watches a grade going down, or any change (direction any).');
  }
  return params;
}

/** Days of stored scores a rule looks back over (0: none). */
export function lookBackDays(condition: AlertCondition, params: AlertParams): number {
  return condition === 'score_drop' || condition === 'pillar_change' ? (params.days ?? 0) : 0;
}

const rank = (g: CompositeGrade) => COMPOSITE_GRADES.indexOf(g);
const fmt = (n: number) => round1(n).toFixed(1);
const signed = (n: number) => `${n >= 0 ? '+' : ''}${fmt(n)}`;

/** Pillar moves from `from` to `to`, largest first, those under 0.1 left out. */
function pillarMoves(
  from: PillarScores | null | undefined,
  to: PillarScores | null | undefined,
): Drivers['pillars'] {
  if (!from || !to) return undefined;
  const moves = PILLARS.map((pillar) => ({ pillar, change: round1(to[pillar] - from[pillar]) }))
    .filter((m) => Math.abs(m.change) >= 0.1)
    .sort((a, b) => Math.abs(b.change) - Math.abs(a.change));
  return moves;
}

function cause(change: AlertScoreChange | null): Drivers {
  if (!change) return {};
  return {
    ...(change.audit_id ? { audit_id: change.audit_id } : {}),
    ...(change.platform ? { platform: change.platform } : {}),
  };
}

function daysBefore(state: AlertState, days: number): DailyScorePoint[] {
  const from = addDays(state.today, -days);
  return state.daily.filter((p) => p.day >= from && p.day < state.today);
}

function currentPillars(state: AlertState): PillarScores | undefined {
  return state.change?.pillars ?? state.daily.find((p) => p.day === state.today)?.pillars;
}

/**
 * Whether the rule's condition holds for `state`; null when the state says nothing about it (no
 * score came with a connection change; no crisis signal with a score of a formula without one).
 * `open`: the rule's firing episode, if any (grade_change resolves against the grade it fell from,
 * score_drop against the high it fell from while that is in the look-back).
 */
export function evaluateCondition(
  condition: AlertCondition,
  params: AlertParams,
  state: AlertState,
  open: OpenEpisode | null,
): Verdict | null {
  const change = state.change;
  if (condition === 'connection_needs_brand') {
    const n = state.connections.length;
    const list = state.connections.map((c) => `${c.platform} ${c.handle}`).join(', ');
    return {
      firing: n > 0,
      summary:
        n > 0
          ? `${n === 1 ? 'A connection needs' : `${n} connections need`} the brand to connect again: ${list}.`
          : 'Every connection is usable again.',
      drivers: { connections: state.connections },
    };
  }
  if (!change) return null;
  const score = round1(change.score);
  switch (condition) {
    case 'score_below': {
      const threshold = params.threshold!;
      const firing = change.score < threshold;
      return {
        firing,
        summary: firing
          ? `The score is ${fmt(score)}, below ${fmt(threshold)}.`
          : `The score is ${fmt(score)}, at or above ${fmt(threshold)} again.`,
        drivers: {
          score,
          threshold,
          grade: change.grade,
          ...(change.previous_score !== null ? { previous_score: round1(change.previous_score) } : {}),
          pillars: pillarMoves(change.previous_pillars, currentPillars(state)),
          ...cause(change),
        },
      };
    }
    case 'score_drop': {
      const days = params.days!;
      const points = params.points!;
      let peak: { score: number; day?: string; pillars?: PillarScores | null } | null =
        change.previous_score !== null
          ? { score: change.previous_score, pillars: change.previous_pillars ?? null }
          : null;
      for (const p of daysBefore(state, days)) {
        if (!peak || p.score > peak.score) peak = { score: p.score, day: p.day, pillars: p.pillars };
      }
      // The high an open episode fell from counts while it is inside the look-back, even where its
      // day's stored score was since replaced (several scores recorded in one day).
      const openDay = open?.drivers.peak_day ?? open?.triggeredDay;
      const openPeak = open?.drivers.peak_score;
      if (openPeak !== undefined && openDay !== undefined && openDay >= addDays(state.today, -days)) {
        if (!peak || openPeak > peak.score) {
          peak = { score: openPeak, ...(open!.drivers.peak_day ? { day: open!.drivers.peak_day } : {}) };
        }
      }
      if (!peak) return null;
      const drop = round1(peak.score - change.score);
      const firing = drop >= points - 1e-9;
      return {
        firing,
        summary: firing
          ? `The score fell ${fmt(drop)} points in ${days} days (${fmt(peak.score)}${peak.day ? ` on ${peak.day}` : ''} to ${fmt(score)}).`
          : `The score is back within ${fmt(points)} points of its ${days}-day high (${fmt(score)}, high ${fmt(peak.score)}).`,
        drivers: {
          score,
          peak_score: round1(peak.score),
          ...(peak.day ? { peak_day: peak.day } : {}),
          drop,
          days,
          grade: change.grade,
          pillars: pillarMoves(peak.pillars, currentPillars(state)),
          ...cause(change),
        },
      };
    }
    case 'pillar_change': {
      const pillar = params.pillar!;
      const current = currentPillars(state);
      const earlier = daysBefore(state, params.days!)[0]?.pillars ?? change.previous_pillars ?? null;
      if (!current || !earlier) return null;
      const delta = round1(current[pillar] - earlier[pillar]);
      const size = params.points!;
      const firing =
        params.direction === 'up'
          ? delta >= size - 1e-9
          : params.direction === 'down'
            ? delta <= -size + 1e-9
            : Math.abs(delta) >= size - 1e-9;
      return {
        firing,
        summary: firing
          ? `${pillar} moved ${signed(delta)} points in ${params.days} days (${fmt(earlier[pillar])} to ${fmt(current[pillar])}).`
          : `${pillar} moved ${signed(delta)} points in ${params.days} days, inside ${fmt(size)}.`,
        drivers: {
          pillar,
          pillar_score: round1(current[pillar]),
          reference_pillar_score: round1(earlier[pillar]),
          pillar_change: delta,
          days: params.days!,
          score,
          pillars: pillarMoves(earlier, current),
          ...cause(change),
        },
      };
    }
    case 'grade_change': {
      const from = open?.drivers.previous_grade ?? change.previous_grade;
      if (!from) return null;
      const firing = params.direction === 'any' ? change.grade !== from : rank(change.grade) > rank(from);
      return {
        firing,
        summary: firing
          ? `The grade went from ${from} to ${change.grade} (score ${fmt(score)}).`
          : `The grade is ${change.grade} again (score ${fmt(score)}).`,
        drivers: {
          grade: change.grade,
          previous_grade: from,
          score,
          ...(change.previous_score !== null ? { previous_score: round1(change.previous_score) } : {}),
          pillars: pillarMoves(change.previous_pillars, currentPillars(state)),
          ...cause(change),
        },
      };
    }
    case 'crisis': {
      const crisis = change.crisis;
      if (!crisis) return null;
      const pct = (x: number) => `${Math.round(x * 100)}%`;
      return {
        firing: crisis.active,
        summary: crisis.active
          ? `A crisis is running since ${crisis.since ?? 'this week'}: ${pct(crisis.negative_share)} of the conversation is negative (usually ${pct(crisis.baseline_negative_share)}), at ${crisis.volume_ratio.toFixed(1)}x the usual volume.`
          : `The crisis signal cleared: ${pct(crisis.negative_share)} of the conversation is negative (usually ${pct(crisis.baseline_negative_share)}).`,
        drivers: { crisis, score, ...cause(change) },
      };
    }
  }
}
