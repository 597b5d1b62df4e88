/**
 * One platform over one window under formula v2: the kept days, then one step per signal and pillar
 * (organic audience, views, credited engagement, presence, reach, impact, sentiment, momentum), each
 * reading the steps before it. docs/scoring.md ("Formula v2") states every rule with its reason.
 */
import { MEDIAN_NET_SENTIMENT, type BaselineV2 } from './baselines.ts';
import {
  FOLLOWER_SPIKE_MARGIN,
  MIN_GROWTH_SPAN_DAYS,
  MIN_REPORTED_SHARE,
  MOMENTUM_POINTS,
  MOMENTUM_SCALE,
  MOMENTUM_WEIGHTS_V2,
  POD_MARGIN,
  REACH_WEIGHTS_V2,
  RECENT_DAYS,
  SENTIMENT_DEAD_ZONE,
  SENTIMENT_PRIOR_V2,
  SENTIMENT_SCALE,
  TREND_CAP,
  TREND_DEAD_ZONE,
  TYPICAL_POST_LIFT,
  VIEW_SPIKE_SHARE,
  WINSOR_MULTIPLE,
} from './constants.ts';
import type { DaySeries } from './day-series.ts';
import { postDatedEngagement, postDayBlock, spreadPostDated } from './engagement.ts';
import type { Scratch } from './scratch.ts';
import { medianInPlace, medianOfDays, theilSen } from './stats.ts';
import type { AuthenticityFlag } from './types.ts';
import type { WindowHints } from './window-medians.ts';
import { growthScore } from '../pillars.ts';
import { clamp, relToBaseline } from '../math.ts';
import { tierFor } from '../tiers.ts';
import type { AccountTier } from '../types.ts';
import { formatDay } from '../../../core/days.ts';
import type { PillarScores, Platform } from '../../../core/catalog.ts';

export interface PlatformEvaluation {
  platform: Platform;
  tier: AccountTier;
  organicFollowers: number;
  pillars: PillarScores;
  /** Engaged audience: recency-weighted valence-adjusted engagement per day (platform weight basis). */
  engagedAudience: number;
  latestObserved: number;
  flags: AuthenticityFlag[];
  /** The measured inputs of presence, reach and impact against their baselines (explanations). */
  readings: PlatformReadings;
}

/**
 * What presence, reach and impact were computed from, each beside the baseline (the median account of
 * the platform and size) it was compared with: enough to recompute the three pillars. Formula v3's
 * explanations read them; they are no part of a v2 result.
 */
export interface PlatformReadings {
  /** Posts a week over the kept days, as published. */
  postsPerWeek: number;
  /** Posts a week of the median account. */
  postsMedian: number;
  /** Post days' view lift ((post-day views - other days' views) / post-day views), or null when posts count in full unmeasured. */
  postLift: number | null;
  /** Views per organic follower a day (recency-weighted), or null when visibility is not scored. */
  viewsPerFollowerDay: number | null;
  viewsMedian: number;
  /** Monthly log growth of the organic audience, or null with fewer than two follower counts (growth scores 0.5). */
  monthlyLogGrowth: number | null;
  /** The median account's monthly growth (a rate, not a log). */
  growthMedian: number;
  /** Impact's rate: engagement per view, or per follower a day when views are not reported. */
  engagementBasis: 'view' | 'follower';
  engagementRate: number;
  engagementMedian: number;
}

/** The window being evaluated: day indices [a, b] of the series and the days kept in it. */
interface Window {
  d: DaySeries;
  a: number;
  b: number;
  len: number;
  /** The observed days not left out, ascending: every step runs over them (or a subset). */
  idx: Int32Array;
  nIdx: number;
  /** Index of the window's last day; the recency weight of day i is W[endIdx - i]. */
  endIdx: number;
  W: Float64Array;
  /** The window's medians from a sliding WindowMedians, when they apply (no day left out). */
  slid: WindowHints | undefined;
  flags: AuthenticityFlag[];
}

