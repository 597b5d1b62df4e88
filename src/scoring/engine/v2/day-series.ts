/** One platform's snapshots as dense day arrays over a span of days, the input of every evaluation. */
import { MEDIAN_NEGATIVE_SHARE, NEGATIVE_PENALTY } from './constants.ts';
import { ENGAGEMENT_WEIGHTS } from '../engagement-weights.ts';
import { nonNeg } from '../math.ts';
import { parseDay } from '../../../core/days.ts';
import type { Platform } from '../../../core/catalog.ts';
import type { DailySnapshot } from '../../../core/metric-snapshot.ts';

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

/**
 * The snapshots of the requested platforms that fall in [firstDay, lastDay] (epoch days), in input
 * order, each with its day's index from `firstDay`; snapshots with an unknown platform or an invalid
 * day are skipped (none when lastDay < firstDay).
 */
function snapshotsInRange(
  snapshots: readonly DailySnapshot[],
  platforms: readonly Platform[],
  firstDay: number,
  lastDay: number,
): Array<[snapshot: DailySnapshot, index: number]> {
  const inRange: Array<[DailySnapshot, number]> = [];
  const wanted = new Set<string>(platforms);
  for (const s of snapshots) {
    if (!s || !wanted.has(s.platform)) continue;
    const day = parseDay(s.day);
    if (day === null || day < firstDay || day > lastDay) continue;
    inRange.push([s, day - firstDay]);
  }
  return inRange;
}
