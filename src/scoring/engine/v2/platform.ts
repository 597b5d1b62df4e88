/**
 * One platform over one window under formula v2: dense day arrays, robust signals and the pillars.
 * docs/scoring.md ("Formula v2") states every rule and constant below with its reason.
 */
import { baselineV2, MEDIAN_NET_SENTIMENT } from './baselines.ts';
import { ENGAGEMENT_WEIGHTS } from '../benchmarks.ts';
import { growthScore } from '../pillars.ts';
import { clamp, nonNeg, relToBaseline } from '../math.ts';
import { tierFor } from '../tiers.ts';
import type { AccountTier } from '../types.ts';
import type { AuthenticityFlag } from './types.ts';
import { snapshotsInRange } from '../series.ts';
import { formatDay } from '../../../core/days.ts';
import type { PillarScores, Platform } from '../../../core/catalog.ts';
import type { DailySnapshot } from '../../../core/metric-snapshot.ts';

/** Recency half-life of rates and sentiment, in days: a crisis shows within a week. */
export const HALF_LIFE_DAYS = 7;
/** A day's views or engagement is capped at this multiple of the window's median day (winsorising). */
export const WINSOR_MULTIPLE = 4;
/** One day above this share of the window's views raises view_spike. */
export const VIEW_SPIKE_SHARE = 0.3;
/** Views must be reported on at least this share of observed days for visibility to be scored. */
export const MIN_REPORTED_SHARE = 0.5;
/** Follower spike margin over the account's own daily log growth: median + max(floor, k x MAD). */
export const FOLLOWER_SPIKE_MARGIN = { floor: 0.02, madMultiple: 8 } as const;
/** Each negatively classified comment or mention cancels its own engagement weight and as much again. */
export const NEGATIVE_PENALTY = 2 * ENGAGEMENT_WEIGHTS.comments;
/** A post-day engagement block above this share of a median day's engagement raises engagement_pod. */
export const POD_MARGIN = 0.3;
/**
 * Engagement dated on the post day (a source that reads each post's lifetime totals and books them
 * on its publication day, as the Instagram and Facebook connectors must), when the snapshots do not
 * say so (engagementDating): the days without a post that report views carry at most this share of
 * the engagement their views would earn at the post days' rate. Such sources give exactly none; a
 * daily-dated account gives about all of it (a pod would need a block 50 times its honest post-day
 * engagement to look post-dated).
 */
export const POST_DATED_SHARE = 0.02;
/** ...and the engagement expected on those days is at least this much, so chance cannot empty them. */
export const POST_DATED_MIN_EXPECTED = 10;
/** Negative share of the median account's classified items (40% neutral, net MEDIAN_NET_SENTIMENT). */
const MEDIAN_NEGATIVE_SHARE = (1 - 0.4 - MEDIAN_NET_SENTIMENT) / 2;
/** Sentiment prior: pseudo-count at the median account's net sentiment. */
export const SENTIMENT_PRIOR_V2 = 40;
/** Net sentiment this far from the median moves sentiment by tanh(1) x 50. */
const SENTIMENT_SCALE = 0.5;
/** A post-day view lift of this share counts posts in full (presence counts posts that were seen). */
export const TYPICAL_POST_LIFT = 0.25;
export const REACH_WEIGHTS_V2 = { visibility: 0.6, growth: 0.4 } as const;
export const MOMENTUM_WEIGHTS_V2 = { engagement: 0.4, views: 0.3, sentiment: 0.3 } as const;
/** Momentum points are at most this many (Theil-Sen over <= this many block means). */
const MOMENTUM_POINTS = 30;
/** A doubling per 28 days in every momentum signal gives tanh(0.5) x 50 = +23: daily noise stays small. */
const MOMENTUM_SCALE = 2 * Math.LN2;
const TREND_CAP = Math.log(4);
/** Combined engagement and views trend (log change per 28 days) that counts as flat. */
export const TREND_DEAD_ZONE = 0.15;
const RECENT_DAYS = 7;
/** Last-week net sentiment within this of the median does not move momentum. */
export const SENTIMENT_DEAD_ZONE = 0.15;
const MIN_GROWTH_SPAN_DAYS = 14;

