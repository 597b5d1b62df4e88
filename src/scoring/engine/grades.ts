/** Grade bands. Scores are compared after rounding to one decimal, the value callers see. */
import { round1 } from './math.ts';
import type { CompositeGrade, PillarGrade } from './types.ts';

/** Lower bounds (inclusive). A component at its baseline scores 50, so "typical" is yellow / moderate. */
export const PILLAR_GRADE_CUTOFFS = { green: 65, yellow: 40 } as const;
export const COMPOSITE_GRADE_CUTOFFS = { elite: 80, strong: 65, moderate: 50, weak: 35 } as const;

export function pillarGrade(score: number): PillarGrade {
  const x = round1(score);
  if (x >= PILLAR_GRADE_CUTOFFS.green) return 'green';
  if (x >= PILLAR_GRADE_CUTOFFS.yellow) return 'yellow';
  return 'red';
}

export function compositeGrade(score: number): CompositeGrade {
  const x = round1(score);
  const c = COMPOSITE_GRADE_CUTOFFS;
  if (x >= c.elite) return 'elite';
  if (x >= c.strong) return 'strong';
  if (x >= c.moderate) return 'moderate';
  if (x >= c.weak) return 'weak';
  return 'critical';
}