/**
 * Evaluate [start, end] (epoch days) leaving out days [skipFrom, skipTo] (for the jackknife).
 * Null when no snapshot remains.
 */
export function evaluatePlatform(
  scratch: Scratch,
  d: DaySeries,
  start: number,
  end: number,
  skipFrom = 1,
  skipTo = 0,
  /** The window's medians kept by a sliding WindowMedians (daily series); only without a skip. */
  hints?: WindowHints,
): PlatformEvaluation | null {
  const a = Math.max(0, start - d.origin);
  const b = Math.min(d.length - 1, end - d.origin);
  const len = b - a + 1;
  const idx = scratch.idx(len);
  let nIdx = 0;
  for (let i = a; i <= b; i++) {
    const day = d.origin + i;
    if (d.observed[i] && !(day >= skipFrom && day <= skipTo)) idx[nIdx++] = i;
  }
  if (nIdx === 0) return null;
  const endIdx = end - d.origin;
  const win: Window = {
    d,
    a,
    b,
    len,
    idx,
    nIdx,
    endIdx,
    W: scratch.recency(endIdx - a + 1),
    slid: hints !== undefined && skipFrom > skipTo ? hints : undefined,
    flags: [],
  };
  const audience = organicAudience(scratch, win);
  const bench = scratch.baseline(d.platform, audience.current);
  const views = viewsOf(scratch, win);
  const engagement = creditedEngagement(scratch, win, views);
  const readings = {} as PlatformReadings;
  const { impact, engagedAudience } = impactOf(win, audience, views, engagement, bench, readings);
  const sentiment = sentimentOf(win, engagement);
  return {
    platform: d.platform,
    tier: tierFor(audience.current),
    organicFollowers: audience.current,
    pillars: {
      presence: clamp(presenceOf(win, views, bench, readings), 0, 100),
      reach: clamp(reachOf(win, audience, views, bench, readings), 0, 100),
      impact: clamp(impact, 0, 100),
      sentiment: sentiment.score,
      momentum: momentumOf(scratch, win, audience, views, engagement, sentiment),
    },
    engagedAudience,
    latestObserved: d.origin + idx[nIdx - 1]!,
    flags: win.flags,
    readings,
  };
}

interface Audience {
  /** The kept days with a usable follower count, ascending. */
  fIdx: Int32Array;
  nF: number;
  /** Organic followers of each kept day by window day (i - a); 1 when unknown. */
  followers: Float64Array;
  /** Medians of the last and first (up to) three organic log counts (NaN without a usable count). */
  tailLog: number;
  headLog: number;
  /** The latest organic audience (0 without a usable count). */
  current: number;
}

/**
 * Followers: bad values (0, NaN) are skipped; spikes beyond the account's own history are taken out
 * of the organic audience (purchases do not count as growth or size) and flagged.
 */