/** Per-platform dense day arrays over [origin, origin + length). */
export interface DaySeries {
  platform: Platform;
  origin: number;
  length: number;
  observed: Uint8Array;
  /** 1 where the snapshot says its engagement is dated on the post day (engagementDating 'post'). */
  postDated: Uint8Array;
  /** NaN when not a usable count (0, negative, not finite). */
  followers: Float64Array;
  /** Math.log of `followers`, taken once per series rather than in every window and jackknife replicate. */
  logFollowers: Float64Array;
  posts: Float64Array;
  /** 0 when not reported. */
  views: Float64Array;
  /** Valence-adjusted weighted engagement. */
  engagement: Float64Array;
  /**
   * Approval: likes + saves + talk net of negative items (likes + 3 saves + 2 max(0, comments +
   * mentions - negative)); what the momentum trend follows, so a negative item, wherever it falls in
   * the window, can never raise momentum.
   */
  approval: Float64Array;
  positive: Float64Array;
  neutral: Float64Array;
  negative: Float64Array;
}

export function buildDaySeries(
  snapshots: readonly DailySnapshot[],
  platforms: readonly Platform[],
  firstDay: number,
  lastDay: number,
): Map<Platform, DaySeries> {
  const out = new Map<Platform, DaySeries>();
  const length = lastDay - firstDay + 1;
  for (const [s, i] of snapshotsInRange(snapshots, platforms, firstDay, lastDay)) {
    let d = out.get(s.platform);
    if (!d) {
      const f = () => new Float64Array(length);
      d = {
        platform: s.platform,
        origin: firstDay,
        length,
        observed: new Uint8Array(length),
        postDated: new Uint8Array(length),
        followers: f(),
        logFollowers: f(),
        posts: f(),
        views: f(),
        engagement: f(),
        approval: f(),
        positive: f(),
        neutral: f(),
        negative: f(),
      };
      out.set(s.platform, d);
    }
    const fol = Number(s.followers);
    d.observed[i] = 1;
    d.postDated[i] = s.engagementDating === 'post' ? 1 : 0;
    d.followers[i] = fol > 0 && fol !== Infinity ? fol : NaN;
    d.posts[i] = nonNeg(s.posts);
    d.views[i] = nonNeg(s.impressions);
    const pos = nonNeg(s.sentimentPositive);
    // A mixed comment weighs as neutral: as much praise as complaint.
    const neu = nonNeg(s.sentimentNeutral) + nonNeg(s.sentimentMixed ?? 0);
    const neg = nonNeg(s.sentimentNegative);
    d.positive[i] = pos;
    d.neutral[i] = neu;
    d.negative[i] = neg;
    // Valence: talk (comments, shares, mentions) counts in proportion to its non-negative share,
    // and each negative item subtracts NEGATIVE_PENALTY, so adding negative comments or mentions
    // can never raise engagement (they add 2 and subtract at least 2).
    // The day's negative share, shrunk to the median account's by one pseudo-item: a day of a
    // small account with no classified item is not taken as free of complaints (which credited
    // small accounts' talk in full and biased impact up with falling size). Still non-decreasing in
    // `neg`, so the valence property below holds.
    const classified = pos + neu + neg;
    const negShare = (neg + MEDIAN_NEGATIVE_SHARE) / (classified + 1);
    const talk =
      ENGAGEMENT_WEIGHTS.comments * nonNeg(s.comments) +
      ENGAGEMENT_WEIGHTS.shares * nonNeg(s.shares) +
      ENGAGEMENT_WEIGHTS.mentions * nonNeg(s.mentions);
    d.approval[i] =
      ENGAGEMENT_WEIGHTS.likes * nonNeg(s.likes) +
      ENGAGEMENT_WEIGHTS.saves * nonNeg(s.saves) +
      ENGAGEMENT_WEIGHTS.comments * Math.max(0, nonNeg(s.comments) + nonNeg(s.mentions) - neg);
    d.engagement[i] = Math.max(
      0,
      ENGAGEMENT_WEIGHTS.likes * nonNeg(s.likes) +
        ENGAGEMENT_WEIGHTS.saves * nonNeg(s.saves) +
        talk * (1 - negShare) -
        (NEGATIVE_PENALTY - ENGAGEMENT_WEIGHTS.comments) * neg,
    );
  }
  // After the loop: a later snapshot of the same day replaces an earlier one.
  for (const d of out.values())
    for (let i = 0; i < length; i++) d.logFollowers[i] = Math.log(d.followers[i]!);
  return out;
}

