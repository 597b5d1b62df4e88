// The formula v3 extension fields of a score as the API gives them (GET /v1/score, audits), from what
// was computed or stored: one definition for both, so a live score and a stored one read alike.
import { baselineOf, type CrisisSignal } from './engine/index.ts';
import { crisisData } from './score-change.ts';
import { driversField, storedDrivers } from './explanations.ts';

const CALM: CrisisSignal = {
  active: false,
  negative_share: 0,
  baseline_negative_share: 0,
  volume_ratio: 0,
  since: null,
};

/** A stored crisis column (null: calm) as the API and alerts give it. */
export function storedCrisis(crisis: unknown) {
  return crisisData((crisis as CrisisSignal | null) ?? CALM);
}

/**
 * `crisis`, `baseline` and `drivers` of a v3 score; nothing for a score of an earlier formula (no
 * baseline version). A stored daily row keeps the crisis only while active, so a missing one reads as
 * calm; `drivers` (the engine's, computed or stored) is null where none were stored with the score.
 */
export function v3ScoreFields(crisis: unknown, baselineVersion: string | null, drivers: unknown) {
  if (baselineVersion === null) return {};
  return {
    crisis: storedCrisis(crisis),
    baseline: baselineOf(baselineVersion),
    ...driversField(storedDrivers(drivers), baselineVersion),
  };
}