function organicAudience(scratch: Scratch, win: Window): Audience {
  const { d, a, len, idx, nIdx, slid } = win;
  const lf = d.logFollowers;
  const fIdx = scratch.fIdx(nIdx);
  let nF = 0;
  for (let k = 0; k < nIdx; k++) if (Number.isFinite(d.followers[idx[k]!]!)) fIdx[nF++] = idx[k]!;
  // Organic log followers by window day (index i - a): NaN where the day has no usable follower count.
  const organicLog = scratch.organicLog(len);
  organicLog.fill(NaN, 0, len);
  if (nF > 0) {
    const nC = nF - 1;
    const changes = scratch.changes(nC);
    for (let k = 1; k < nF; k++)
      changes[k - 1] = (lf[fIdx[k]!]! - lf[fIdx[k - 1]!]!) / (fIdx[k]! - fIdx[k - 1]!);
    let med = 0;
    let mad = 0;
    if (nC > 0 && slid) {
      med = slid.changeMedian;
      mad = slid.changeMad;
    } else if (nC > 0) {
      const w = scratch.work(nC);
      for (let k = 0; k < nC; k++) w[k] = changes[k]!;
      med = medianInPlace(w, nC);
      for (let k = 0; k < nC; k++) w[k] = Math.abs(changes[k]! - med);
      mad = medianInPlace(w, nC);
    }
    const limit = med + Math.max(FOLLOWER_SPIKE_MARGIN.floor, FOLLOWER_SPIKE_MARGIN.madMultiple * mad);
    let removed = 0;
    organicLog[fIdx[0]! - a] = lf[fIdx[0]!]!;
    for (let k = 1; k < nF; k++) {
      const gap = fIdx[k]! - fIdx[k - 1]!;
      const c = changes[k - 1]!;
      if (c > limit) {
        removed += (c - med) * gap;
        win.flags.push({
          code: 'follower_spike',
          platform: d.platform,
          day: formatDay(d.origin + fIdx[k]!),
          detail: `Followers grew ${(100 * Math.expm1(c * gap)).toFixed(1)}% in ${gap} day(s), against a typical ${(100 * Math.expm1(med)).toFixed(2)}% a day; the jump is not counted.`,
        });
      }
      organicLog[fIdx[k]! - a] = lf[fIdx[k]!]! - removed;
    }
  }
  // Organic followers of each kept day (or 1 when unknown), once per evaluation: a day with a bad
  // follower value borrows its nearest usable neighbour's (the earlier one on a tie).
  const followers = scratch.followers(len);
  for (let k = 0, p = 0; k < nIdx; k++) {
    const i = idx[k]!;
    const v = organicLog[i - a]!;
    let f: number;
    if (!Number.isNaN(v)) f = Math.exp(v);
    else if (nF === 0) f = NaN;
    else {
      // p = the number of usable days before i (idx ascends, so p only moves forward).
      while (p < nF && fIdx[p]! < i) p++;
      const after = p < nF ? fIdx[p]! : Infinity;
      const before = p > 0 ? fIdx[p - 1]! : -Infinity;
      f = Math.exp(organicLog[(i - before <= after - i ? before : after) - a]!);
    }
    followers[i - a] = f || 1;
  }
  const ends = Math.min(3, nF);
  let tailLog = NaN;
  let headLog = NaN;
  if (nF > 0) {
    const w = scratch.work(ends);
    for (let k = 0; k < ends; k++) w[k] = organicLog[fIdx[nF - ends + k]! - a]!;
    tailLog = medianInPlace(w, ends);
    for (let k = 0; k < ends; k++) w[k] = organicLog[fIdx[k]! - a]!;
    headLog = medianInPlace(w, ends);
  }
  return { fIdx, nF, followers, tailLog, headLog, current: nF ? Math.exp(tailLog) : 0 };
}

interface Views {
  /** The kept days that report views, ascending. */
  reported: Int32Array;
  nRep: number;
  /** Reported on at least MIN_REPORTED_SHARE of the kept days: visibility is scored. */
  viewsReported: boolean;
  medViews: number;
  /** A day's views count at most this (WINSOR_MULTIPLE x the median reported day). */
  capViews: number;
}

/** Views: the reported days, winsorised at WINSOR_MULTIPLE x the median reported day; view_spike, views_unreported. */
function viewsOf(scratch: Scratch, win: Window): Views {
  const { d, idx, nIdx, slid } = win;
  const reported = scratch.reported(nIdx);
  let nRep = 0;
  for (let k = 0; k < nIdx; k++) if (d.views[idx[k]!]! > 0) reported[nRep++] = idx[k]!;
  const viewsReported = nRep >= Math.max(1, MIN_REPORTED_SHARE * nIdx);
  let medViews: number;
  if (slid) medViews = slid.views;
  else {
    const w = scratch.work(nRep);
    for (let k = 0; k < nRep; k++) w[k] = d.views[reported[k]!]!;
    medViews = medianInPlace(w, nRep);
  }
  const capViews = WINSOR_MULTIPLE * medViews;
  if (nRep > 0) {
    let total = 0;
    let max = 0;
    let maxI = reported[0]!;
    for (let k = 0; k < nRep; k++) {
      const i = reported[k]!;
      total += d.views[i]!;
      if (d.views[i]! > max) {
        max = d.views[i]!;
        maxI = i;
      }
    }
    if (nRep > 1 && max > VIEW_SPIKE_SHARE * total)
      win.flags.push({
        code: 'view_spike',
        platform: d.platform,
        day: formatDay(d.origin + maxI),
        detail: `One day holds ${((100 * max) / total).toFixed(0)}% of the window's views; it counts at most ${WINSOR_MULTIPLE}x a median day.`,
      });
  }
  if (!viewsReported)
    win.flags.push({
      code: 'views_unreported',
      platform: d.platform,
      day: null,
      detail: `Views are reported on ${nRep} of ${nIdx} days; visibility is not scored.`,
    });
  return { reported, nRep, viewsReported, medViews, capViews };
}