/** Medians of one window that evaluatePlatform would otherwise compute from scratch. */
export interface WindowHints {
  /** Median (NaN when none) of the views of observed days that report views. */
  views: number;
  /** Median of the (valence-adjusted) engagement and of the approval of observed days. */
  engagement: number;
  approval: number;
  /** Median and MAD of the daily log follower changes between consecutive usable days (0 when none). */
  changeMedian: number;
  changeMad: number;
}

/*
 * Scratch buffers shared by every evaluation (the engine is synchronous and never re-entered while
 * an evaluation runs): grown on demand and reused, so that scoring a window allocates no per-day
 * arrays (their garbage collection was ~5% of the demo seeding). Each is read only within one step.
 */
function growF64(buf: Float64Array, n: number): Float64Array {
  return buf.length >= n ? buf : new Float64Array(Math.max(n, 2 * buf.length));
}
function growI32(buf: Int32Array, n: number): Int32Array {
  return buf.length >= n ? buf : new Int32Array(Math.max(n, 2 * buf.length));
}
const scratch = {
  /** Values to take a median of (medianInPlace reorders them). */
  workBuf: new Float64Array(512) as Float64Array,
  work(n: number): Float64Array {
    return (this.workBuf = growF64(this.workBuf, n));
  },
};

/**
 * Recency weight by distance in days from the window's end, Math.pow(2, -k / HALF_LIFE_DAYS):
 * the same expression as per day, so the same values, computed once per distance instead of once
 * per day and evaluation.
 */
let recency: Float64Array = new Float64Array(0);
function recencyWeights(n: number): Float64Array {
  if (recency.length < n) {
    const t = new Float64Array(Math.max(n, 2 * recency.length, 512));
    for (let k = 0; k < t.length; k++) t[k] = Math.pow(2, -k / HALF_LIFE_DAYS);
    recency = t;
  }
  return recency;
}

/** A sorted multiset of numbers: insert and remove by binary search, median in O(1). */
class SortedValues {
  readonly #v: number[] = [];
  #at(x: number): number {
    let lo = 0;
    let hi = this.#v.length;
    while (lo < hi) {
      const m = (lo + hi) >> 1;
      if (this.#v[m]! < x) lo = m + 1;
      else hi = m;
    }
    return lo;
  }
  add(x: number): void {
    this.#v.splice(this.#at(x), 0, x);
  }
  remove(x: number): void {
    this.#v.splice(this.#at(x), 1);
  }
  get size(): number {
    return this.#v.length;
  }
  /** The same value as median() of the same numbers: the mean of the two middle ones for an even count. */
  median(): number {
    const n = this.#v.length;
    if (n === 0) return NaN;
    const m = n >> 1;
    return n % 2 ? this.#v[m]! : (this.#v[m - 1]! + this.#v[m]!) / 2;
  }
  /** Median absolute deviation from `center`, by quickselect over the deviations. */
  mad(center: number): number {
    const n = this.#v.length;
    const dev = scratch.work(n);
    for (let i = 0; i < n; i++) dev[i] = Math.abs(this.#v[i]! - center);
    return medianInPlace(dev, n);
  }
}

/**
 * The medians of a window sliding one day at a time over a DaySeries (dailyScoreSeriesV2): each step
 * adds the day entering and removes the day leaving, instead of re-reading and re-sorting the whole
 * window for every day. evaluatePlatform gives the same result with or without them (tested).
 */
export class WindowMedians {
  readonly #d: DaySeries;
  readonly #views = new SortedValues();
  readonly #engagement = new SortedValues();
  readonly #approval = new SortedValues();
  readonly #changes = new SortedValues();
  /** Index of the previous usable follower day of each index (-1 when none). */
  readonly #prevUsable: Int32Array;
  readonly #nextUsable: Int32Array;
  #a = 0;
  #b = -1;

