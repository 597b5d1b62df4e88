// Differential-privacy core of TACSI. See docs/privacy.md for the privacy model.
export { cryptoRandomSource, seededRandomSource, uniformBelow, type RandomSource } from './random.ts';
export { sampleBernoulli, sampleBernoulliExp } from './bernoulli.ts';
export { sampleDiscreteLaplace } from './discrete-laplace.ts';
export {
  discreteLaplaceHalfWidth,
  discreteLaplacePmf,
  discreteLaplaceTail,
  discreteLaplaceVariance,
} from './discrete-laplace-distribution.ts';
export { COHORT_BAND_EDGES, MIN_COHORT, SCORE_MAX, SCORE_MIN, clampScore, cohortBand } from './cohort.ts';
export {
  CADENCE_PERIOD_DAYS,
  CELL_STATISTICS,
  CURRENT_METHODOLOGY_VERSION,
  METHODOLOGIES,
  ROLLING_WINDOW_DAYS,
  TACSI_PILLARS,
  defineMethodology,
  getMethodology,
  type Cadence,
  type Methodology,
  type MethodologyParameters,
  type Ratio,
  type TacsiPillar,
} from './methodology.ts';
export {
  assertPublicationRandomSource,
  gridUnitsToScore,
  meanOnGrid,
  noisyMean,
  perturbCell,
  perturbGridValue,
  perturbStatistic,
  scoreToGridUnits,
  type EntityScores,
  type PerturbedCell,
} from './perturb.ts';
export {
  cellCharge,
  checkAnnualCap,
  dayNumber,
  epsilonInWindow,
  maxRollingEpsilon,
  wouldExceedAnnualCap,
  type AnnualCapCheck,
  type LedgerEntry,
} from './ledger.ts';
