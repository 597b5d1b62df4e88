/**
 * Explanations of formula v3 (docs/scoring.md, "Explanations"): every pillar on every platform with
 * the readings (measured inputs) that produced it against the median account's values, and the
 * drivers of a change between two scores. Pure, no database.
 *
 * Each pillar is 50 (the median account) plus terms of its readings put through the pillar's own
 * curve, so the readings reproduce the score: the composite is
 *   50 + sum over groups of PILLAR_WEIGHTS[pillar] x scale x f(sum of the group's terms u)
 *      - PILLAR_WEIGHTS.presence x 50 x (1 - coverage factor)
 * where a group is one curve of one pillar on one platform (scale: the platform's weight, times the
 * coverage factor for presence) or the pooled conversation (sentiment), and a term is 0 for a reading
 * at the median account's value:
 * - presence: 100 (sigmoid(u) - 1/2), u = ln(posts a week / median) + ln(post credit);
 * - reach: 60 (sigmoid(u) - 1/2) on ln(views per follower / median) and 40 (growthScore - 1/2) on
 *   growth in units of the median's (100 when views are not scored);
 * - impact: 100 (sigmoid(u) - 1/2), u = ln(engagement rate / median);
 * - sentiment: 50 tanh(u / 0.5), u = sum over platforms of share x (net - median net);
 * - momentum: 50 tanh(u / 2 ln 2), u = 0.4 engagement trend + 0.3 views trend + 0.3 sentiment shift.
 * A group's points are split among its terms in proportion to them (for a change, to their changes),
 * which is exact because each curve is monotone in the sum of its terms.
 */
import { PILLARS, PLATFORMS, type Pillar, type Platform } from '../../../core/catalog.ts';
import { coverageFactor, PILLAR_WEIGHTS } from '../pillars.ts';
import { MEDIAN_NET_SENTIMENT } from '../v2/baselines.ts';
import {
  MOMENTUM_SCALE,
  REACH_WEIGHTS_V2,
  SENTIMENT_SCALE,
  TREND_CAP,
  TYPICAL_POST_LIFT,
} from '../v2/constants.ts';
import type { MeasuredPlatform } from '../v2/score.ts';
import { MOMENTUM_WEIGHTS, SENTIMENT_BAND } from './constants.ts';
import type {
  ChangeDriver,
  DriverMetric,
  MetricReading,
  ScoreChange,
  ScoreDriver,
  WorkspaceScoreV3,
} from './types.ts';

/** A ratio is floored here before its log, so a reading of zero has a finite term (its curve is then 0 within 1e-7). */
const TINY = 1e-9;
const LN3 = Math.log(3);

/** Six significant digits: what a reading keeps (enough to reproduce the pillars within 1e-4). */
function sig(x: number): number {
  if (!Number.isFinite(x)) return 0;
  const r = Number(x.toPrecision(6));
  return r === 0 ? 0 : r;
}
function round2(x: number): number {
  const r = Math.round(x * 100) / 100;
  return r === 0 ? 0 : r;
}
const round1 = (x: number): number => {
  const r = Math.round(x * 10) / 10;
  return r === 0 ? 0 : r;
};
const ln = (ratio: number): number => Math.log(Math.max(ratio, TINY));
const sigmoid = (u: number): number => 1 / (1 + Math.exp(-u));

/** What the engine hands over besides v2's evaluation: sentiment's pooled conversation and momentum's signals. */
export interface DriverSources {
  measured: readonly MeasuredPlatform[];
  coverage: number;
  /** Each platform's share of the pooled conversation and its net (null without classified items). */
  sentiment: readonly { platform: Platform; share: number; net: number | null }[];
  /** Momentum's signals of each platform (absent when the window is too short to have a trend). */
  momentum: readonly {
    platform: Platform;
    weight: number;
    /** Log change per 28 days, shrunk by its noise. */
    engagementTrend: number;
    viewsTrend: number;
    /** Net sentiment of the last 7 days, shrunk to the median. */
    recentNet: number;
  }[];
}