  constructor(d: DaySeries) {
    this.#d = d;
    this.#prevUsable = new Int32Array(d.length).fill(-1);
    this.#nextUsable = new Int32Array(d.length).fill(-1);
    let last = -1;
    for (let i = 0; i < d.length; i++) {
      this.#prevUsable[i] = last;
      if (this.#usable(i)) {
        if (last >= 0) this.#nextUsable[last] = i;
        last = i;
      }
    }
  }

  #usable(i: number): boolean {
    return this.#d.observed[i] === 1 && Number.isFinite(this.#d.followers[i]!);
  }

  /** The same expression as evaluatePlatform's, so the values are identical. */
  #change(p: number, q: number): number {
    const lf = this.#d.logFollowers;
    return (lf[q]! - lf[p]!) / (q - p);
  }

  #enter(i: number): void {
    const d = this.#d;
    if (!d.observed[i]) return;
    if (d.views[i]! > 0) this.#views.add(d.views[i]!);
    this.#engagement.add(d.engagement[i]!);
    this.#approval.add(d.approval[i]!);
    const p = this.#prevUsable[i]!;
    if (this.#usable(i) && p >= this.#a) this.#changes.add(this.#change(p, i));
  }

  #leave(i: number): void {
    const d = this.#d;
    if (!d.observed[i]) return;
    if (d.views[i]! > 0) this.#views.remove(d.views[i]!);
    this.#engagement.remove(d.engagement[i]!);
    this.#approval.remove(d.approval[i]!);
    const q = this.#nextUsable[i]!;
    if (this.#usable(i) && q >= 0 && q <= this.#b) this.#changes.remove(this.#change(i, q));
  }

  /** Moves the window to day indices [a, b] (forward only) and returns its medians. */
  moveTo(a: number, b: number): WindowHints {
    if (a < this.#a || b < this.#b) throw new RangeError('WindowMedians only moves forward');
    // Extend the right edge first, then drop the left: a pair (p, q) is in the window iff a <= p and q <= b.
    while (this.#b < b) {
      this.#b++;
      this.#enter(this.#b);
    }
    while (this.#a < a) {
      this.#leave(this.#a);
      this.#a++;
    }
    const med = this.#changes.size ? this.#changes.median() : 0;
    return {
      views: this.#views.median(),
      engagement: this.#engagement.median(),
      approval: this.#approval.median(),
      changeMedian: med,
      changeMad: this.#changes.size ? this.#changes.mad(med) : 0,
    };
  }
}

export interface PlatformEvaluation {
  platform: Platform;
  tier: AccountTier;
  organicFollowers: number;
  pillars: PillarScores;
  /** Engaged audience: recency-weighted valence-adjusted engagement per day (platform weight basis). */
  engagedAudience: number;
  latestObserved: number;
  flags: AuthenticityFlag[];
}

/**
 * In-place selection (Hoare's quickselect with median-of-three pivots): after the call a[k] holds
 * the k-th smallest of a[0..n) and everything before it is <= a[k]. O(n) on average, where a sort
 * was O(n log n) and, per window and day, most of the engine's time (docs/performance.md).
 */
