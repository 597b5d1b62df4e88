/**
 * Data-quality evidence about the sentiment pillar: comments and mentions that no sentiment model
 * covers are counted (`sentiment_unscored`) but never judged, so when they are a large share of a
 * platform's talk the pillar stands on the rest alone. docs/scoring.md, "Unscored comments".
 */
import type { Platform } from '../../../core/catalog.ts';
import type { DailySnapshot } from '../../../core/metric-snapshot.ts';
import { requireDay } from '../../../core/days.ts';
import type { AuthenticityFlagV3 } from './types.ts';

/** Unscored share of a platform's comments and mentions in the window at or above which it is flagged. */
export const UNSCORED_SHARE_FLAG = 0.2;
/** ... and only with at least this many unscored items: a handful is noise, not a blind spot. */
export const UNSCORED_MIN_ITEMS = 10;

const count = (x: number | undefined): number => (x !== undefined && Number.isFinite(x) && x > 0 ? x : 0);

/** One `sentiment_unscored` flag per platform whose unscored share of the window is high. */
export function unscoredSentimentFlags(
  snapshots: readonly DailySnapshot[],
  platforms: readonly Platform[],
  start: number,
  end: number,
): AuthenticityFlagV3[] {
  const flags: AuthenticityFlagV3[] = [];
  for (const platform of platforms) {
    let unscored = 0;
    let judged = 0;
    for (const s of snapshots) {
      if (!s || s.platform !== platform || typeof s.day !== 'string') continue;
      let d: number;
      try {
        d = requireDay(s.day, 'day');
      } catch {
        continue;
      }
      if (d < start || d > end) continue;
      unscored += count(s.sentimentUnscored);
      judged +=
        count(s.sentimentPositive) +
        count(s.sentimentNeutral) +
        count(s.sentimentNegative) +
        count(s.sentimentMixed);
    }
    const share = unscored / (unscored + judged || 1);
    if (unscored >= UNSCORED_MIN_ITEMS && share >= UNSCORED_SHARE_FLAG)
      flags.push({
        code: 'sentiment_unscored',
        platform,
        day: null,
        detail: `${Math.round(share * 100)}% of the window's comments and mentions (${unscored} of ${unscored + judged}) are in languages no sentiment model covers; sentiment is judged on the other ${judged}.`,
      });
  }
  return flags;
}
