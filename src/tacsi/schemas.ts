// TypeBox schemas of the TACSI feeds: the one definition of each body, documented in OpenAPI and typed
// (Static) where the feeds build it; bodies are pre-serialized (feed-cache.ts).
import { Type, type Static } from 'typebox';
import { PILLARS } from '../core/catalog.ts';
import { DateOnly } from '../infra/http/schemas.ts';

/** Shape only: a slug of the taxonomy form (or `headline`). Whether it exists is an entitlement question. */
export const SectorParam = Type.String({
  pattern: '^[a-z0-9]+(-[a-z0-9]+)*$',
  maxLength: 64,
  description: 'sector slug (lower-case words joined by hyphens), or `headline` with the Full Database',
});

/** Shape only; an unknown pillar gets the uniform Not Licensed denial, not a 400. */
export const PillarParam = Type.String({
  pattern: '^[a-z]+$',
  maxLength: 32,
  description: 'impact, momentum, presence, reach or sentiment',
});

const Num = Type.Number();

export const TacsiPillars = Type.Object({
  impact: Num,
  momentum: Num,
  presence: Num,
  reach: Num,
  sentiment: Num,
});

const Delta = Type.Union([Type.Number(), Type.Null()], {
  description: 'change from the previous published cell of the series; null for its first cell',
});

/** Extension: the published 95% margin of error (half-width of the noise interval), in index points. */
export const MarginOfError = Type.Object(
  {
    indexValue: Num,
    pillars: Type.Number({ description: 'every pillar of a cell has the same noise law, hence one margin' }),
  },
  {
    description:
      '95% margin of error of the published values (extension): the noise lies within +/- this with probability 0.95',
  },
);

const cellFields = {
  periodEnd: DateOnly,
  indexValue: Num,
  delta: Delta,
  pillars: TacsiPillars,
  cohortBand: Type.String({ description: 'banded cohort size, e.g. `n >= 50`' }),
  methodologyVersion: Type.String({ description: '`tacsi-m1` (archive) or `tacsi-m2`' }),
  marginOfError: MarginOfError,
  publishedAt: Type.String({
    format: 'date-time',
    description:
      'when the cell was published (extension): the instant of its publication run, the same for every cell of the run; for a corrected cell, the instant of the correction',
  }),
  vintage: Type.Integer({
    minimum: 1,
    description:
      'the vintage of the cell (extension): 1 for its first publication, then one more for each correction; a feed serves the latest vintage (GET /v1/tacsi/corrections lists them)',
  }),
};

/** One published cell (a week or a day of one sector): a named component, referenced by every feed. */
export const TacsiCell = Type.Object(cellFields, { $id: 'TacsiCell' });

export const ForwardSignal = Type.Object(
  {
    status: Type.Enum(['pending_archive_depth', 'available']),
    note: Type.String(),
    method: Type.Optional(Type.String()),
    horizon: Type.Optional(Type.String({ description: 'ISO 8601 duration' })),
    projectedPeriodEnd: Type.Optional(DateOnly),
    projectedIndexValue: Type.Optional(Num),
    interval: Type.Optional(Type.Object({ low: Num, high: Num }, { description: '95% interval' })),
  },
  { description: 'projection fields are present only when status is available (extension of the spec)' },
);

export const WeeklyFeed = Type.Object(
  {
    sector: Type.String(),
    ...cellFields,
    forwardSignal: ForwardSignal,
    history: Type.Array(TacsiCell, { description: 'up to 12 weeks before the latest, newest first' }),
  },
  { $id: 'TacsiWeeklyFeed', description: 'the latest weekly cell (its fields inline), then its history' },
);

export const HistoryFeed = Type.Object(
  {
    sector: Type.String(),
    from: Type.Union([DateOnly, Type.Null()]),
    to: Type.Union([DateOnly, Type.Null()]),
    count: Type.Integer(),
    pageMax: Type.Integer(),
    hasMore: Type.Boolean(),
    nextBefore: Type.Union([DateOnly, Type.Null()]),
    rows: Type.Array(TacsiCell),
  },
  { $id: 'TacsiHistoryFeed' },
);

export const PillarFeed = Type.Object(
  {
    sector: Type.String(),
    pillar: Type.String(),
    series: Type.Array(
      Type.Object({
        periodEnd: DateOnly,
        value: Num,
        delta: Delta,
        cohortBand: Type.String(),
        methodologyVersion: Type.String(),
        marginOfError: Type.Number({ description: '95% margin of error of value, index points (extension)' }),
      }),
    ),
  },
  { $id: 'TacsiPillarFeed' },
);

