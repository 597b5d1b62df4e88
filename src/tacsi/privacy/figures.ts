// Every audited figure of a zCDP methodology in one JSON-serialisable object, for docs/privacy.md and
// GET /v1/tacsi/methodology, so the published numbers are computed, never typed in.
import {
  RELEASE_KINDS,
  marginTable,
  zcdpToApproxDp,
  type GaussianMethodology,
  type MarginRow,
  type ReleaseKind,
} from './methodology-m2.ts';
import type { Ratio } from './methodology.ts';
import { ratioValue } from './rational.ts';

export interface RatioFigure {
  readonly ratio: Ratio;
  readonly value: number;
}

export interface GaussianMethodologyFigures {
  readonly version: string;
  readonly mechanism: 'discrete-gaussian';
  readonly accounting: 'zCDP';
  readonly neighbouring: string;
  readonly bandFloors: readonly number[];
  readonly dailyMinCohort: number;
  readonly pillarWeights: GaussianMethodology['pillarWeights'];
  readonly noiseMultipliers: GaussianMethodology['noiseMultipliers'];
  readonly histogram: GaussianMethodology['histogram'];
  readonly rhoPerRelease: Readonly<Record<ReleaseKind, RatioFigure>>;
  readonly releasesPerWindow: GaussianMethodology['releasesPerWindow'];
  readonly windowRho: Readonly<Record<keyof GaussianMethodology['windowRho'], RatioFigure>>;
  readonly annualRhoCap: RatioFigure;
  readonly annualEpsilonDelta: GaussianMethodology['annualEpsilonDelta'];
  /** (epsilon at the same delta) of one release of each charged kind. */
  readonly epsilonPerRelease: Readonly<Record<'daily' | 'weekly' | 'histogram', number>>;
  readonly margins95: readonly MarginRow[];
}

const figure = (ratio: Ratio): RatioFigure => ({ ratio, value: ratioValue(ratio) });

export function gaussianMethodologyFigures(m: GaussianMethodology): GaussianMethodologyFigures {
  const rhoPerRelease = {} as Record<ReleaseKind, RatioFigure>;
  for (const kind of RELEASE_KINDS) rhoPerRelease[kind] = figure(m.rhoPerRelease[kind]);
  const windowRho = {} as Record<keyof GaussianMethodology['windowRho'], RatioFigure>;
  for (const [k, v] of Object.entries(m.windowRho)) windowRho[k as keyof typeof windowRho] = figure(v);
  const delta = m.annualEpsilonDelta.delta;
  const eps = (kind: ReleaseKind) => zcdpToApproxDp(ratioValue(m.rhoPerRelease[kind]), delta);
  return {
    version: m.version,
    mechanism: m.mechanism,
    accounting: m.accounting,
    neighbouring: m.neighbouring,
    bandFloors: m.bandFloors,
    dailyMinCohort: m.dailyMinCohort,
    pillarWeights: m.pillarWeights,
    noiseMultipliers: m.noiseMultipliers,
    histogram: m.histogram,
    rhoPerRelease,
    releasesPerWindow: m.releasesPerWindow,
    windowRho,
    annualRhoCap: figure(m.annualRhoCap),
    annualEpsilonDelta: m.annualEpsilonDelta,
    epsilonPerRelease: { daily: eps('daily'), weekly: eps('weekly'), histogram: eps('histogram') },
    margins95: marginTable(m),
  };
}
