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
  type GridSpec,
  type PerturbedCell,
} from './perturb.ts';
export {
  cellCharge,
  checkAnnualCap,
  epsilonInWindow,
  maxRollingEpsilon,
  type AnnualCapCheck,
  type LedgerEntry,
} from './ledger.ts';
// tacsi-m2: zCDP with exact discrete Gaussian noise on the pillars.
export { sampleDiscreteGaussian } from './discrete-gaussian.ts';
export {
  discreteGaussianHalfWidth,
  discreteGaussianPmf,
  discreteGaussianTail,
  discreteGaussianVariance,
  weightedSumCoverage,
  weightedSumHalfWidth,
  type NoiseTerm,
} from './discrete-gaussian-distribution.ts';
export {
  ALL_METHODOLOGIES,
  RELEASE_KINDS,
  RHO_NANO,
  TACSI_M2,
  bandFloorOf,
  cellNoise,
  cellSigma2,
  defineGaussianMethodology,
  getAnyMethodology,
  histogramSigma2,
  indexNoise,
  marginTable,
  margins,
  marginsForNoise,
  pureDpToZcdp,
  scaleNoise,
  sensitivityGridUnits,
  zcdpToApproxDp,
  type AnyMethodology,
  type GaussianCadence,
  type GaussianMethodology,
  type GaussianMethodologyParameters,
  type MarginRow,
  type Margins,
  type ReleaseKind,
} from './methodology-m2.ts';
export {
  compositeOf,
  compositeUnits,
  deriveHeadline,
  deriveWeeklyFromDaily,
  perturbCellGaussian,
  type CellMargins,
  type GaussianCell,
  type HeadlineInput,
} from './perturb-gaussian.ts';
export {
  histogramShareUnits,
  percentileFromHistogram,
  percentileIntervalFromHistogram,
  perturbHistogram,
  type PublishedHistogram,
} from './histogram.ts';
export {
  checkAnnualRhoCap,
  isHistogramWeek,
  maxRollingRho,
  releaseCharge,
  rhoInWindow,
  type RhoCapCheck,
  type ZcdpCharge,
} from './ledger-zcdp.ts';
export { addRatio, bigRatio, fromRatio, mulRatio, ratioValue, toRatio, type BigRatio } from './rational.ts';
export { gaussianMethodologyFigures, type GaussianMethodologyFigures, type RatioFigure } from './figures.ts';
