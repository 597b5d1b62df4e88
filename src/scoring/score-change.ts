import {
  changeExceedsInterval,
  compositeGradeV2,
  round1,
  signedDelta,
  type CompositeGrade,
  type CrisisSignal,
  type Interval,
  type ScoreDriver,
} from './engine/index.ts';
import { changeExplanation } from './explanations.ts';
import type { EventData } from '../webhooks/events.ts';
import type { Platform } from '../core/catalog.ts';

/** The composite must move by at least this many points to emit score.changed (v1: or change grade). */
export const SCORE_CHANGED_THRESHOLD = 1.0;

/** A score as score.changed compares it: an audit's or the latest stored daily score. */
export interface ComparableScore {
  score: number;
  grade: string | null;
  formulaVersion: string;
  /** The 90% interval of the composite (formula v2), or null where none was computed or stored. */
  interval: Interval | null;
  /** Formula v3: the crisis signal (a stored calm day reads as null, as do v1 and v2 scores). */
  crisis?: CrisisSignal | null;
  /** Formula v3: the score's drivers; null where they were not stored with it. */
  drivers?: readonly ScoreDriver[] | null;
}

/** A crisis started between the two scores (same formula): it fires score.changed whatever the score did. */
export function crisisStarted(next: ComparableScore, previous: ComparableScore | null): boolean {
  return (
    !!previous &&
    previous.formulaVersion === next.formulaVersion &&
    next.crisis?.active === true &&
    previous.crisis?.active !== true
  );
}

/**
 * The one rule for `score.changed`, shared by audits and syncs
 * (docs/adr/0136-score-changed-under-formula-v2.md):
 * - nothing before, or a different formula before: not a change (a formula switch moves the level,
 *   not the brand);
 * - v2 with the previous score's interval: the new score lies outside that interval AND moved at least
 *   SCORE_CHANGED_THRESHOLD (a grade change alone does not fire: grades already have hysteresis);
 * - otherwise (v1, or a v2 score stored without interval): at least the threshold or a grade change;
 * - v3: besides, a crisis that started (crisisStarted) fires at once, however little the score moved
 *   (docs/adr/0176-formula-v3-in-the-api.md).
 */
export function isScoreChange(next: ComparableScore, previous: ComparableScore | null): boolean {
  if (!previous || previous.formulaVersion !== next.formulaVersion) return false;
  if (crisisStarted(next, previous)) return true;
  const moved = Math.abs(round1(next.score) - round1(previous.score)) >= SCORE_CHANGED_THRESHOLD - 1e-9;
  if (next.formulaVersion !== 'v1' && previous.interval) {
    return moved && changeExceedsInterval({ score: previous.score, scoreInterval: previous.interval }, next);
  }
  return moved || next.grade !== previous.grade;
}

/** What moved the score: a completed audit, or a sync of one platform. */
export type ScoreChangeCause = { auditId: string } | { platform: Platform };

/**
 * The `data` of `score.changed`, the one builder for audits and syncs. Scores are given to one
 * decimal, and `change` is `score - previous_score` of those (docs/webhooks.md "score.changed"); a
 * score stored without a grade is given the grade of its value.
 */
export function scoreChangedData(input: {
  workspaceId: string;
  before: ComparableScore;
  after: ComparableScore;
  changedAt: Date;
  cause: ScoreChangeCause;
}): EventData<'score.changed'> {
  const { before, after, cause } = input;
  const score = round1(after.score);
  const previous = round1(before.score);
  return {
    workspace_id: input.workspaceId,
    ...('auditId' in cause ? { audit_id: cause.auditId } : {}),
    score,
    previous_score: previous,
    change: signedDelta(score, previous),
    grade: gradeOf(after.grade, score),
    previous_grade: gradeOf(before.grade, previous),
    changed_at: input.changedAt.toISOString(),
    ...('platform' in cause ? { source: 'sync' as const, platform: cause.platform } : {}),
    ...(after.crisis !== undefined ? { crisis: after.crisis?.active ? crisisData(after.crisis) : null } : {}),
    ...(after.drivers !== undefined ? { explanation: explanationOf(before, after) } : {}),
  };
}

/** What moved a v3 score (changeExplanation): null without both scores' drivers. */
function explanationOf(before: ComparableScore, after: ComparableScore) {
  if (!after.drivers || before.formulaVersion !== after.formulaVersion) return null;
  return changeExplanation(
    { score: before.score, drivers: before.drivers ?? null },
    { score: after.score, drivers: after.drivers },
  );
}

function gradeOf(stored: string | null, score: number): CompositeGrade {
  return (stored as CompositeGrade | null) ?? compositeGradeV2(score);
}

/** The crisis as events and the API give it: shares to three decimals, the ratio to two. */
export function crisisData(c: CrisisSignal): {
  active: boolean;
  negative_share: number;
  baseline_negative_share: number;
  volume_ratio: number;
  since: string | null;
} {
  return {
    active: c.active,
    negative_share: Math.round(c.negative_share * 1000) / 1000,
    baseline_negative_share: Math.round(c.baseline_negative_share * 1000) / 1000,
    volume_ratio: Math.round(c.volume_ratio * 100) / 100,
    since: c.since,
  };
}