function selectK(a: Float64Array, n: number, k: number): number {
  let lo = 0;
  let hi = n - 1;
  while (hi > lo) {
    const mid = (lo + hi) >> 1;
    // Median of three as the pivot: sorted input (common: block means, views) stays linear.
    const x = a[lo]!;
    const y = a[mid]!;
    const z = a[hi]!;
    const pivot = x < y ? (y < z ? y : x < z ? z : x) : x < z ? x : y < z ? z : y;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (a[i]! < pivot) i++;
      while (a[j]! > pivot) j--;
      if (i <= j) {
        const t = a[i]!;
        a[i] = a[j]!;
        a[j] = t;
        i++;
        j--;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else break;
  }
  return a[k]!;
}

/** Median of a[0..n) (reorders a); the mean of the two middle values for even n. NaN when n = 0. */
function medianInPlace(a: Float64Array, n: number): number {
  if (n === 0) return NaN;
  const m = n >> 1;
  const upper = selectK(a, n, m);
  if (n % 2) return upper;
  // a[0..m) now holds the lower half: its largest value is the other middle one.
  let lower = a[0]!;
  for (let i = 1; i < m; i++) if (a[i]! > lower) lower = a[i]!;
  return (lower + upper) / 2;
}

/** Median of xs (not modified). Inputs here are finite, so it equals the sorted definition exactly. */
export function median(xs: ArrayLike<number>): number {
  return medianInPlace(Float64Array.from(xs as ArrayLike<number>), xs.length);
}

/**
 * Least squares of y on views (capped at capViews) and a post-day indicator, without intercept,
 * over days[0..n): returns [per-view coefficient, post-day block, upper 95% bound of the block].
 * Honest activity scales with views (block ~ 0). Removing the upper bound rather than the estimate
 * makes a flagged pod score no higher than its honest twin except with ~5% probability.
 */
function postDayBlock(
  d: DaySeries,
  days: Int32Array,
  n: number,
  capViews: number,
  y: Float64Array,
): [number, number, number] {
  let svv = 0;
  let svp = 0;
  let spp = 0;
  let svy = 0;
  let spy = 0;
  for (let k = 0; k < n; k++) {
    const i = days[k]!;
    const x = Math.min(d.views[i]!, capViews);
    const p = d.posts[i]! > 0 ? 1 : 0;
    const t = y[i]!;
    svv += x * x;
    svp += x * p;
    spp += p * p;
    svy += x * t;
    spy += p * t;
  }
  const det = svv * spp - svp * svp;
  if (spp < 3 || n < 4 || !(det > 0)) return [0, 0, 0];
  const r = (spp * svy - svp * spy) / det;
  const c = (svv * spy - svp * svy) / det;
  let sse = 0;
  for (let k = 0; k < n; k++) {
    const i = days[k]!;
    sse += (y[i]! - r * Math.min(d.views[i]!, capViews) - c * (d.posts[i]! > 0 ? 1 : 0)) ** 2;
  }
  const se = Math.sqrt(((sse / (n - 2)) * svv) / det);
  return [r, c, c + 1.645 * se];
}

/**
 * Whether the engagement of the observed days [a, b] is dated on the post day: most of them say so
 * (engagementDating 'post'), or, unmarked, their post-less days carry none (POST_DATED_SHARE). Read
 * on the whole window, so its jackknife replicates read it the same way.
 */
function postDatedEngagement(d: DaySeries, a: number, b: number, capViews: number): boolean {
  let observed = 0;
  let marked = 0;
  let vOn = 0;
  let eOn = 0;
  let vOff = 0;
  let eOff = 0;
  let nOff = 0;
  for (let i = a; i <= b; i++) {
    if (!d.observed[i]) continue;
    observed++;
    marked += d.postDated[i]!;
    if (!(d.views[i]! > 0)) continue;
    const v = Math.min(d.views[i]!, capViews);
    if (d.posts[i]! > 0) {
      vOn += v;
      eOn += d.engagement[i]!;
    } else {
      vOff += v;
      eOff += d.engagement[i]!;
      nOff++;
    }
  }
  if (2 * marked > observed) return true;
  if (nOff === 0 || !(vOn > 0)) return false;
  const expected = (eOn * vOff) / vOn;
  return expected >= POST_DATED_MIN_EXPECTED && eOff <= POST_DATED_SHARE * expected;
}

/**
 * Post-dated engagement read as daily: the engagement and approval booked in each post's interval
 * (the observed days from its day up to the next post day, or b: the post's lifetime totals, and
 * anything a day of it was given by day) are spread over it, in proportion to the days' (capped)
 * views when all of them report views, else evenly; written at i - a of `eng` and `approval`. The
 * whole window is spread before any day is left out (a jackknife replicate drops spread days, as it
 * drops daily-dated ones). Returns the first post day: the days before it belong to a post before
 * the window, so their engagement is unknown (b + 1 when there is no post).
 */
function spreadPostDated(
  d: DaySeries,
  a: number,
  b: number,
  capViews: number,
  eng: Float64Array,
  approval: Float64Array,
): number {
  let first = b + 1;
  let p = -1;
  for (let i = a; i <= b + 1; i++) {
    const post = i <= b && d.observed[i] === 1 && d.posts[i]! > 0;
    if (p >= 0 && (post || i > b)) {
      // The interval [p, i): its observed days and their views.
      let n = 0;
      let v = 0;
      let all = true;
      let e = 0;
      let ap = 0;
      for (let j = p; j < i; j++) {
        if (!d.observed[j]) continue;
        n++;
        e += d.engagement[j]!;
        ap += d.approval[j]!;
        if (d.views[j]! > 0) v += Math.min(d.views[j]!, capViews);
        else all = false;
      }
      const byViews = all && v > 0;
      for (let j = p; j < i; j++) {
        if (!d.observed[j]) continue;
        const share = byViews ? Math.min(d.views[j]!, capViews) / v : 1 / n;
        eng[j - a] = e * share;
        approval[j - a] = ap * share;
      }
    }
    if (post) {
      p = i;
      if (first > b) first = i;
    }
  }
  return first;
}

let slopesBuf: Float64Array = new Float64Array(512);

/**
 * Theil-Sen slope (median of pairwise slopes) of y over x[0..n). The largest single cost of an
 * evaluation (435 slopes for 30 block means, twice): typed arrays and a scratch buffer keep it to
 * the divisions and the selection.
 */
export function theilSen(x: Float64Array, y: Float64Array, n = x.length): number {
  const slopes = (slopesBuf = growF64(slopesBuf, (n * (n - 1)) / 2));
  let m = 0;
  for (let i = 0; i < n; i++) {
    const xi = x[i]!;
    const yi = y[i]!;
    for (let j = i + 1; j < n; j++) if (x[j]! !== xi) slopes[m++] = (y[j]! - yi) / (x[j]! - xi);
  }
  return m ? medianInPlace(slopes, m) : 0;
}

function sentimentScoreFromNet(net: number): number {
  return clamp(50 + 50 * Math.tanh((net - MEDIAN_NET_SENTIMENT) / SENTIMENT_SCALE), 0, 100);
}

function shrunkNet(posMinusNeg: number, classified: number): number {
  return (posMinusNeg + MEDIAN_NET_SENTIMENT * SENTIMENT_PRIOR_V2) / (classified + SENTIMENT_PRIOR_V2);
}

// evaluatePlatform's scratch: day-index lists, and per-day values indexed by window day (i - a).
let idxBuf: Int32Array = new Int32Array(512);
let fIdxBuf: Int32Array = new Int32Array(512);
let reportedBuf: Int32Array = new Int32Array(512);
let uncappedBuf: Int32Array = new Int32Array(512);
let changesBuf: Float64Array = new Float64Array(512);
let organicLogBuf: Float64Array = new Float64Array(512);
let followersBuf: Float64Array = new Float64Array(512);
let engBuf: Float64Array = new Float64Array(512);
let approvalBuf: Float64Array = new Float64Array(512);
let blockX: Float64Array = new Float64Array(64);
let blockEng: Float64Array = new Float64Array(64);
let blockXViews: Float64Array = new Float64Array(64);
let blockViews: Float64Array = new Float64Array(64);

/**
 * Evaluate [start, end] (epoch days) leaving out days [skipFrom, skipTo] (for the jackknife).
 * Null when no snapshot remains.
 */
export function evaluatePlatform(
  d: DaySeries,
  start: number,
  end: number,
  skipFrom = 1,
  skipTo = 0,
  /** The window's medians kept by a sliding WindowMedians (daily series); only without a skip. */
  hints?: WindowHints,
): PlatformEvaluation | null {
  const slid = hints !== undefined && skipFrom > skipTo ? hints : undefined;
  const a = Math.max(0, start - d.origin);
  const b = Math.min(d.length - 1, end - d.origin);
  const len = b - a + 1;
  // The observed days not left out, ascending: every loop below runs over them (or a subset).
  const idx = (idxBuf = growI32(idxBuf, len));
  let nIdx = 0;
  for (let i = a; i <= b; i++) {
    const day = d.origin + i;
    if (d.observed[i] && !(day >= skipFrom && day <= skipTo)) idx[nIdx++] = i;
  }
  if (nIdx === 0) return null;
  const flags: AuthenticityFlag[] = [];
  const endIdx = end - d.origin;
  // The recency weight of day i is W[endIdx - i].
  const W = recencyWeights(endIdx - a + 1);

  // --- Followers: bad values (0, NaN) are skipped; spikes beyond the account's own history are
  // taken out of the organic audience (purchases do not count as growth or size).
  const lf = d.logFollowers;
  const fIdx = (fIdxBuf = growI32(fIdxBuf, nIdx));
  let nF = 0;
  for (let k = 0; k < nIdx; k++) if (Number.isFinite(d.followers[idx[k]!]!)) fIdx[nF++] = idx[k]!;
  // Organic log followers by window day (index i - a): NaN where the day has no usable follower count.
  const organicLog = (organicLogBuf = growF64(organicLogBuf, len));
  organicLog.fill(NaN, 0, len);
  if (nF > 0) {
    const nC = nF - 1;
    const changes = (changesBuf = growF64(changesBuf, nC));
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
        flags.push({
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
  const followers = (followersBuf = growF64(followersBuf, len));
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
  // Medians of the last and first (up to) three organic log counts.
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
  const current = nF ? Math.exp(tailLog) : 0;
  const bench = baselineV2(d.platform, current);

  // --- Views: reported days, winsorised at WINSOR_MULTIPLE x median reported day.
  const reported = (reportedBuf = growI32(reportedBuf, nIdx));
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
      flags.push({
        code: 'view_spike',
        platform: d.platform,
        day: formatDay(d.origin + maxI),
        detail: `One day holds ${((100 * max) / total).toFixed(0)}% of the window's views; it counts at most ${WINSOR_MULTIPLE}x a median day.`,
      });
  }
  if (!viewsReported)
    flags.push({
      code: 'views_unreported',
      platform: d.platform,
      day: null,
      detail: `Views are reported on ${nRep} of ${nIdx} days; visibility is not scored.`,
    });
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
  const uncapped = (uncappedBuf = growI32(uncappedBuf, nRep));
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
      flags.push({
        code: 'engagement_pod',
        platform: d.platform,
        day: null,
        detail: `Post days carry about ${Math.round(c)} weighted engagements beyond what their views explain (a median day earns ${Math.round(typical)}); that block is not credited.`,
      });
    }
  }
  // Credited engagement and approval (the pod block taken out of post days, post-dated engagement
  // spread), winsorised at WINSOR_MULTIPLE x their median day; kept per window day for the loops
  // below. Engagement is known from day `known` on, the kept days idx[k0..) (all of them unless
  // post-dated), and on the reported days reported[r0..).
  const eng = (engBuf = growF64(engBuf, len));
  const approval = (approvalBuf = growF64(approvalBuf, len));
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
  const medEng = raw ? slid.engagement : medianOfDays(eng, idx, k0, nIdx, a);
  const capEng = medEng > 0 ? WINSOR_MULTIPLE * medEng : Infinity;
  const medApp = raw ? slid.approval : medianOfDays(approval, idx, k0, nIdx, a);
  const capApp = medApp > 0 ? WINSOR_MULTIPLE * medApp : Infinity;
  for (let k = k0; k < nIdx; k++) {
    const j = idx[k]! - a;
    eng[j] = Math.min(eng[j]!, capEng);
    approval[j] = Math.min(approval[j]!, capApp);
  }

  // --- Presence: posts per week, each post counted by the view lift of post days (filler unseen
  // by anyone earns nothing). Unreported views: posts count in full.
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
  if (viewsReported && postDays > 0 && otherDays > 0) {
    const onPost = postDayViews / postDays;
    const off = otherViews / otherDays;
    const lift = onPost > 0 ? (onPost - off) / onPost : 0;
    postCredit = clamp(lift / TYPICAL_POST_LIFT, 0, 1);
  }
  const postsPerWeek = ((posts * postCredit) / nIdx) * 7;
  const presence = 100 * relToBaseline(postsPerWeek, bench.postsPerWeek);

  // --- Reach: visibility (recency-weighted views per organic follower on reported days) and growth.
  let growth = 0.5;
  if (nF >= 2) {
    const span = fIdx[nF - 1]! - fIdx[0]!;
    const monthly = ((tailLog - headLog) * 30) / Math.max(span, MIN_GROWTH_SPAN_DAYS);
    growth = growthScore(monthly, bench.monthlyGrowth);
  }
  let reach: number;
  let vNum = 0;
  let vDen = 0;
  for (let k = 0; k < nRep; k++) {
    const i = reported[k]!;
    const w = W[endIdx - i]!;
    vNum += w * Math.min(d.views[i]!, capViews);
    vDen += w * followers[i - a]!;
  }
  if (viewsReported && vDen > 0) {
    const vis = relToBaseline(vNum / vDen, bench.viewsPerFollowerDay);
    reach = 100 * (REACH_WEIGHTS_V2.visibility * vis + REACH_WEIGHTS_V2.growth * growth);
  } else reach = 100 * growth;

  // --- Impact: matched rate. Engagement per view over the days that report views; otherwise
  // engagement per follower over all observed days.
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
  } else {
    for (let k = k0; k < nIdx; k++) {
      const i = idx[k]!;
      const w = W[endIdx - i]!;
      eNum += w * eng[i - a]!;
      eDen += w * followers[i - a]!;
    }
    impact = 100 * relToBaseline(eDen > 0 ? eNum / eDen : 0, bench.engagementPerFollowerDay);
  }

  // --- Sentiment: recency-weighted counts shrunk to the median account's net sentiment.
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
  const sentiment = sentimentScoreFromNet(shrunkNet(sNet, sCls));

  // --- Momentum: robust (Theil-Sen) slope of log approval and log views per follower over block means,
  // per 28 days, plus any drop of the last week's net sentiment below the median band.
  let momentum = 50;
  if (nIdx >= 4) {
    const block = Math.max(1, Math.ceil(len / MOMENTUM_POINTS));
    const nBlocks = Math.ceil(len / block);
    const xs = (blockX = growF64(blockX, nBlocks));
    const ye = (blockEng = growF64(blockEng, nBlocks));
    const xv = (blockXViews = growF64(blockXViews, nBlocks));
    const yv = (blockViews = growF64(blockViews, nBlocks));
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
    const tEng = engTrend ? clamp(theilSen(xs, ye, nE) * 28, -TREND_CAP, TREND_CAP) : 0;
    const tViews = viewsReported && nV >= 3 ? clamp(theilSen(xv, yv, nV) * 28, -TREND_CAP, TREND_CAP) : 0;
    // Only a deterioration of the last week's sentiment below the median band counts, so adding a
    // negative item anywhere can only lower momentum.
    const shift = clamp(
      2 * Math.min(0, shrunkNet(rNet, rCls) - (MEDIAN_NET_SENTIMENT - SENTIMENT_DEAD_ZONE)),
      -TREND_CAP,
      0,
    );
    const w = MOMENTUM_WEIGHTS_V2;
    // Trends within TREND_DEAD_ZONE of flat are noise for a stationary account (a 28-day slope of
    // daily counts varies by about that much): only the excess moves momentum.
    const trend = w.engagement * tEng + w.views * tViews;
    const m = Math.sign(trend) * Math.max(0, Math.abs(trend) - TREND_DEAD_ZONE) + w.sentiment * shift;
    momentum = clamp(50 + 50 * Math.tanh(m / MOMENTUM_SCALE), 0, 100);
  }

  return {
    platform: d.platform,
    tier: tierFor(current),
    organicFollowers: current,
    pillars: {
      presence: clamp(presence, 0, 100),
      reach: clamp(reach, 0, 100),
      impact: clamp(impact, 0, 100),
      sentiment,
      momentum,
    },
    engagedAudience,
    latestObserved: d.origin + idx[nIdx - 1]!,
    flags,
  };
}

/** Median of values[i - a] over the days idx[from..to). */
function medianOfDays(values: Float64Array, idx: Int32Array, from: number, to: number, a: number): number {
  const n = to - from;
  const w = scratch.work(n);
  for (let k = 0; k < n; k++) w[k] = values[idx[from + k]! - a]!;
  return medianInPlace(w, n);
}
