// The formula v3 extension fields of a score as the API gives them (GET /v1/score, audits), from what
// was computed or stored: one definition for both, so a live score and a stored one read alike.
import { baselineOf, type CrisisSignal } from './engine/index.ts';
import { crisisData } from './score-change.ts';

const CALM: CrisisSignal = {
  active: false,
  negative_share: 0,
  baseline_negative_share: 0,
  volume_ratio: 0,
  since: null,
};

/**
 * `crisis` and `baseline` of a v3 score; nothing for a score of an earlier formula (no baseline
 * version). A stored daily row keeps the crisis only while active, so a missing one reads as calm.
 */
export function v3ScoreFields(crisis: unknown, baselineVersion: string | null) {
  if (baselineVersion === null) return {};
  return {
    crisis: crisisData((crisis as CrisisSignal | null) ?? CALM),
    baseline: baselineOf(baselineVersion),
  };
}
