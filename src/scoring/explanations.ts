// Why a formula v3 score is what it is, and what moved it, as the API, score.changed and the dashboard
// give it (docs/scoring.md "Why the score is what it is"): the engine's drivers (engine/v3/explain.ts)
// ranked by the size of their points, each with a plain sentence. One definition for a live score, a
// stored audit and the event, so they read alike.
import type { Static } from 'typebox';
import {
  METRIC_NAMES,
  PILLARS,
  PLATFORM_NAMES,
  PLATFORMS,
  type DriverMetric,
  type Pillar,
  type Platform,
} from '../core/catalog.ts';
import type { ChangeExplanationData, ChangeDriverData, ScoreDriverData } from '../infra/http/schemas.ts';
import { explainChange, scoreDrivers, type ScoreDriver } from './engine/index.ts';

export type ScoreDriverView = Static<typeof ScoreDriverData>;
export type ChangeDriverView = Static<typeof ChangeDriverData>;
export type ChangeExplanation = Static<typeof ChangeExplanationData>;

/** Drivers listed in a change's explanation; the rest are summed in `other_points`. */
export const EXPLAINED_CHANGE_DRIVERS = 5;

/** Points below this size round to 0.0 and are said to have no effect. */
const NO_EFFECT = 0.05;

const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const fixed = (x: number, d: number) => {
  const s = x.toFixed(d);
  return Number(s) === 0 ? (0).toFixed(d) : s;
};
const signed = (x: number, d: number) => {
  const s = fixed(x, d);
  return s.startsWith('-') || Number(s) === 0 ? s : `+${s}`;
};
const pct = (x: number, d = 0) => `${fixed(100 * x, d)}%`;

/** A value of `metric` as a sentence quotes it: the figure, and the unit that follows it. */
function figure(metric: DriverMetric, value: number): { n: string; unit: string } {
  switch (metric) {
    case 'posts_per_week':
      return { n: fixed(value, 1), unit: ' posts a week' };
    case 'post_view_lift':
      return { n: pct(value), unit: ' more views on post days' };
    case 'views_per_follower_day':
      return { n: fixed(100 * value, 1), unit: ' views a day per 100 followers' };
    case 'monthly_growth':
      return { n: `${signed(100 * value, 2)}%`, unit: ' followers a month' };
    case 'engagement_per_view':
      return { n: pct(value, 2), unit: ' of views engaging' };
    case 'engagement_per_follower_day':
      return { n: pct(value, 3), unit: ' of followers engaging a day' };
    case 'net_sentiment':
    case 'recent_net_sentiment':
      return { n: signed(value, 2), unit: '' };
    case 'engagement_trend':
    case 'views_trend':
      return Math.abs(value) < 0.005
        ? { n: 'flat', unit: '' }
        : { n: `${signed(100 * value, 0)}%`, unit: ' in 28 days' };
    case 'coverage':
      return { n: pct(value), unit: ' of the requested platforms with data' };
    case 'platform_weight':
    case 'conversation_share':
      // Only in a change, whose sentence names the weight or the share.
      return { n: pct(value), unit: '' };
  }
}

/** A value of `metric` with its unit. */
export function quantity(metric: DriverMetric, value: number): string {
  const f = figure(metric, value);
  return f.n + f.unit;
}

/** "A against B" or "from A to B": the unit once, after the second figure (or after both when they differ). */
function pair(metric: DriverMetric, a: number, b: number, word: string): string {
  const x = figure(metric, a);
  const y = figure(metric, b);
  return x.unit === y.unit ? `${x.n}${word}${y.n}${y.unit}` : `${x.n}${x.unit}${word}${y.n}${y.unit}`;
}

/** "net sentiment on Instagram"; coverage has no platform. */
function subject(metric: DriverMetric, platform: Platform | null): string {
  return platform === null ? METRIC_NAMES[metric] : `${METRIC_NAMES[metric]} on ${PLATFORM_NAMES[platform]}`;
}

function effect(points: number): string {
  if (Math.abs(points) < NO_EFFECT) return 'no effect on the score';
  return points > 0
    ? `lifts the score ${fixed(points, 1)} points`
    : `holds the score back ${fixed(-points, 1)} points`;
}

/** One sentence for one reading of a score. */
export function driverText(d: {
  metric: DriverMetric;
  platform: Platform | null;
  value: number;
  median: number;
  points: number;
}): string {
  const { metric, value, median, points } = d;
  if (metric === 'coverage') return `${capital(quantity(metric, value))}: ${effect(points)}.`;
  if (metric === 'recent_net_sentiment')
    return `${capital(subject(metric, d.platform))} is ${quantity(metric, value)}, ${value < median ? 'below' : 'not below'} ${quantity(metric, median)} where it starts to lower momentum: ${effect(points)}.`;
  return `${capital(subject(metric, d.platform))}: ${quantity(metric, value)} against ${figure(metric, median).n} for the median account of its platform and size; ${effect(points)}.`;
}

