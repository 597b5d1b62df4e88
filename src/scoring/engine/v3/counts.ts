import type { DailySnapshot } from '../../../core/metric-snapshot.ts';

/** A count as the engine reads it: a positive finite number, else 0. */
export const count = (x: number | undefined): number =>
  x !== undefined && Number.isFinite(x) && x > 0 ? x : 0;

/** Neutral and mixed comments: a mixed one weighs as a neutral one (as in v2's day series). */
export const neutralOf = (s: DailySnapshot): number => count(s.sentimentNeutral) + count(s.sentimentMixed);