interface Engagement {
  /** The pod's post-day blocks taken out (0 without a pod): weighted engagement, positive and neutral items. */
  podBlock: number;
  podPositive: number;
  podNeutral: number;
  /** Credited engagement and approval by window day (i - a), winsorised. */
  eng: Float64Array;
  approval: Float64Array;
  /** Engagement is known from day index `known` on: the kept days idx[k0..) and reported days reported[r0..). */
  known: number;
  k0: number;
  r0: number;
}

/**
 * Credited engagement and approval: the pod block taken out of post days (engagement_pod), or
 * post-dated engagement spread over each post's interval, then winsorised at WINSOR_MULTIPLE x their
 * median day.
 */
function creditedEngagement(scratch: Scratch, win: Window, views: Views): Engagement {
  const { d, a, b, len, idx, nIdx, slid } = win;
  const { reported, nRep, viewsReported, medViews, capViews } = views;
  // Engagement dated on the post day (postDatedEngagement) is spread over the post's interval below.
  const postDated = postDatedEngagement(d, a, b, capViews);
  // Engagement pod: engagement that arrives as a fixed block on post days whatever the views.
  // Least squares of daily engagement on views and a post-day indicator (no intercept): honest
  // engagement scales with views (c ~ 0); a pod shows as c above POD_MARGIN of a median day's
  // engagement, and that block is not credited. Not on post-dated engagement: a post's lifetime total
  // is not dated like the views that earned it (a post earns over its first days, beside the posts
  // after it), so no regression on daily views tells a pod's block from honest engagement; tried on
  // post intervals, it took most honest accounts for pods (docs/scoring.md).
  // Per-post views (X) date both alike: that data is daily-dated here, and the test holds.
  let podBlock = 0;
  let podPositive = 0;
  let podNeutral = 0;
  // Days whose views were capped do not carry their true views: they are left out of the pod
  // regression and of the post-lift comparison, so one spike can neither fake a pod nor, landing
  // on a day without a post, cancel the account's post lift.
  const uncapped = scratch.uncapped(nRep);
  let nUncapped = 0;
  for (let k = 0; k < nRep; k++) if (d.views[reported[k]!]! <= capViews) uncapped[nUncapped++] = reported[k]!;
  if (viewsReported && !postDated) {
    const [r, c, cHigh] = postDayBlock(d, uncapped, nUncapped, capViews, d.engagement);
    const typical = r * medViews;
    if (c > POD_MARGIN * typical && r > 0) {
      podBlock = cHigh;
      // The pod's comments are its members' applause: the same regression on the classified counts
      // estimates the post-day block of positive and neutral items, which is taken out too.
      podPositive = Math.max(0, postDayBlock(d, uncapped, nUncapped, capViews, d.positive)[2]);
      podNeutral = Math.max(0, postDayBlock(d, uncapped, nUncapped, capViews, d.neutral)[2]);
      win.flags.push({
        code: 'engagement_pod',
        platform: d.platform,
        day: null,
        detail: `Post days carry about ${Math.round(c)} weighted engagements beyond what their views explain (a median day earns ${Math.round(typical)}); that block is not credited.`,
      });
    }
  }
  const eng = scratch.engagement(len);
  const approval = scratch.approval(len);
  let known = a;
  if (postDated) known = spreadPostDated(d, a, b, capViews, eng, approval);
  else
    for (let k = 0; k < nIdx; k++) {
      const i = idx[k]!;
      const podDay = podBlock > 0 && d.posts[i]! > 0;
      eng[i - a] = podDay ? Math.max(0, d.engagement[i]! - podBlock) : d.engagement[i]!;
      approval[i - a] = podDay ? Math.max(0, d.approval[i]! - podBlock) : d.approval[i]!;
    }
  let k0 = 0;
  while (k0 < nIdx && idx[k0]! < known) k0++;
  let r0 = 0;
  while (r0 < nRep && reported[r0]! < known) r0++;
  // Without a pod block or spreading, credited engagement is the raw engagement the sliding window keeps.
  const raw = slid && podBlock === 0 && !postDated;
  const medEng = raw ? slid.engagement : medianOfDays(scratch, eng, idx, k0, nIdx, a);
  const capEng = medEng > 0 ? WINSOR_MULTIPLE * medEng : Infinity;
  const medApp = raw ? slid.approval : medianOfDays(scratch, approval, idx, k0, nIdx, a);
  const capApp = medApp > 0 ? WINSOR_MULTIPLE * medApp : Infinity;
  for (let k = k0; k < nIdx; k++) {
    const j = idx[k]! - a;
    eng[j] = Math.min(eng[j]!, capEng);
    approval[j] = Math.min(approval[j]!, capApp);
  }
  return { podBlock, podPositive, podNeutral, eng, approval, known, k0, r0 };
}