export const DailyFeed = Type.Object(
  {
    sector: Type.String(),
    cadence: Type.Enum(['daily']),
    rows: Type.Array(TacsiCell),
  },
  { $id: 'TacsiDailyFeed' },
);

const LaplaceMethodology = Type.Object(
  {
    version: Type.String(),
    formulaVersion: Type.String({
      description:
        'extension: the Brand Credit Score formula whose stored daily scores this methodology averages (tacsi-m1: v1, tacsi-m2: v2); the series break of formula v2 coincides with the methodology break',
    }),
    mechanism: Type.Literal('discrete-laplace'),
    accounting: Type.String(),
    scoreBounds: Type.Object({ min: Num, max: Num }),
    minCohort: Type.Integer(),
    cohortBands: Type.Array(Type.String()),
    sensitivity: Num,
    statisticsPerCell: Type.Integer(),
    epsilonPerStatistic: Num,
    epsilonPerCell: Num,
    gridStep: Num,
    noiseScale: Num,
    ci95HalfWidth: Num,
    cadences: Type.Array(Type.String()),
    rollingWindowDays: Type.Integer(),
    cellsPerEntityPerWindow: Type.Integer(),
    annualCapPerEntity: Num,
    annualRhoEquivalent: Type.Number({
      description: 'the same annual loss in zCDP rho (epsilon^2 / 2 per statistic)',
    }),
    rhoPerCell: Type.Number({
      description: 'what one cell charges each of its entities in the one TACSI ledger (zCDP rho)',
    }),
    closedFrom: Type.Union([DateOnly, Type.Null()], {
      description:
        'no period is published under this methodology from this day (the cut-over) on; null before',
    }),
    withdrawn: Type.Array(Type.Object({ sector: Type.String(), reason: Type.String() }), {
      description: 'published series of this methodology no feed serves any more',
    }),
  },
  { description: 'tacsi-m1 (archive): pure epsilon-DP, discrete Laplace' },
);

const GaussianMethodology = Type.Object(
  {
    version: Type.String(),
    formulaVersion: Type.String({
      description:
        'extension: the Brand Credit Score formula whose stored daily scores this methodology averages (tacsi-m1: v1, tacsi-m2: v2); the series break of formula v2 coincides with the methodology break',
    }),
    mechanism: Type.Literal('discrete-gaussian'),
    accounting: Type.String(),
    unitOfPrivacy: Type.String(),
    neighbouring: Type.String(),
    scoreBounds: Type.Object({ min: Num, max: Num }),
    minCohort: Type.Integer(),
    dailyMinCohort: Type.Integer(),
    cohortBands: Type.Array(Type.String()),
    calibration: Type.String(),
    gridStep: Num,
    noisedStatistics: Type.Array(Type.String()),
    indexValue: Type.String(),
    pillarWeights: TacsiPillars,
    noiseMultipliers: Type.Object({ daily: Num, weekly: Num, histogram: Num }),
    rhoPerRelease: Type.Object({
      daily: Num,
      weekly: Num,
      weeklyDerived: Num,
      histogram: Num,
      headline: Num,
      benchmark: Num,
    }),
    releasesPerWindow: Type.Object({
      daily: Type.Integer(),
      weekly: Type.Integer(),
      histogram: Type.Integer(),
    }),
    budgetSplit: Type.Object(
      { sectorCells: Num, histograms: Num, headline: Num, benchmark: Num, scheduleTotal: Num },
      { description: 'rho of the busiest rolling 365 days of one entity, by release' },
    ),
    rollingWindowDays: Type.Integer(),
    annualRhoCap: Num,
    annualEpsilonDelta: Type.Object({ epsilon: Num, delta: Num, conversion: Type.String() }),
    guarantee: Type.Object(
      {
        statement: Type.String(),
        invariants: Type.Array(Type.String(), {
          description: 'exact facts published outside the accounting (as the US Census declares invariants)',
        }),
        window: Type.String(),
        lifetimeRhoPerYear: Type.Number({
          description: "what the regular schedule adds to an entity's lifetime loss each year",
        }),
      },
      { description: 'what the annual cap does and does not cover (docs/privacy.md section 1)' },
    ),
    histogram: Type.Object({
      edges: Type.Array(Num),
      schedule: Type.String(),
      percentileGranularity: Type.Integer(),
    }),
    margins95: Type.Array(
      Type.Object({
        bandFloor: Type.Integer(),
        cadence: Type.Enum(['daily', 'weekly', 'weekly-derived']),
        days: Type.Optional(Type.Integer()),
        indexValue: Num,
        pillars: Num,
      }),
      { description: '95% margin of error per band floor and cadence, index points' },
    ),
  },
  { description: 'tacsi-m2: zCDP, exact discrete Gaussian on the five pillar means' },
);

