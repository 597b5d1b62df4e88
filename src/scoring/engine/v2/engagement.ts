/**
 * Engagement that does not arrive day by day: the post-day block of an engagement pod (a regression on
 * views and a post-day indicator) and engagement dated on the post day (recognised, then spread over
 * each post's interval). docs/scoring.md "Engagement dated on the post day".
 */
import { POST_DATED_MIN_EXPECTED, POST_DATED_SHARE } from './constants.ts';
import type { DaySeries } from './day-series.ts';

/**
 * Least squares of y on views (capped at capViews) and a post-day indicator, without intercept,
 * over days[0..n): returns [per-view coefficient, post-day block, upper 95% bound of the block].
 * Honest activity scales with views (block ~ 0). Removing the upper bound rather than the estimate
 * makes a flagged pod score no higher than its honest twin except with ~5% probability.
 */
export function postDayBlock(
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
export function postDatedEngagement(d: DaySeries, a: number, b: number, capViews: number): boolean {
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
export function spreadPostDated(
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