/**
 * Presence: posts per week, each post counted by the view lift of post days (filler unseen by anyone
 * earns nothing). Unreported views: posts count in full.
 */
function presenceOf(win: Window, views: Views, bench: BaselineV2, out: PlatformReadings): number {
  const { d, idx, nIdx } = win;
  const { viewsReported, capViews } = views;
  let posts = 0;
  let postDays = 0;
  let postDayViews = 0;
  let otherDays = 0;
  let otherViews = 0;
  for (let k = 0; k < nIdx; k++) {
    const i = idx[k]!;
    posts += d.posts[i]!;
    if (!viewsReported || d.views[i]! > capViews) continue;
    if (d.posts[i]! > 0) {
      postDays++;
      postDayViews += Math.min(d.views[i]!, capViews);
    } else {
      otherDays++;
      otherViews += Math.min(d.views[i]!, capViews);
    }
  }
  let postCredit = 1;
  out.postLift = null;
  if (viewsReported && postDays > 0 && otherDays > 0) {
    const onPost = postDayViews / postDays;
    const off = otherViews / otherDays;
    const lift = onPost > 0 ? (onPost - off) / onPost : 0;
    postCredit = clamp(lift / TYPICAL_POST_LIFT, 0, 1);
    out.postLift = lift;
  }
  out.postsPerWeek = (posts / nIdx) * 7;
  out.postsMedian = bench.postsPerWeek;
  const postsPerWeek = ((posts * postCredit) / nIdx) * 7;
  return 100 * relToBaseline(postsPerWeek, bench.postsPerWeek);
}

/** Reach: visibility (recency-weighted views per organic follower on reported days) and growth. */
function reachOf(
  win: Window,
  audience: Audience,
  views: Views,
  bench: BaselineV2,
  out: PlatformReadings,
): number {
  const { d, a, endIdx, W } = win;
  const { fIdx, nF, followers, tailLog, headLog } = audience;
  const { reported, nRep, viewsReported, capViews } = views;
  let growth = 0.5;
  out.monthlyLogGrowth = null;
  out.growthMedian = bench.monthlyGrowth;
  if (nF >= 2) {
    const span = fIdx[nF - 1]! - fIdx[0]!;
    const monthly = ((tailLog - headLog) * 30) / Math.max(span, MIN_GROWTH_SPAN_DAYS);
    growth = growthScore(monthly, bench.monthlyGrowth);
    out.monthlyLogGrowth = monthly;
  }
  let vNum = 0;
  let vDen = 0;
  for (let k = 0; k < nRep; k++) {
    const i = reported[k]!;
    const w = W[endIdx - i]!;
    vNum += w * Math.min(d.views[i]!, capViews);
    vDen += w * followers[i - a]!;
  }
  out.viewsMedian = bench.viewsPerFollowerDay;
  out.viewsPerFollowerDay = null;
  if (viewsReported && vDen > 0) {
    out.viewsPerFollowerDay = vNum / vDen;
    const vis = relToBaseline(vNum / vDen, bench.viewsPerFollowerDay);
    return 100 * (REACH_WEIGHTS_V2.visibility * vis + REACH_WEIGHTS_V2.growth * growth);
  }
  return 100 * growth;
}

