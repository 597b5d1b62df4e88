// How to read a v2 score (GET /v1/score `grading`): the grade bands, what 50 means and the hysteresis
// rule, built from the engine's constants so the dashboard's legend and the docs never hold a copy.
import { COMPOSITE_GRADES, type CompositeGrade } from '../core/catalog.ts';
import {
  compositeGradeV2,
  COMPOSITE_GRADE_CUTOFFS_V2,
  GRADE_HYSTERESIS,
  GRADE_POPULATION_SHARES_V2,
  MEDIAN_SCORE,
} from './engine/index.ts';

const CUTOFFS: Record<string, number | undefined> = COMPOSITE_GRADE_CUTOFFS_V2;

/** The shape of GET /v1/score's `grading` (schemas.ts `Grading` checks it where it is served). */
export interface GradingView {
  median: number;
  grades: { grade: CompositeGrade; min: number | null; population_share: number }[];
  hysteresis: number;
}

export const GRADING: GradingView = {
  median: MEDIAN_SCORE,
  grades: COMPOSITE_GRADES.map((grade) => ({
    grade,
    min: CUTOFFS[grade] ?? null,
    population_share: GRADE_POPULATION_SHARES_V2[grade],
  })),
  hysteresis: GRADE_HYSTERESIS,
};

/**
 * The grades of a 90% interval's two ends, by the bands alone (no hysteresis): the score's true grade
 * may be any band between them. With bands 8 points wide around the median and intervals of several
 * points, most scores span two (docs/scoring.md "Grades").
 */
export function gradeRange(interval: { low: number; high: number }): {
  low: CompositeGrade;
  high: CompositeGrade;
} {
  return {
    low: compositeGradeV2(interval.low) as CompositeGrade,
    high: compositeGradeV2(interval.high) as CompositeGrade,
  };
}
