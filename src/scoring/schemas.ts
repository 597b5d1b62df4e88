// TypeBox schemas of the score endpoints, with their OpenAPI examples, and of the formula v2 extension
// fields shared by the score and audit responses.
import { Type, type Static } from 'typebox';
import { TimelineAnnotation, TIMELINE_EXAMPLE } from '../annotations/schemas.ts';
import { PLANS } from '../core/catalog.ts';
import {
  CrisisData,
  ScoreDriverData,
  DateOnly,
  Grade,
  Timestamp,
  withDefault,
  WorkspaceIdInput,
} from '../infra/http/schemas.ts';
import { CURRENT_FORMULA, FORMULA_VERSIONS } from './daily-scores.ts';
import { GRADING } from './grading.ts';

/** The steps GET /v1/score/history aggregates stored days by. */
export const GRANULARITIES = ['daily', 'weekly', 'monthly'] as const;

export const ScoreInterval = Type.Object(
  {
    low: Type.Number({ description: 'lower bound, 0-100' }),
    high: Type.Number({ description: 'upper bound, 0-100' }),
  },
  {
    description:
      'extension (formula v2): 90% interval (docs/scoring.md: formula v3 combines sampling-noise intervals of sentiment and momentum with a delete-a-block jackknife of the other pillars; v2 jackknifes all)',
  },
);

export const AuthenticityFlags = Type.Array(
  Type.Object({
    code: Type.Enum(
      [
        'follower_spike',
        'engagement_pod',
        'view_spike',
        'views_unreported',
        'follower_drip',
        'bought_likes',
        'filler_posts',
        'comments_deleted',
        'sentiment_unscored',
      ],
      {
        description:
          "follower_spike: growth beyond the account's own history (not counted); engagement_pod: engagement per view above the account's own history with no rise in views, or with comments by the same accounts on every post or within an hour of it well above its history (the excess not credited); view_spike: one day holds > 30% of the views (capped); views_unreported: visibility not scored; v3 adds follower_drip: cumulative growth over 21-30 days beyond the account's own rate that views did not follow (not counted), bought_likes: likes per view and per comment above the account's own history (the excess not credited), filler_posts: posting well above the account's own pace without the views to carry it (only the posts its views carry count), comments_deleted: a post's comment count fell between syncs (the deleted comments count as negative), sentiment_unscored: at least 20% of the window's comments are in a language no sentiment model covers (the sentiment pillar stands on the rest)",
      },
    ),
    platform: Type.String(),
    day: Type.Union([Type.String({ format: 'date' }), Type.Null()], {
      description: 'the day the evidence points at; null for the whole window',
    }),
    detail: Type.String({ description: 'one sentence with the figures' }),
  }),
  {
    description:
      'extension (formula v2): evidence for a human to look at, not a verdict; the score already leaves the flagged data out',
  },
);

export const Stale = Type.Boolean({
  description: 'extension (formula v2): the latest snapshot is more than 3 days old (see latest_data_day)',
});

export const LatestDataDay = Type.Union([Type.String({ format: 'date' }), Type.Null()], {
  description: 'extension (formula v2): the latest day with a snapshot over the scored platforms',
});

export const Baseline = Type.Object(
  {
    version: Type.String({ maxLength: 32, description: 'the re-basing year and revision, e.g. 2025.1' }),
    dated: Type.Union([Type.String({ format: 'date', maxLength: 10 }), Type.Null()], {
      description: 'day the baselines were re-based; null for a version this service no longer describes',
    }),
    reference: Type.Enum(['modelled', 'measured'], {
      description:
        'modelled: 50 is the median of a population generated from published benchmarks, not of measured accounts',
    }),
    industry: Type.String({
      maxLength: 64,
      description:
        'the benchmark industry of the workspace\'s sector (e.g. "sports-teams"), whose published figures are used where there are any (TikTok engagement per view), or "all"',
    }),
  },
  {
    description:
      'extension (formula v3): what the scale stands on (docs/scoring.md "Formula v3: the scale"), re-based yearly',
  },
);

/**
 * How to read a v2 score, served from the engine's one definition (COMPOSITE_GRADE_CUTOFFS_V2,
 * GRADE_HYSTERESIS) so a legend never carries its own copy of the numbers.
 */
export const Grading = Type.Object(
  {
    median: Type.Number({ description: 'the score of the median account of the reference population (50)' }),
    grades: Type.Array(
      Type.Object({
        grade: Grade,
        min: Type.Union([Type.Number(), Type.Null()], {
          description: 'lower bound of the band (inclusive); null for the lowest band',
        }),
        population_share: Type.Number({ description: 'share of the reference population in the band, 0-1' }),
      }),
      { maxItems: 5, description: 'best first' },
    ),
    hysteresis: Type.Number({
      description:
        'a grade changes only when the score passes a cutoff by this many points, so a score just below a cutoff can keep the higher grade it had, and one just above can keep the lower one',
    }),
  },
  {
    description: 'extension (formula v2): the grade bands and the hysteresis rule (docs/scoring.md "Grades")',
  },
);