/** The drivers of a score: every pillar on every platform with its readings and their points. */
export function driversOf(src: DriverSources): ScoreDriver[] {
  if (src.measured.length === 0) return [];
  const reading = (metric: DriverMetric, value: number, median: number): MetricReading => ({
    metric,
    value: sig(value),
    median: sig(median),
    points: 0,
  });
  const drivers: ScoreDriver[] = [];
  for (const m of src.measured) {
    const r = m.readings;
    const weight = sig(m.weight);
    const presence = [reading('posts_per_week', r.postsPerWeek, r.postsMedian)];
    if (r.postLift !== null) presence.push(reading('post_view_lift', r.postLift, TYPICAL_POST_LIFT));
    drivers.push({ pillar: 'presence', platform: m.platform, weight, readings: presence });
    const reach: MetricReading[] = [];
    if (r.viewsPerFollowerDay !== null)
      reach.push(reading('views_per_follower_day', r.viewsPerFollowerDay, r.viewsMedian));
    if (r.monthlyLogGrowth !== null)
      reach.push(reading('monthly_growth', Math.expm1(r.monthlyLogGrowth), r.growthMedian));
    drivers.push({ pillar: 'reach', platform: m.platform, weight, readings: reach });
    const rate = r.engagementBasis === 'view' ? 'engagement_per_view' : 'engagement_per_follower_day';
    drivers.push({
      pillar: 'impact',
      platform: m.platform,
      weight,
      readings: [reading(rate, r.engagementRate, r.engagementMedian)],
    });
  }
  for (const s of src.sentiment)
    if (s.net !== null)
      drivers.push({
        pillar: 'sentiment',
        platform: s.platform,
        weight: sig(s.share),
        readings: [reading('net_sentiment', s.net, MEDIAN_NET_SENTIMENT)],
      });
  for (const m of src.momentum)
    drivers.push({
      pillar: 'momentum',
      platform: m.platform,
      weight: sig(m.weight),
      readings: [
        reading('engagement_trend', Math.expm1(m.engagementTrend), 0),
        reading('views_trend', Math.expm1(m.viewsTrend), 0),
        reading('recent_net_sentiment', m.recentNet, MEDIAN_NET_SENTIMENT - SENTIMENT_BAND),
      ],
    });
  if (src.coverage < 1)
    drivers.push({
      pillar: 'presence',
      platform: null,
      weight: 1,
      readings: [reading('coverage', src.coverage, 1)],
    });
  drivers.sort(
    (a, b) =>
      PILLARS.indexOf(a.pillar) - PILLARS.indexOf(b.pillar) ||
      platformOrder(a.platform) - platformOrder(b.platform),
  );
  // Points of each reading: its group's points split in proportion to the terms.
  const model = modelOf(drivers);
  const points = new Map<string, number>();
  for (const g of model.groups) {
    const U = sum(g.terms.map((t) => t.u));
    const total = PILLAR_WEIGHTS[g.pillar] * g.weight * g.cf * g.f(U);
    for (const t of g.terms) {
      const k = key(g.pillar, t.platform, t.metric);
      points.set(k, (points.get(k) ?? 0) + (U === 0 ? 0 : (total * t.u) / U));
    }
  }
  points.set(key('presence', null, 'coverage'), -PILLAR_WEIGHTS.presence * 50 * (1 - model.cf));
  for (const d of drivers)
    for (const x of d.readings) x.points = round2(points.get(key(d.pillar, d.platform, x.metric)) ?? 0);
  return drivers;
}

/** A score's readings in one list, lowest points first (what holds the score down, then what lifts it). */
export function scoreDrivers(
  result: Pick<WorkspaceScoreV3, 'drivers'>,
): (MetricReading & { pillar: Pillar; platform: Platform | null })[] {
  return result.drivers
    .flatMap((d) => d.readings.map((r) => ({ pillar: d.pillar, platform: d.platform, ...r })))
    .sort((a, b) => a.points - b.points);
}

/**
 * Why the composite moved from `before` to `after`: the readings, platform weights and coverage whose
 * changes account for it, largest part first, each with its value before and after and its points;
 * the points and `rounding` sum to the change.
 */