const platformOrder = (p: Platform | null) => (p === null ? PLATFORMS.length : PLATFORMS.indexOf(p));
/** Largest effect first; ties in pillar, then platform, then metric order. */
const rank = <T extends { points: number; pillar: Pillar; platform: Platform | null; metric: DriverMetric }>(
  x: T,
  y: T,
) =>
  Math.abs(y.points) - Math.abs(x.points) ||
  PILLARS.indexOf(x.pillar) - PILLARS.indexOf(y.pillar) ||
  platformOrder(x.platform) - platformOrder(y.platform) ||
  x.metric.localeCompare(y.metric);

/**
 * A score's drivers as the API gives them: every reading, largest effect first (what lifts the score
 * and what holds it back), each with its sentence. Empty when nothing was measured.
 */
export function driversView(drivers: readonly ScoreDriver[]): ScoreDriverView[] {
  return scoreDrivers({ drivers: [...drivers] })
    .map((r) => ({
      pillar: r.pillar,
      platform: r.platform,
      metric: r.metric,
      value: r.value,
      median: r.median,
      points: r.points,
      text: driverText(r),
    }))
    .sort(rank);
}

/** A stored drivers column: the engine's drivers, or null where none were stored. */
export function storedDrivers(column: unknown): ScoreDriver[] | null {
  return Array.isArray(column) ? (column as ScoreDriver[]) : null;
}

/**
 * `drivers` of a score as the API gives it: on a v3 score (a baseline version) the ranked drivers, or
 * null where they were not stored with it; nothing for a score of an earlier formula.
 */
export function driversField(
  drivers: readonly ScoreDriver[] | null,
  baselineVersion: string | null,
): { drivers?: ScoreDriverView[] | null } {
  if (baselineVersion === null) return {};
  return { drivers: drivers ? driversView(drivers) : null };
}

/** What a part of a change is about: a reading, or a platform's weight or share of the conversation. */
function changeSubject(d: { pillar: Pillar; metric: DriverMetric; platform: Platform | null }): string {
  if (d.platform !== null && d.metric === 'platform_weight')
    return `${PLATFORM_NAMES[d.platform]}'s weight in ${d.pillar} (its share of the engaged audience)`;
  if (d.platform !== null && d.metric === 'conversation_share')
    return `${PLATFORM_NAMES[d.platform]}'s share of the conversation`;
  return subject(d.metric, d.platform);
}

/** One sentence for one part of a change. */
export function changeText(d: {
  pillar: Pillar;
  metric: DriverMetric;
  platform: Platform | null;
  before: number | null;
  after: number | null;
  points: number;
}): string {
  const { metric, before, after } = d;
  const moved =
    before !== null && after !== null && after !== before ? (after > before ? 'rose' : 'fell') : 'went';
  const span =
    before !== null && after !== null
      ? `from ${pair(metric, before, after, ' to ')}`
      : before !== null
        ? `from ${quantity(metric, before)} to none`
        : after !== null
          ? `from none to ${quantity(metric, after)}`
          : 'to none';
  return `${capital(changeSubject(d))} ${moved} ${span}: ${signed(d.points, 1)} points.`;
}

/**
 * What moved a v3 score from `before` to `after` (explainChange on their drivers): the largest parts
 * with their sentences, the rest summed, and the rounding; null when the previous score's drivers were
 * not stored.
 */
export function changeExplanation(
  before: { score: number; drivers: readonly ScoreDriver[] | null },
  after: { score: number; drivers: readonly ScoreDriver[] },
): ChangeExplanation | null {
  if (!before.drivers) return null;
  const change = explainChange(
    { score: before.score, drivers: [...before.drivers] },
    { score: after.score, drivers: [...after.drivers] },
  );
  const drivers = change.drivers.slice(0, EXPLAINED_CHANGE_DRIVERS).map((d) => ({
    pillar: d.pillar,
    platform: d.platform,
    metric: d.metric,
    before: d.before,
    after: d.after,
    median: d.median,
    points: d.points,
    text: changeText(d),
  }));
  const rest = change.drivers.slice(EXPLAINED_CHANGE_DRIVERS).reduce((t, d) => t + d.points, 0);
  const direction =
    change.change > 0
      ? `rose ${fixed(change.change, 1)} points`
      : change.change < 0
        ? `fell ${fixed(-change.change, 1)} points`
        : 'did not move';
  const parts = drivers
    .slice(0, 2)
    .map((d) => `${changeSubject(d)} (${signed(d.points, 1)})`)
    .join(' and ');
  return {
    summary: `The score ${direction}, from ${fixed(change.before, 1)} to ${fixed(change.after, 1)}${parts ? `; the largest parts: ${parts}` : ''}.`,
    drivers,
    other_points: Math.round(rest * 100) / 100,
    rounding: change.rounding,
  };
}
