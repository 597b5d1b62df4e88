/** Platform -> workspace aggregation and the composite. */
import { clamp } from './math.ts';
import { PILLAR_WEIGHTS } from './pillars.ts';
import { PILLARS, type PillarScores } from '../../core/catalog.ts';

/** Share of workspace presence lost when no requested platform has data; each missing one of n costs this / n. */
export const COVERAGE_PENALTY = 0.25;
/** Share of each platform's weight split evenly, so a small platform still counts (the floor). */
export const EVEN_SHARE = 0.2;

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

/**
 * Platform weights: EVEN_SHARE split evenly plus (1 - EVEN_SHARE) by audience share, so the
 * platform where the audience is counts most but none drops below EVEN_SHARE / n.
 * Equal weights when no platform has an audience. Sums to 1.
 */
export function platformWeights(followers: readonly number[]): number[] {
  const n = followers.length;
  if (n === 0) return [];
  let total = 0;
  for (const f of followers) total += f;
  if (!(total > 0)) return followers.map(() => 1 / n);
  return followers.map((f) => EVEN_SHARE / n + ((1 - EVEN_SHARE) * f) / total);
}

/**
 * Workspace pillars: weighted mean of the measured platforms' pillars; presence is additionally
 * scaled by the coverage factor so that a requested platform without data costs points.
 */
export function workspacePillars(
  platformPillars: readonly PillarScores[],
  weights: readonly number[],
  coverage: number,
): PillarScores {
  if (platformPillars.length === 0) return { ...UNMEASURED };
  const out: PillarScores = { presence: 0, reach: 0, impact: 0, sentiment: 0, momentum: 0 };
  platformPillars.forEach((p, i) => {
    const w = weights[i] ?? 0;
    for (const k of PILLARS) out[k] += w * p[k];
  });
  out.presence *= coverageFactor(coverage);
  for (const k of PILLARS) out[k] = clamp(out[k], 0, 100);
  return out;
}

/** Composite Brand Credit Score, 0-100: PILLAR_WEIGHTS over the pillars. */
export function composite(p: PillarScores): number {
  let s = 0;
  for (const k of PILLARS) s += PILLAR_WEIGHTS[k] * p[k];
  return clamp(s, 0, 100);
}
