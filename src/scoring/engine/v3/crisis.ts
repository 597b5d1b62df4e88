/**
 * The crisis signal: the brand's conversation (comments and mentions classified on every platform,
 * pooled) in its last CRISIS_RECENT_DAYS against its own CRISIS_BASELINE_DAYS before them.
 * docs/scoring.md ("Formula v3: crisis").
 */
import type { DailySnapshot } from '../../../core/metric-snapshot.ts';
import { formatDay, requireDay } from '../../../core/days.ts';
import type { CrisisSignal } from './types.ts';
import { neutralOf } from './counts.ts';

export const CRISIS_RECENT_DAYS = 7;
export const CRISIS_BASELINE_DAYS = 90;
/** The last week's negative share must exceed the baseline's by this much (absolute)... */
export const CRISIS_SHARE_MARGIN = 0.1;
/** ...and be at least this multiple of it... */
export const CRISIS_SHARE_RATIO = 1.5;
/** ...and this many binomial standard errors above it... */
export const CRISIS_MIN_Z = 3;
/** ...with at least this many negative items in the week, and negatives a day at least CRISIS_SHARE_RATIO x the baseline's. */
export const CRISIS_MIN_NEGATIVES = 10;
/** How far back `since` is looked for. */
const MAX_RUN_DAYS = 90;

const n = (x: number | undefined): number => (x !== undefined && Number.isFinite(x) && x > 0 ? x : 0);

export function crisisSignal(snapshots: readonly DailySnapshot[], asOf: string): CrisisSignal {
  const end = requireDay(asOf, 'asOf');
  const origin = end - MAX_RUN_DAYS - CRISIS_BASELINE_DAYS - CRISIS_RECENT_DAYS;
  const len = end - origin + 1;
  const neg = new Float64Array(len);
  const cls = new Float64Array(len);
  const seen = new Uint8Array(len);
  for (const s of snapshots) {
    if (!s || typeof s.day !== 'string') continue;
    let d: number;
    try {
      d = requireDay(s.day, 'day');
    } catch {
      continue;
    }
    if (d < origin || d > end) continue;
    const i = d - origin;
    neg[i] = neg[i]! + n(s.sentimentNegative);
    cls[i] = cls[i]! + (n(s.sentimentNegative) + n(s.sentimentPositive) + neutralOf(s));
    seen[i] = 1;
  }
  // Prefix sums: P[i] = sum over [0, i).
  const prefix = (a: ArrayLike<number>) => {
    const p = new Float64Array(len + 1);
    for (let i = 0; i < len; i++) p[i + 1] = p[i]! + a[i]!;
    return p;
  };
  const pNeg = prefix(neg);
  const pCls = prefix(cls);
  const pSeen = prefix(seen);
  const sum = (p: Float64Array, from: number, to: number) =>
    p[Math.min(len, Math.max(0, to + 1))]! - p[Math.max(0, from)]!;
  const at = (t: number) => {
    const i = t - origin;
    const rNeg = sum(pNeg, i - CRISIS_RECENT_DAYS + 1, i);
    const rCls = sum(pCls, i - CRISIS_RECENT_DAYS + 1, i);
    const bFrom = i - CRISIS_RECENT_DAYS - CRISIS_BASELINE_DAYS + 1;
    const bTo = i - CRISIS_RECENT_DAYS;
    const bNeg = sum(pNeg, bFrom, bTo);
    const bCls = sum(pCls, bFrom, bTo);
    const bDays = sum(pSeen, bFrom, bTo);
    const rDays = Math.max(1, sum(pSeen, i - CRISIS_RECENT_DAYS + 1, i));
    const share = rCls > 0 ? rNeg / rCls : 0;
    const base = bCls > 0 ? bNeg / bCls : 0;
    const volume = bCls > 0 && bDays > 0 ? rCls / rDays / (bCls / bDays) : 0;
    const negRate = bNeg > 0 && bDays > 0 ? rNeg / rDays / (bNeg / bDays) : rNeg > 0 ? Infinity : 0;
    const p0 = Math.min(0.99, Math.max(0.01, base));
    const z = rCls > 0 ? (share - p0) / Math.sqrt((p0 * (1 - p0)) / rCls) : 0;
    const active =
      bCls > 0 &&
      rNeg >= CRISIS_MIN_NEGATIVES &&
      share >= base + CRISIS_SHARE_MARGIN &&
      share >= CRISIS_SHARE_RATIO * base &&
      z >= CRISIS_MIN_Z &&
      negRate >= CRISIS_SHARE_RATIO;
    return { active, share, base, volume };
  };
  const now = at(end);
  let since: string | null = null;
  if (now.active) {
    let t = end;
    while (t - 1 > end - MAX_RUN_DAYS && at(t - 1).active) t--;
    since = formatDay(t);
  }
  const r4 = (x: number) => Math.round(x * 10_000) / 10_000;
  return {
    active: now.active,
    negative_share: r4(now.share),
    baseline_negative_share: r4(now.base),
    volume_ratio: Number.isFinite(now.volume) ? r4(now.volume) : 0,
    since,
  };
}