export const LookbackDays = Type.Integer({
  minimum: 1,
  description:
    "extension (formula v2): the window, in days up to latest data, that the score stands on (the latest audit's look-back, or the default window for a live score)",
});

export const Drivers = Type.Union(
  [
    Type.Array(ScoreDriverData, {
      maxItems: 64,
      description: 'largest effect first, whether it lifts the score (+) or holds it back (-)',
    }),
    Type.Null(),
  ],
  {
    description:
      'extension (formula v3): why the score is what it is: every measured input against the median account of its platform and size, with the points it puts the score above or below 50 and a sentence (docs/scoring.md "Why the score is what it is"); null on a v3 score stored without them',
  },
);

/** Drivers of the examples: an Instagram account a little above the median account. */
export const DRIVERS_EXAMPLE: Static<typeof Drivers> = [
  {
    pillar: 'reach',
    platform: 'instagram',
    metric: 'views_per_follower_day',
    value: 0.148279,
    median: 0.110088,
    points: 0.89,
    text: 'Views per follower on Instagram: 14.8 views a day per 100 followers against 11.0 for the median account of its platform and size; lifts the score 0.9 points.',
  },
  {
    pillar: 'momentum',
    platform: 'instagram',
    metric: 'engagement_trend',
    value: 0.171771,
    median: 0,
    points: 0.34,
    text: 'Engagement trend on Instagram: +17% in 28 days against flat for the median account of its platform and size; lifts the score 0.3 points.',
  },
  {
    pillar: 'impact',
    platform: 'instagram',
    metric: 'engagement_per_view',
    value: 0.0203065,
    median: 0.0208548,
    points: -0.17,
    text: 'Engagement per view on Instagram: 2.03% of views engaging against 2.09% for the median account of its platform and size; holds the score back 0.2 points.',
  },
  {
    pillar: 'presence',
    platform: 'instagram',
    metric: 'posts_per_week',
    value: 4.35556,
    median: 4.5,
    points: -0.16,
    text: 'Posts a week on Instagram: 4.4 posts a week against 4.5 for the median account of its platform and size; holds the score back 0.2 points.',
  },
];

export const GradeRange = Type.Object(
  {
    low: Grade,
    high: Grade,
  },
  {
    description:
      "extension (formula v2): the grades of the 90% interval's low and high ends, by the bands alone (no hysteresis); the score's grade may be any band between them, so two different grades mean the grade itself is uncertain",
  },
);

/** Extension fields of a v2 or v3 score (absent on v1 scores; crisis, baseline and drivers on v3 only). */
export const V2ScoreFields = {
  interval: Type.Optional(ScoreInterval),
  grade_range: Type.Optional(GradeRange),
  pillar_intervals: Type.Optional(
    Type.Object(
      {
        presence: ScoreInterval,
        reach: ScoreInterval,
        impact: ScoreInterval,
        sentiment: ScoreInterval,
        momentum: ScoreInterval,
      },
      { description: 'extension (formula v2): 90% interval of each pillar' },
    ),
  ),
  stale: Type.Optional(Stale),
  latest_data_day: Type.Optional(LatestDataDay),
  authenticity_flags: Type.Optional(AuthenticityFlags),
  crisis: Type.Optional(CrisisData),
  baseline: Type.Optional(Baseline),
  drivers: Type.Optional(Drivers),
  lookback_days: Type.Optional(LookbackDays),
  grading: Type.Optional(Grading),
};

const PillarScore = Type.Number({ minimum: 0, maximum: 100 });

export const Pillars = Type.Object(
  {
    presence: PillarScore,
    reach: PillarScore,
    impact: PillarScore,
    sentiment: PillarScore,
    momentum: PillarScore,
  },
  { $id: 'Pillars', description: 'pillar scores, 0-100' },
);

export const Score = Type.Object(
  {
    score: Type.Number({
      minimum: 0,
      maximum: 100,
      description: 'composite Brand Credit Score (IMPRS), 0-100',
    }),
    pillars: Type.Optional(Pillars),
    grade: Grade,
    formula_version: Type.String({
      maxLength: 20,
      pattern: '^v\\d+$',
      description: 'v3 for new scores; the latest audit keeps the formula it was scored with (v1, v2 or v3)',
    }),
    calculated_at: Timestamp,
    workspace_id: Type.String({ maxLength: 64, pattern: '^ws_[0-9A-Z]{26}$' }),
    tier: Type.Enum([...PLANS], { description: "the workspace's plan" }),
    source: Type.Enum(['audit', 'realtime'], {
      description: 'audit (latest completed audit) or realtime (live calculation)',
    }),
    ...V2ScoreFields,
  },
  { $id: 'Score' },
);

