/**
 * Scenario builders for formula v3's engine tests: accounts at multiples of the reference median
 * account of v3's baselines over DAYS days from FROM, scored as of LAST. Test data only.
 */
import { baselineV3, scoreWorkspaceV3, type WorkspaceScoreV3 } from '../../src/scoring/engine/v3/index.ts';
import { accountSnapshots } from './synthetic.ts';
import { addDays } from '../../src/core/days.ts';
import type { Platform } from '../../src/core/catalog.ts';
import type { DailySnapshot } from '../../src/core/metric-snapshot.ts';

export const FROM = '2025-01-01';
export const DAYS = 400;
export const LAST = addDays(FROM, DAYS - 1);

/** An account of `followers` on `platform` with the reference population's drift; `o` overrides options. */
export function account(
  followers: number,
  seed: number,
  platform: Platform = 'instagram',
  o = {},
): DailySnapshot[] {
  return accountSnapshots({
    seed,
    platform,
    from: FROM,
    days: DAYS,
    followers,
    baseline: baselineV3,
    drift: { sd: 0.15, days: 30 },
    ...o,
  });
}

/** The v3 score of `snapshots` as of `asOf` over `lookbackDays`, every platform with data. */
export function score(snapshots: readonly DailySnapshot[], asOf = LAST, lookbackDays = 90): WorkspaceScoreV3 {
  return scoreWorkspaceV3({ snapshots, platforms: [], asOf, lookbackDays });
}