export function explainChange(
  before: Pick<WorkspaceScoreV3, 'score' | 'drivers'>,
  after: Pick<WorkspaceScoreV3, 'score' | 'drivers'>,
): ScoreChange {
  const change = round1(after.score - before.score);
  if (before.drivers.length === 0 || after.drivers.length === 0) {
    // Nothing measured on one side (no platform had data): the whole change is coverage's.
    const cov = (r: typeof before) =>
      r.drivers.length === 0 ? 0 : (r.drivers.find((d) => d.platform === null)?.readings[0]?.value ?? 1);
    const points = round2(change);
    return {
      before: before.score,
      after: after.score,
      change,
      drivers:
        points === 0
          ? []
          : [
              {
                pillar: 'presence',
                platform: null,
                metric: 'coverage',
                before: cov(before),
                after: cov(after),
                median: 1,
                points,
              },
            ],
      rounding: 0,
    };
  }
  const mb = modelOf(before.drivers);
  const ma = modelOf(after.drivers);
  const parts = new Map<string, ChangeDriver>();
  const add = (pillar: Pillar, platform: Platform | null, metric: DriverMetric, points: number) => {
    if (points === 0 || !Number.isFinite(points)) return;
    const k = key(pillar, platform, metric);
    const p = parts.get(k);
    if (p) p.points += points;
    else parts.set(k, { pillar, platform, metric, before: null, after: null, median: null, points });
  };
  const keys = new Set([...mb.groups.map((g) => g.key), ...ma.groups.map((g) => g.key)]);
  for (const gk of keys) {
    const gb = mb.groups.find((g) => g.key === gk);
    const ga = ma.groups.find((g) => g.key === gk);
    const any = (ga ?? gb)!;
    const W = PILLAR_WEIGHTS[any.pillar];
    // A side without the group: the platform absent (weight 0, curve as the other side's) or the
    // group's readings absent on a present platform (its terms 0: the median account's).
    const side = (g: Group | undefined, m: Model) => {
      if (g) return { weight: g.weight, cf: g.cf, terms: g.terms, f: g.f, present: true };
      // The pooled conversation without classified items is the median account's (the prior).
      if (any.platform === null) return { weight: 1, cf: 1, terms: [], f: any.f, present: true };
      const w = m.weights.get(key(any.pillar, any.platform, 'platform_weight'));
      return {
        weight: w ?? 0,
        cf: any.pillar === 'presence' ? m.cf : 1,
        terms: [],
        f: any.f,
        present: w !== undefined,
      };
    };
    const b = side(gb, mb);
    const a = side(ga, ma);
    const uOf = (terms: Term[], t: Term) =>
      terms.find((x) => x.platform === t.platform && x.metric === t.metric)?.u ?? 0;
    const termKeys = [...(gb?.terms ?? []), ...(ga?.terms ?? [])].filter(
      (t, i, all) => all.findIndex((x) => x.platform === t.platform && x.metric === t.metric) === i,
    );
    const Ub = sum(b.terms.map((t) => t.u));
    const Ua = sum(a.terms.map((t) => t.u));
    let Fb = b.f(Ub);
    let Fa = a.f(Ua);
    if (!b.present) Fb = Fa;
    if (!a.present) Fa = Fb;
    // d(scale x F) = mean(scale) dF + mean(F) d(scale), and d(weight x cf) = mean(cf) dw + mean(w) dcf.
    const dF = Fa - Fb;
    const meanScale = (b.weight * b.cf + a.weight * a.cf) / 2;
    const meanF = (Fa + Fb) / 2;
    const dU = Ua - Ub;
    if (dF !== 0) {
      const moved = termKeys
        .map((t) => ({ t, du: uOf(a.terms, t) - uOf(b.terms, t) }))
        .filter((x) => x.du !== 0);
      if (Math.abs(dU) > 1e-12 && moved.length > 0)
        for (const { t, du } of moved) splitTerm(add, any.pillar, t, W * meanScale * dF * (du / dU), gb, ga);
      else {
        // The curve itself changed (reach's growth weighs 100 without views): to its largest term.
        const t = [...termKeys].sort((x, y) => Math.abs(uOf(a.terms, y)) - Math.abs(uOf(a.terms, x)))[0];
        if (t) add(any.pillar, t.platform, t.metric, W * meanScale * dF);
      }
    }
    if (any.pillar !== 'sentiment') {
      add(
        any.pillar,
        any.platform,
        'platform_weight',
        W * meanF * ((b.cf + a.cf) / 2) * (a.weight - b.weight),
      );
      add('presence', null, 'coverage', W * meanF * ((b.weight + a.weight) / 2) * (a.cf - b.cf));
    }
  }
  add('presence', null, 'coverage', PILLAR_WEIGHTS.presence * 50 * (ma.cf - mb.cf));
  // Values before and after.
  const valueOf = (
    ds: readonly ScoreDriver[],
    d: ChangeDriver,
  ): { value: number; median: number | null } | null => {
    if (d.metric === 'platform_weight' || d.metric === 'conversation_share') {
      const pillar = d.metric === 'conversation_share' ? 'sentiment' : d.pillar;
      const x = ds.find((y) => y.pillar === pillar && y.platform === d.platform);
      return x ? { value: x.weight, median: null } : null;
    }
    if (d.metric === 'coverage') {
      const x = ds.find((y) => y.platform === null)?.readings[0];
      return x ? { value: x.value, median: x.median } : { value: 1, median: 1 };
    }
    const r = ds
      .find((y) => y.pillar === d.pillar && y.platform === d.platform)
      ?.readings.find((x) => x.metric === d.metric);
    return r ? { value: r.value, median: r.median } : null;
  };
  const drivers: ChangeDriver[] = [];
  for (const d of parts.values()) {
    const points = round2(d.points);
    if (points === 0) continue;
    const vb = valueOf(before.drivers, d);
    const va = valueOf(after.drivers, d);
    drivers.push({
      ...d,
      before: vb?.value ?? null,
      after: va?.value ?? null,
      median: va?.median ?? vb?.median ?? null,
      points,
    });
  }
  drivers.sort(
    (x, y) =>
      Math.abs(y.points) - Math.abs(x.points) ||
      PILLARS.indexOf(x.pillar) - PILLARS.indexOf(y.pillar) ||
      platformOrder(x.platform) - platformOrder(y.platform) ||
      x.metric.localeCompare(y.metric),
  );
  return {
    before: before.score,
    after: after.score,
    change,
    drivers,
    rounding: round2(change - sum(drivers.map((d) => d.points))),
  };
}