export const ScoreHistory = Type.Object(
  {
    workspace_id: Type.String({ maxLength: 64, pattern: '^ws_[0-9A-Z]{26}$' }),
    granularity: Type.Enum([...GRANULARITIES]),
    formula_version: Type.Enum([...FORMULA_VERSIONS], {
      description: 'extension: the formula of every point (a series never mixes formulas)',
    }),
    data: Type.Array(
      Type.Object({ date: DateOnly, score: PillarScore, pillars: Pillars }, { $id: 'ScorePoint' }),
      { maxItems: 3700, description: 'oldest first' },
    ),
    delta: Type.Object({
      score: Type.String({
        maxLength: 12,
        pattern: '^[+-]\\d+\\.\\d$',
        description: 'last point minus first, signed, e.g. "+4.2"',
      }),
      period: Type.String({
        maxLength: 30,
        pattern: '^(\\d{4}-\\d{2}-\\d{2} to \\d{4}-\\d{2}-\\d{2})?$',
        description: '"FIRST to LAST" (YYYY-MM-DD)',
      }),
    }),
    annotations: Type.Array(TimelineAnnotation, {
      description:
        "extension: the workspace's notes (source user) and the service's events (source service: completed " +
        'audits, platforms connected and disconnected, crises started and ended) from start_date to end_date, ' +
        'by day; each keeps its own day whatever the granularity (docs/annotations.md)',
    }),
  },
  { $id: 'ScoreHistory' },
);

const PILLARS_EXAMPLE = { presence: 62.1, reach: 56.8, impact: 60.2, sentiment: 51.9, momentum: 50.3 };

const WorkspaceId = Type.Optional(WorkspaceIdInput);

export const ScoreQuery = Type.Object(
  {
    workspace_id: WorkspaceId,
    include_pillars: withDefault(
      Type.Boolean({ default: true, description: 'include the five pillar scores' }),
    ),
  },
  { additionalProperties: false },
);

export const ScoreHistoryQuery = Type.Object(
  {
    workspace_id: WorkspaceId,
    start_date: Type.Optional(
      Type.String({
        maxLength: 40,
        pattern: '^\\d{4}-\\d{2}-\\d{2}',
        description: 'ISO 8601 date or date-time; default 90 days before end_date',
        examples: ['2026-08-23'],
      }),
    ),
    end_date: Type.Optional(
      Type.String({
        maxLength: 40,
        pattern: '^\\d{4}-\\d{2}-\\d{2}',
        description: 'ISO 8601 date or date-time; default today',
        examples: ['2026-11-22'],
      }),
    ),
    granularity: withDefault(Type.Enum([...GRANULARITIES], { default: 'weekly' })),
    formula_version: Type.Optional(
      Type.Enum([...FORMULA_VERSIONS], {
        description: `extension: the formula whose stored scores to return; default ${CURRENT_FORMULA} (the current one). Stored v1 scores stay readable with v1.`,
      }),
    ),
  },
  { additionalProperties: false },
);

export const SCORE_EXAMPLE: Static<typeof Score> = {
  score: 58.4,
  pillars: PILLARS_EXAMPLE,
  grade: 'strong',
  formula_version: 'v3',
  calculated_at: '2026-11-20T09:12:41.000Z',
  workspace_id: 'ws_01JD8Z6Q9W4T3B2N1M0K5R7H8C',
  tier: 'pro',
  source: 'audit',
  interval: { low: 55.9, high: 60.8 },
  grade_range: { low: 'strong', high: 'elite' },
  pillar_intervals: {
    presence: { low: 58.7, high: 65.2 },
    reach: { low: 53.1, high: 60.4 },
    impact: { low: 56.0, high: 63.9 },
    sentiment: { low: 47.5, high: 56.2 },
    momentum: { low: 45.8, high: 54.1 },
  },
  stale: false,
  latest_data_day: '2026-11-19',
  authenticity_flags: [],
  crisis: {
    active: false,
    negative_share: 0.082,
    baseline_negative_share: 0.075,
    volume_ratio: 1.04,
    since: null,
  },
  baseline: { version: '2025.1', dated: '2025-03-01', reference: 'modelled', industry: 'all' },
  drivers: DRIVERS_EXAMPLE,
  lookback_days: 90,
  grading: GRADING,
};

export const SCORE_HISTORY_EXAMPLE: Static<typeof ScoreHistory> = {
  workspace_id: 'ws_01JD8Z6Q9W4T3B2N1M0K5R7H8C',
  granularity: 'weekly',
  formula_version: 'v3',
  data: [
    { date: '2026-11-08', score: 66.9, pillars: { ...PILLARS_EXAMPLE, reach: 64.0 } },
    { date: '2026-11-15', score: 67.6, pillars: { ...PILLARS_EXAMPLE, reach: 65.3 } },
    { date: '2026-11-22', score: 68.2, pillars: PILLARS_EXAMPLE },
  ],
  delta: { score: '+1.3', period: '2026-11-08 to 2026-11-22' },
  annotations: TIMELINE_EXAMPLE,
};
