/**
 * The composite of the five pillars, its halves, the coverage factor and the growth curve: the rules
 * formula v2 keeps from formula v1, so the composite weights (and TACSI's copy of them) hold across
 * formulas. docs/scoring.md states every weight and the reason for it.
 */
import { clamp } from './math.ts';
import { PILLARS, type Pillar, type PillarScores } from '../../core/catalog.ts';

/** Composite weights; they sum to 1. */
export const PILLAR_WEIGHTS: Readonly<PillarScores> = {
  presence: 0.2,
  reach: 0.2,
  impact: 0.25,
  sentiment: 0.2,
  momentum: 0.15,
};

/** part1 (audience half) and part2 (response half) of a platform row. */
export const PART1_PILLARS: readonly Pillar[] = ['presence', 'reach'];
export const PART2_PILLARS: readonly Pillar[] = ['impact', 'sentiment', 'momentum'];

/** Share of workspace presence lost when no requested platform has data; each missing one of n costs this / n. */
export const COVERAGE_PENALTY = 0.25;

/** Pillars of a workspace with no measured platform: nothing to credit, sentiment and momentum neutral. */
export const UNMEASURED: Readonly<PillarScores> = {
  presence: 0,
  reach: 0,
  impact: 0,
  sentiment: 50,
  momentum: 50,
};

/** Multiplier on workspace presence: 1 at full coverage, 1 - COVERAGE_PENALTY with none. */
export function coverageFactor(coverage: number): number {
  return 1 - COVERAGE_PENALTY * (1 - clamp(coverage, 0, 1));
}

/** Composite Brand Credit Score, 0-100: PILLAR_WEIGHTS over the pillars. */
export function composite(p: PillarScores): number {
  let s = 0;
  for (const k of PILLARS) s += PILLAR_WEIGHTS[k] * p[k];
  return clamp(s, 0, 100);
}

/** Weighted mean of the given pillars with PILLAR_WEIGHTS renormalised over them. */
export function weightedPillars(p: PillarScores, keys: readonly Pillar[]): number {
  let sum = 0;
  let wsum = 0;
  for (const k of keys) {
    sum += PILLAR_WEIGHTS[k] * p[k];
    wsum += PILLAR_WEIGHTS[k];
  }
  return wsum > 0 ? clamp(sum / wsum, 0, 100) : 0;
}

const LN3 = Math.log(3);

/** Growth score: logistic in units of the typical growth; 0 growth -> 0.25, typical -> 0.5, 2x typical -> 0.75. */
export function growthScore(monthlyLogGrowth: number, typicalMonthlyGrowth: number): number {
  const x = monthlyLogGrowth / Math.log1p(typicalMonthlyGrowth);
  return 1 / (1 + Math.exp(-LN3 * (x - 1)));
}