/** Sentiment's term is share x (net - median): its change splits into the net's and the share's. */
function splitTerm(
  add: (pillar: Pillar, platform: Platform | null, metric: DriverMetric, points: number) => void,
  pillar: Pillar,
  t: Term,
  points: number,
  gb: Group | undefined,
  ga: Group | undefined,
): void {
  if (pillar !== 'sentiment' || t.share === undefined) {
    add(pillar, t.platform, t.metric, points);
    return;
  }
  const tb = gb?.terms.find((x) => x.platform === t.platform);
  const ta = ga?.terms.find((x) => x.platform === t.platform);
  const nb = tb?.net ?? ta!.net!;
  const na = ta?.net ?? tb!.net!;
  const sb = tb?.share ?? 0;
  const sa = ta?.share ?? 0;
  const byNet = ((sb + sa) / 2) * (na - nb);
  const byShare = ((nb + na) / 2 - MEDIAN_NET_SENTIMENT) * (sa - sb);
  const du = byNet + byShare;
  if (du === 0) return;
  add(pillar, t.platform, 'net_sentiment', (points * byNet) / du);
  add(pillar, t.platform, 'conversation_share', (points * byShare) / du);
}

/** One reading's term in its group's curve: 0 at the median account's value. */
export interface Term {
  platform: Platform | null;
  metric: DriverMetric;
  u: number;
  /** Sentiment's terms: the platform's share of the conversation and its net. */
  share?: number;
  net?: number;
}

/** One curve of one pillar: its points are PILLAR_WEIGHTS x weight x cf x f(sum of the terms). */
export interface Group {
  key: string;
  pillar: Pillar;
  platform: Platform | null;
  weight: number;
  /** The coverage factor for presence, else 1. */
  cf: number;
  f: (u: number) => number;
  terms: Term[];
}

export interface Model {
  groups: Group[];
  cf: number;
  /** Each pillar-platform's weight, keyed by key(pillar, platform, 'platform_weight'). */
  weights: Map<string, number>;
}

const presenceCurve = (u: number) => 100 * (sigmoid(u) - 0.5);
const rateCurve = presenceCurve;
const visibilityCurve = (u: number) => 100 * REACH_WEIGHTS_V2.visibility * (sigmoid(u) - 0.5);
const growthCurve = (share: number) => (u: number) => 100 * share * (1 / (1 + Math.exp(-LN3 * u)) - 0.5);
const growthWithViews = growthCurve(REACH_WEIGHTS_V2.growth);
const growthAlone = growthCurve(1);
const sentimentCurve = (u: number) => 50 * Math.tanh(u / SENTIMENT_SCALE);
const momentumCurve = (u: number) => 50 * Math.tanh(u / MOMENTUM_SCALE);

