// A change recorded for a workspace (a new score, or a connection that started needing the brand), as
// the recording domain tells the domains that react to one (alerts), through AppContext.workspaceChanged.
import type { CompositeGrade, PillarScores, Platform } from './catalog.ts';

/** The crisis signal a score carries (formula v3's `crisis`, src/scoring/engine/v3/types.ts). */
export interface CrisisState {
  active: boolean;
  negative_share: number;
  baseline_negative_share: number;
  volume_ratio: number;
  since: string | null;
}

/** A recorded score, as told in the transaction that records it. */
export interface ScoreChange {
  score: number;
  previous_score: number | null;
  grade: CompositeGrade;
  previous_grade: CompositeGrade | null;
  /** The composite's pillars where the recorder has them (an audit); else the stored daily row's. */
  pillars?: PillarScores;
  previous_pillars?: PillarScores | null;
  /** Present when the scoring engine computed a crisis signal (formula v3). */
  crisis?: CrisisState | null;
  changed_at: string;
  audit_id?: string;
  platform?: Platform;
}

export interface WorkspaceChange {
  workspaceId: string;
  /** The score just recorded; absent when a connection started needing the brand. */
  change?: ScoreChange;
}
