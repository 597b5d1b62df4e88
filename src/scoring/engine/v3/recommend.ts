/**
 * Formula v3's recommendations (docs/scoring.md, "Explanations"): built from the account's own
 * readings (./explain.ts), each naming the metric, its value, the median account's value and what
 * reaching it would give, so that no advice contradicts the numbers it stands on:
 * - only a pillar whose whole 90% interval lies below 50 is advised on (sentiment also during a crisis);
 * - only a reading below the median account's value is named, and only what moves it: posting more
 *   often when the posts a week fall short, making posts draw views when the post-day lift does, a
 *   trend only when it fell at least MIN_TREND_NAMED;
 * - the value is printed rounded down and the median rounded up, so rounding cannot turn "below" into
 *   "at";
 * - during a crisis the sentiment advice comes first, with the crisis figures, and no impact advice is
 *   given (engagement per view falls because the talk turned).
 */
import { METRIC_NAMES, PILLARS, PLATFORM_NAMES, type Pillar, type Platform } from '../../../core/catalog.ts';
import { PILLAR_WEIGHTS } from '../pillars.ts';
import type { Interval } from '../v2/types.ts';
import { modelOf, type Term } from './explain.ts';
import type { CrisisSignal, DriverMetric, RecommendationV3, ScoreDriver } from './types.ts';

/** A trend is named as a fall only from this size (a 5% change per 28 days); smaller ones are noise. */
export const MIN_TREND_NAMED = 0.05;
/** Advice whose gain rounds to 0.0 points is not given. */
const MIN_GAIN = 0.05;
const DEFAULT_MAX = 5;

const down = (x: number, d: number) => (Math.floor(x * 10 ** d + 1e-9) / 10 ** d).toFixed(d);
const up = (x: number, d: number) => (Math.ceil(x * 10 ** d - 1e-9) / 10 ** d).toFixed(d);
const signed = (s: string) => (s.startsWith('-') ? s : `+${s}`);

/** The advice for one reading below the median account's value. */
function actionOf(metric: DriverMetric, platform: Platform, value: number, median: number): string {
  const p = PLATFORM_NAMES[platform];
  const size = 'the median account of its size';
  switch (metric) {
    case 'posts_per_week':
      return `Post more often on ${p}: ${down(value, 1)} posts a week against ${up(median, 1)} for ${size}`;
    case 'post_view_lift':
      return value > 0
        ? `Make posts on ${p} draw views: post days get ${down(100 * value, 0)}% more views than days without a post; from ${up(100 * median, 0)}% every post counts in full`
        : `Make posts on ${p} draw views: post days get no more views than days without a post; from ${up(100 * median, 0)}% more every post counts in full`;
    case 'views_per_follower_day':
      return `Grow views on ${p}: ${down(100 * value, 1)} views a day per 100 followers against ${up(100 * median, 1)} for ${size}`;
    case 'monthly_growth':
      return value >= 0
        ? `Grow the audience on ${p}: followers grew ${down(100 * value, 2)}% a month against ${up(100 * median, 2)}% for ${size}`
        : `Grow the audience on ${p}: followers fell ${up(-100 * value, 2)}% a month against a growth of ${up(100 * median, 2)}% for ${size}`;
    case 'engagement_per_view':
      return `Raise engagement per view on ${p}: ${down(100 * value, 2)}% of views engage against ${up(100 * median, 2)}% for ${size}`;
    case 'engagement_per_follower_day':
      return `Raise engagement on ${p}: ${down(100 * value, 3)}% of followers engage a day against ${up(100 * median, 3)}% for ${size}`;
    case 'net_sentiment':
      return `Address negative conversation on ${p}: net sentiment (positive minus negative share of comments and mentions) ${signed(down(value, 2))} against ${signed(up(median, 2))} for the median account`;
    case 'engagement_trend':
      return `Reverse the fall in engagement on ${p}: likes, shares and saves per follower fell ${down(-100 * value, 0)}% in the last 28 days against the weeks before (the median account's are flat)`;
    case 'views_trend':
      return `Reverse the fall in views on ${p}: views per follower fell ${down(-100 * value, 0)}% in the last 28 days against the weeks before (the median account's are flat)`;
    case 'recent_net_sentiment':
      return `Turn the last week's conversation on ${p} around: its net sentiment ${signed(down(value, 2))} is below ${signed(up(median, 2))}, where it starts to lower momentum`;
    default:
      return `Improve ${metric} on ${p}`;
  }
}