/**
 * Impact: matched rate. Engagement per view over the days that report views; otherwise engagement
 * per follower over all observed days. Also the engaged audience (the platform's weight).
 */
function impactOf(
  win: Window,
  audience: Audience,
  views: Views,
  engagement: Engagement,
  bench: BaselineV2,
  out: PlatformReadings,
): { impact: number; engagedAudience: number } {
  const { d, a, idx, nIdx, endIdx, W } = win;
  const { reported, nRep, viewsReported, capViews } = views;
  const { eng, k0, r0 } = engagement;
  let eNum = 0;
  let eDen = 0;
  let engagedAudience = 0;
  let wsum = 0;
  for (let k = k0; k < nIdx; k++) {
    const i = idx[k]!;
    const w = W[endIdx - i]!;
    engagedAudience += w * eng[i - a]!;
    wsum += w;
  }
  engagedAudience = wsum > 0 ? engagedAudience / wsum : 0;
  let impact: number;
  if (viewsReported) {
    for (let k = r0; k < nRep; k++) {
      const i = reported[k]!;
      const w = W[endIdx - i]!;
      eNum += w * eng[i - a]!;
      eDen += w * Math.min(d.views[i]!, capViews);
    }
    impact = 100 * relToBaseline(eDen > 0 ? eNum / eDen : 0, bench.engagementPerView);
    out.engagementBasis = 'view';
    out.engagementRate = eDen > 0 ? eNum / eDen : 0;
    out.engagementMedian = bench.engagementPerView;
  } else {
    const { followers } = audience;
    for (let k = k0; k < nIdx; k++) {
      const i = idx[k]!;
      const w = W[endIdx - i]!;
      eNum += w * eng[i - a]!;
      eDen += w * followers[i - a]!;
    }
    impact = 100 * relToBaseline(eDen > 0 ? eNum / eDen : 0, bench.engagementPerFollowerDay);
    out.engagementBasis = 'follower';
    out.engagementRate = eDen > 0 ? eNum / eDen : 0;
    out.engagementMedian = bench.engagementPerFollowerDay;
  }
  return { impact, engagedAudience };
}

interface Sentiment {
  score: number;
  /** The last RECENT_DAYS days' net (positive - negative) and classified counts, unweighted (momentum). */
  recentNet: number;
  recentClassified: number;
}

/** Sentiment: recency-weighted counts (the pod's applause taken out) shrunk to the median account's net. */
function sentimentOf(win: Window, engagement: Engagement): Sentiment {
  const { d, idx, nIdx, endIdx, W } = win;
  const { podBlock, podPositive, podNeutral } = engagement;
  let sNet = 0;
  let sCls = 0;
  let rNet = 0;
  let rCls = 0;
  for (let k = 0; k < nIdx; k++) {
    const i = idx[k]!;
    const podDay = podBlock > 0 && d.posts[i]! > 0;
    const w = W[endIdx - i]!;
    const pos = podDay ? Math.max(0, d.positive[i]! - podPositive) : d.positive[i]!;
    const neu = podDay ? Math.max(0, d.neutral[i]! - podNeutral) : d.neutral[i]!;
    const net = pos - d.negative[i]!;
    const cls = pos + neu + d.negative[i]!;
    sNet += w * net;
    sCls += w * cls;
    if (endIdx - i < RECENT_DAYS) {
      rNet += net;
      rCls += cls;
    }
  }
  return { score: sentimentScoreFromNet(shrunkNet(sNet, sCls)), recentNet: rNet, recentClassified: rCls };
}