export const TacsiNotice = Type.Object(
  {
    id: Type.String(),
    title: Type.String(),
    detail: Type.String(),
    methodologyVersion: Type.Union([Type.String(), Type.Null()], {
      description: 'the methodology it concerns, if one',
    }),
    announcedAt: Type.String({ format: 'date-time' }),
    effectiveOn: {
      ...DateOnly,
      description: 'the day it takes effect (always after the day it was announced)',
    },
  },
  { $id: 'TacsiNotice' },
);

/** One correction: a later vintage of a published cell, with its reason (never a value). */
export const TacsiCorrection = Type.Object(
  {
    sector: Type.String(),
    feed: Type.Enum(['weekly', 'daily'], {
      description:
        '`weekly`: a weekly cell (the weekly, history and pillars feeds and the archive download); `daily`: a daily cell',
    }),
    periodEnd: DateOnly,
    vintage: Type.Integer({ minimum: 2, description: 'the vintage the correction published' }),
    reason: Type.String({ description: 'why the cell was corrected, as the operator stated it' }),
    publishedAt: Type.String({
      format: 'date-time',
      description:
        'when the new vintage was published: a history read with an earlier asOf answers the one before',
    }),
  },
  { $id: 'TacsiCorrection' },
);

/** GET /v1/tacsi/corrections (extension). */
export const CorrectionsFeed = Type.Object(
  {
    sector: Type.String(),
    count: Type.Integer(),
    pageMax: Type.Integer(),
    hasMore: Type.Boolean(),
    nextCursor: Type.Union([Type.String(), Type.Null()], {
      description: 'the cursor of the next (older) page while hasMore, else null',
    }),
    corrections: Type.Array(TacsiCorrection, { description: 'newest first' }),
  },
  { $id: 'TacsiCorrectionsFeed' },
);

/** GET /v1/tacsi/notices (extension). */
export const NoticesFeed = Type.Object(
  { notices: Type.Array(TacsiNotice, { description: 'latest effective date first' }) },
  { $id: 'TacsiNoticesFeed' },
);

/** GET /v1/tacsi/calendar (extension). */
export const CalendarFeed = Type.Object(
  {
    lagPolicy: Type.Object({
      daily: Type.String(),
      weekly: Type.String(),
      revisions: Type.String(),
      corrections: Type.String({ description: 'how a correction is published (GET /v1/tacsi/corrections)' }),
    }),
    sectors: Type.Array(
      Type.Object({
        slug: Type.String(),
        feeds: Type.Array(
          Type.Object({
            feed: Type.Enum(['weekly', 'history', 'pillars', 'daily']),
            nextPublication: Type.String({
              format: 'date-time',
              description: 'the next scheduled publication run',
            }),
            periodEnd: { ...DateOnly, description: 'the period that run publishes' },
          }),
        ),
      }),
      { description: 'the sectors this key may read, as in GET /v1/tacsi/sectors' },
    ),
  },
  { $id: 'TacsiCalendarFeed' },
);

const Span = Type.Union(
  [Type.Object({ first: DateOnly, last: DateOnly, count: Type.Integer() }), Type.Null()],
  { description: 'first and last published period ends and the number of cells; null when none' },
);

/** GET /v1/tacsi/coverage (extension). */
export const CoverageFeed = Type.Object(
  {
    sectors: Type.Array(
      Type.Object({
        slug: Type.String(),
        weekly: Span,
        daily: { ...Span, description: 'null without the daily feed for the sector, or none published' },
        bands: Type.Array(Type.Object({ cohortBand: Type.String(), from: DateOnly, to: DateOnly }), {
          description: 'runs of consecutive published weeks with one cohort band, oldest first',
        }),
      }),
      { description: 'the sectors this key may read, as in GET /v1/tacsi/sectors' },
    ),
  },
  { $id: 'TacsiCoverageFeed' },
);