/** The groups and terms a list of drivers stands for (module doc). */
export function modelOf(drivers: readonly ScoreDriver[]): Model {
  const coverage = drivers.find((d) => d.platform === null)?.readings.find((r) => r.metric === 'coverage');
  const cf = coverage ? coverageFactor(coverage.value) : 1;
  const groups: Group[] = [];
  const weights = new Map<string, number>();
  const sentimentTerms: Term[] = [];
  for (const d of drivers) {
    if (d.platform === null) continue;
    const p = d.platform;
    weights.set(key(d.pillar, p, 'platform_weight'), d.weight);
    const r = (metric: DriverMetric) => d.readings.find((x) => x.metric === metric);
    const group = (name: string, f: (u: number) => number, terms: Term[]) =>
      groups.push({
        key: `${d.pillar}|${p}|${name}`,
        pillar: d.pillar,
        platform: p,
        weight: d.weight,
        cf: d.pillar === 'presence' ? cf : 1,
        f,
        terms,
      });
    switch (d.pillar) {
      case 'presence': {
        const posts = r('posts_per_week');
        const lift = r('post_view_lift');
        const terms: Term[] = [];
        if (posts) terms.push({ platform: p, metric: 'posts_per_week', u: ln(posts.value / posts.median) });
        if (lift)
          terms.push({
            platform: p,
            metric: 'post_view_lift',
            u: ln(Math.min(1, Math.max(0, lift.value / TYPICAL_POST_LIFT))),
          });
        group('posts', presenceCurve, terms);
        break;
      }
      case 'reach': {
        const views = r('views_per_follower_day');
        const growth = r('monthly_growth');
        if (views)
          group('visibility', visibilityCurve, [
            { platform: p, metric: 'views_per_follower_day', u: ln(views.value / views.median) },
          ]);
        if (growth)
          group('growth', views ? growthWithViews : growthAlone, [
            {
              platform: p,
              metric: 'monthly_growth',
              u: Math.log1p(Math.max(growth.value, TINY - 1)) / Math.log1p(growth.median) - 1,
            },
          ]);
        break;
      }
      case 'impact': {
        const rate = r('engagement_per_view') ?? r('engagement_per_follower_day');
        if (rate)
          group('rate', rateCurve, [{ platform: p, metric: rate.metric, u: ln(rate.value / rate.median) }]);
        break;
      }
      case 'sentiment': {
        const net = r('net_sentiment');
        if (net)
          sentimentTerms.push({
            platform: p,
            metric: 'net_sentiment',
            u: d.weight * (net.value - net.median),
            share: d.weight,
            net: net.value,
          });
        break;
      }
      case 'momentum': {
        const w = MOMENTUM_WEIGHTS;
        const trend = (metric: DriverMetric, weight: number): Term => ({
          platform: p,
          metric,
          u: weight * Math.log1p(Math.max(r(metric)?.value ?? 0, TINY - 1)),
        });
        const recent = r('recent_net_sentiment');
        group('signals', momentumCurve, [
          trend('engagement_trend', w.engagement),
          trend('views_trend', w.views),
          {
            platform: p,
            metric: 'recent_net_sentiment',
            u: recent
              ? w.sentiment * Math.max(-TREND_CAP, Math.min(0, 2 * Math.min(0, recent.value - recent.median)))
              : 0,
          },
        ]);
        break;
      }
    }
  }
  if (sentimentTerms.length > 0)
    groups.push({
      key: 'sentiment|pooled',
      pillar: 'sentiment',
      platform: null,
      weight: 1,
      cf: 1,
      f: sentimentCurve,
      terms: sentimentTerms,
    });
  return { groups, cf, weights };
}

function sum(xs: readonly number[]): number {
  let s = 0;
  for (const x of xs) s += x;
  return s;
}

function key(pillar: Pillar, platform: Platform | null, metric: string): string {
  return `${pillar}|${platform ?? '*'}|${metric}`;
}

function platformOrder(p: Platform | null): number {
  return p === null ? PLATFORMS.length : PLATFORMS.indexOf(p);
}