function sentimentScoreFromNet(net: number): number {
  return clamp(50 + 50 * Math.tanh((net - MEDIAN_NET_SENTIMENT) / SENTIMENT_SCALE), 0, 100);
}

function shrunkNet(posMinusNeg: number, classified: number): number {
  return (posMinusNeg + MEDIAN_NET_SENTIMENT * SENTIMENT_PRIOR_V2) / (classified + SENTIMENT_PRIOR_V2);
}

/**
 * Momentum: robust (Theil-Sen) slope of log approval and log views per follower over block means, per
 * 28 days, plus any drop of the last week's net sentiment below the median band.
 */
function momentumOf(
  scratch: Scratch,
  win: Window,
  audience: Audience,
  views: Views,
  engagement: Engagement,
  sentiment: Sentiment,
): number {
  const { d, a, b, len, idx, nIdx } = win;
  if (nIdx < 4) return 50;
  const { followers } = audience;
  const { viewsReported, capViews } = views;
  const { approval, known } = engagement;
  const block = Math.max(1, Math.ceil(len / MOMENTUM_POINTS));
  const nBlocks = Math.ceil(len / block);
  const { xs, ye, xv, yv } = scratch.blocks(nBlocks);
  let nE = 0;
  let nV = 0;
  // The kept days of block [s0, s0 + block) are the next run of idx (k only moves forward).
  let k = 0;
  for (let s0 = a; s0 <= b; s0 += block) {
    const stop = Math.min(b + 1, s0 + block);
    let n = 0;
    let e = 0;
    let vn = 0;
    let v = 0;
    let fol = 0;
    let vfol = 0;
    for (; k < nIdx && idx[k]! < stop; k++) {
      const i = idx[k]!;
      const f = followers[i - a]!;
      if (i >= known) {
        n++;
        e += approval[i - a]!;
        fol += f;
      }
      if (d.views[i]! > 0) {
        vn++;
        v += Math.min(d.views[i]!, capViews);
        vfol += f;
      }
    }
    // Per organic follower: audience growth is credited in reach, not again here.
    if (n > 0) {
      xs[nE] = s0 + block / 2;
      ye[nE++] = Math.log((e + 1) / fol);
    }
    if (vn > 0) {
      xv[nV] = s0 + block / 2;
      yv[nV++] = Math.log((v + 1) / vfol);
    }
  }
  // Post-dated engagement known over less than half the window (its first post came late) has no
  // trend: a slope over a few days' spread engagement is mostly their views' noise.
  const engTrend = nE >= 3 && 2 * (b - known + 1) >= len;
  const tEng = engTrend ? clamp(theilSen(scratch, xs, ye, nE) * 28, -TREND_CAP, TREND_CAP) : 0;
  const tViews =
    viewsReported && nV >= 3 ? clamp(theilSen(scratch, xv, yv, nV) * 28, -TREND_CAP, TREND_CAP) : 0;
  // Only a deterioration of the last week's sentiment below the median band counts, so adding a
  // negative item anywhere can only lower momentum.
  const shift = clamp(
    2 *
      Math.min(
        0,
        shrunkNet(sentiment.recentNet, sentiment.recentClassified) -
          (MEDIAN_NET_SENTIMENT - SENTIMENT_DEAD_ZONE),
      ),
    -TREND_CAP,
    0,
  );
  const w = MOMENTUM_WEIGHTS_V2;
  // Trends within TREND_DEAD_ZONE of flat are noise for a stationary account (a 28-day slope of
  // daily counts varies by about that much): only the excess moves momentum.
  const trend = w.engagement * tEng + w.views * tViews;
  const m = Math.sign(trend) * Math.max(0, Math.abs(trend) - TREND_DEAD_ZONE) + w.sentiment * shift;
  return clamp(50 + 50 * Math.tanh(m / MOMENTUM_SCALE), 0, 100);
}
