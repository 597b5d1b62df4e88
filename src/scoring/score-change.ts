import { changeExceedsInterval, round1, type Interval } from './engine/index.ts';

/** The composite must move by at least this many points to emit score.changed (v1: or change grade). */
export const SCORE_CHANGED_THRESHOLD = 1.0;

/** A score as score.changed compares it: an audit's or the latest stored daily score. */
export interface ComparableScore {
  score: number;
  grade: string | null;
  formulaVersion: string;
  /** The 90% interval of the composite (formula v2), or null where none was computed or stored. */
  interval: Interval | null;
}

/**
 * The one rule for `score.changed`, shared by audits and syncs
 * (docs/adr/0136-score-changed-under-formula-v2.md):
 * - nothing before, or a different formula before: not a change (a formula switch moves the level,
 *   not the brand);
 * - v2 with the previous score's interval: the new score lies outside that interval AND moved at least
 *   SCORE_CHANGED_THRESHOLD (a grade change alone does not fire: grades already have hysteresis);
 * - otherwise (v1, or a v2 score stored without interval): at least the threshold or a grade change.
 */
export function isScoreChange(next: ComparableScore, previous: ComparableScore | null): boolean {
  if (!previous || previous.formulaVersion !== next.formulaVersion) return false;
  const moved = Math.abs(round1(next.score) - round1(previous.score)) >= SCORE_CHANGED_THRESHOLD - 1e-9;
  if (next.formulaVersion !== 'v1' && previous.interval) {
    return moved && changeExceedsInterval({ score: previous.score, scoreInterval: previous.interval }, next);
  }
  return moved || next.grade !== previous.grade;
}