export const MethodologyFeed = Type.Object(
  {
    current: Type.String({ description: 'the methodology new periods are published under' }),
    cutOver: Type.Object({ version: Type.String(), periodsEndingOnOrAfter: DateOnly }),
    methodologies: Type.Array(Type.Union([LaplaceMethodology, GaussianMethodology])),
    notices: Type.Array(TacsiNotice, {
      description: 'methodology notices not yet in effect (extension; all of them: GET /v1/tacsi/notices)',
    }),
    corrections: Type.Object(
      { feed: Type.String(), policy: Type.String() },
      { description: 'where corrections are listed and how they are made (extension)' },
    ),
    forwardSignal: Type.Object({
      method: Type.String(),
      horizon: Type.String(),
      minArchiveWeeks: Type.Integer(),
    }),
  },
  { $id: 'TacsiMethodologyFeed' },
);

/** GET /v1/tacsi/sectors (extension): the sectors this key may read today, and through which feeds. */
export const LicensedSectors = Type.Object(
  {
    sectors: Type.Array(
      Type.Object({
        slug: Type.String({
          description: 'the `sector` parameter of the feeds; `headline` with the Full Database',
        }),
        name: Type.String(),
        feeds: Type.Array(Type.Enum(['weekly', 'history', 'pillars', 'daily']), {
          description: 'the feeds this key may read for the sector',
        }),
        pillars: Type.Array(Type.Enum([...PILLARS].sort()), {
          description: 'the pillars its pillar feed answers (empty without the pillars feed)',
        }),
      }),
      { description: 'the headline first when held, then sectors by slug; sectors not licensed are absent' },
    ),
  },
  {
    $id: 'LicensedSectors',
    examples: [
      {
        sectors: [
          {
            slug: 'food-and-beverage',
            name: 'Food & Beverage',
            feeds: ['weekly', 'history', 'pillars', 'daily'],
            pillars: ['impact', 'momentum', 'presence', 'reach', 'sentiment'],
          },
          {
            slug: 'consumer-electronics',
            name: 'Consumer Electronics',
            feeds: ['pillars'],
            pillars: ['sentiment'],
          },
        ],
      },
    ],
  },
);

export const SectorQuery = Type.Object({ sector: SectorParam }, { additionalProperties: false });

// The bodies' types, for the functions that build them.
export type TacsiCellBody = Static<typeof TacsiCell>;
export type MarginOfErrorBody = Static<typeof MarginOfError>;
export type ForwardSignalBody = Static<typeof ForwardSignal>;
export type WeeklyFeedBody = Static<typeof WeeklyFeed>;
export type HistoryFeedBody = Static<typeof HistoryFeed>;
export type PillarFeedBody = Static<typeof PillarFeed>;
export type DailyFeedBody = Static<typeof DailyFeed>;
export type NoticeBody = Static<typeof TacsiNotice>;
export type CorrectionBody = Static<typeof TacsiCorrection>;
export type CorrectionsFeedBody = Static<typeof CorrectionsFeed>;
export type NoticesFeedBody = Static<typeof NoticesFeed>;
export type CalendarFeedBody = Static<typeof CalendarFeed>;
export type CoverageFeedBody = Static<typeof CoverageFeed>;
export type MethodologyFeedBody = Static<typeof MethodologyFeed>;
export type LicensedSectorsBody = Static<typeof LicensedSectors>;

// OpenAPI examples shared by several feeds.

export const CELL = {
  periodEnd: '2026-11-22',
  indexValue: 63.4,
  delta: 0.8,
  pillars: { impact: 61.2, momentum: 58.9, presence: 70.3, reach: 62.7, sentiment: 64.1 },
  cohortBand: 'n >= 100',
  methodologyVersion: 'tacsi-m1',
  marginOfError: { indexValue: 0.9, pillars: 1.4 },
  publishedAt: '2026-11-23T03:30:00.000Z',
  vintage: 1,
};
export const COVERAGE_EXAMPLE = {
  sectors: [
    {
      slug: 'food-and-beverage',
      weekly: { first: '2024-11-24', last: '2026-11-22', count: 105 },
      daily: { first: '2026-11-23', last: '2026-11-24', count: 2 },
      bands: [
        { cohortBand: 'n >= 100', from: '2024-11-24', to: '2025-06-29' },
        { cohortBand: 'n >= 250', from: '2025-07-06', to: '2026-11-22' },
      ],
    },
  ],
};
export const earlier = (periodEnd: string, indexValue: number) => ({ ...CELL, periodEnd, indexValue });
export const HISTORY_EXAMPLE = {
  sector: 'food-and-beverage',
  from: null,
  to: null,
  count: 2,
  pageMax: 260,
  hasMore: true,
  nextBefore: '2026-11-15',
  rows: [CELL, earlier('2026-11-15', 62.6)],
};
