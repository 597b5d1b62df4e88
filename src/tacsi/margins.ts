// The 95% margin of error of a published cell, and the variance of its index noise. tacsi-m2 cells
// store their margins and noise law (they depend on the band floor, the cadence and how the cell was
// made); a tacsi-m1 cell's are its methodology's, the same for every statistic (discrete Laplace at
// the band-independent scale).
import {
  TACSI_M2,
  TACSI_PILLARS,
  discreteGaussianVariance,
  discreteLaplaceVariance,
  getMethodology,
  ratioValue,
  type NoiseTerm,
} from './privacy/index.ts';
import type { MarginOfErrorBody } from './schemas.ts';

interface MarginColumns {
  methodology_version: string;
  moe_index_value: number | null;
  moe_pillars?: number | null;
}

/** Index points; the five pillars of a cell share one noise law, hence one margin. */
export function cellMargins(row: MarginColumns): MarginOfErrorBody {
  if (row.moe_index_value === null) {
    const m = getMethodology(row.methodology_version).ci95HalfWidth;
    return { indexValue: m, pillars: m };
  }
  return { indexValue: row.moe_index_value, pillars: row.moe_pillars ?? row.moe_index_value };
}

/** Variance (index points squared) of the noise in a cell's indexValue. */
export function indexNoiseVariance(row: { methodology_version: string; noise?: unknown }): number {
  if (row.noise === null || row.noise === undefined) {
    const m = getMethodology(row.methodology_version);
    const { numerator, denominator } = m.noiseScaleGridUnits;
    return discreteLaplaceVariance(numerator / denominator) * m.gridStep ** 2;
  }
  const terms = (typeof row.noise === 'string' ? JSON.parse(row.noise) : row.noise) as NoiseTerm[];
  // Each pillar carries its own independent copy of the terms; indexValue weighs the pillars.
  const pillarVariance = terms.reduce(
    (s, t) => s + ratioValue(t.weight) ** 2 * discreteGaussianVariance(ratioValue(t.sigma2)),
    0,
  );
  const weights = TACSI_PILLARS.reduce((s, p) => s + ratioValue(TACSI_M2.pillarWeights[p]) ** 2, 0);
  return weights * pillarVariance * TACSI_M2.gridStep ** 2;
}