function crisisAction(platform: Platform, crisis: CrisisSignal, value: number, median: number): string {
  const p = PLATFORM_NAMES[platform];
  return `Address the negative conversation on ${p} first: ${Math.round(100 * crisis.negative_share)}% of the last week's comments and mentions across platforms are negative against ${Math.round(100 * crisis.baseline_negative_share)}% over the 90 days before${crisis.since ? ` (since ${crisis.since})` : ''}; net sentiment on ${p} is ${signed(down(value, 2))} against ${signed(up(median, 2))} for the median account`;
}

/** A reading's name in "at the median account's ...": a trend's median is flat. */
const label = (metric: DriverMetric): string =>
  metric === 'engagement_trend' || metric === 'views_trend'
    ? `${METRIC_NAMES[metric]} (flat)`
    : METRIC_NAMES[metric];

interface Candidate {
  pillar: Pillar;
  term: Term;
  value: number;
  median: number;
  gain: number;
}

/** Recommendations of a v3 result from its drivers (module doc); at most `maxRecommendations` (default 5). */
export function recommendV3(
  result: {
    drivers: readonly ScoreDriver[];
    pillarIntervals: Record<Pillar, Interval>;
    crisis: CrisisSignal;
  },
  maxRecommendations?: number,
): RecommendationV3[] {
  const max =
    maxRecommendations !== undefined && Number.isFinite(maxRecommendations)
      ? maxRecommendations
      : DEFAULT_MAX;
  const { crisis, pillarIntervals } = result;
  const model = modelOf(result.drivers);
  const readingOf = (pillar: Pillar, t: Term) =>
    result.drivers
      .find((d) => d.pillar === pillar && d.platform === t.platform)
      ?.readings.find((r) => r.metric === t.metric);
  const candidates: Candidate[] = [];
  let crisisCandidate: Candidate | null = null;
  for (const g of model.groups) {
    const advised = pillarIntervals[g.pillar].high < 50 || (g.pillar === 'sentiment' && crisis.active);
    if (!advised || (crisis.active && g.pillar === 'impact')) continue;
    const U = g.terms.reduce((s, t) => s + t.u, 0);
    for (const t of g.terms) {
      const r = readingOf(g.pillar, t);
      if (!r || t.platform === null) continue;
      // The gain of this reading at the median account's value (its term 0), all else as measured.
      const gain = PILLAR_WEIGHTS[g.pillar] * g.weight * g.cf * (g.f(U - t.u) - g.f(U));
      const c = { pillar: g.pillar, term: t, value: r.value, median: r.median, gain };
      if (g.pillar === 'sentiment' && crisis.active && (!crisisCandidate || t.u < crisisCandidate.term.u))
        crisisCandidate = c;
      if (!(t.u < 0) || !(r.value < r.median)) continue;
      if ((t.metric === 'engagement_trend' || t.metric === 'views_trend') && !(r.value <= -MIN_TREND_NAMED))
        continue;
      if (t.metric === 'recent_net_sentiment' && crisis.active) continue;
      candidates.push(c);
    }
  }
  const ranked = candidates
    .filter((c) => c !== crisisCandidate && c.gain >= MIN_GAIN)
    .sort(
      (x, y) =>
        y.gain - x.gain ||
        PILLARS.indexOf(x.pillar) - PILLARS.indexOf(y.pillar) ||
        x.term.metric.localeCompare(y.term.metric),
    );
  const out: RecommendationV3[] = [];
  const push = (c: Candidate, action: string) =>
    out.push({
      priority: out.length + 1,
      pillar: c.pillar,
      action,
      expected_impact: `+${Math.max(0, c.gain).toFixed(1)} points on the score at the median account's ${label(c.term.metric)}`,
      platform: c.term.platform!,
      metric: c.term.metric,
      value: c.value,
      median: c.median,
      gain: Math.round(Math.max(0, c.gain) * 100) / 100,
    });
  if (crisisCandidate)
    push(
      crisisCandidate,
      crisisAction(crisisCandidate.term.platform!, crisis, crisisCandidate.value, crisisCandidate.median),
    );
  for (const c of ranked) push(c, actionOf(c.term.metric, c.term.platform!, c.value, c.median));
  return out.slice(0, Math.max(0, max));
}
