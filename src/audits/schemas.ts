import { Type, type Static, type TSchema } from 'typebox';
import { PILLARS } from '../core/catalog.ts';
import {
  Grade,
  PillarName,
  PlatformName,
  Timestamp,
  withDefault,
  WorkspaceIdInput,
} from '../infra/http/schemas.ts';
import {
  AuthenticityFlags,
  Baseline,
  Drivers,
  DRIVERS_EXAMPLE,
  LatestDataDay,
  ScoreInterval,
  GradeRange,
  Stale,
} from '../scoring/schemas.ts';
import { CrisisData } from '../infra/http/schemas.ts';

export const StartAuditBody = Type.Object(
  {
    workspace_id: Type.Optional(WorkspaceIdInput),
    platforms: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 32, pattern: '^[a-z]+$' }), {
        minItems: 1,
        maxItems: 5,
        description:
          'Connected platforms to include (instagram, tiktok, youtube, twitter, facebook), each once; default: every connected platform',
      }),
    ),
    lookback_days: withDefault(
      Type.Integer({
        minimum: 1,
        maximum: 365,
        default: 90,
        format: 'int32',
        description: 'days of metrics scored, 1-365',
      }),
    ),
    webhook_url: Type.Optional(
      Type.String({
        maxLength: 2048,
        description: 'HTTPS URL that receives audit.completed for this audit',
      }),
    ),
  },
  {
    additionalProperties: false,
    description: 'Every field is optional; the body itself may be omitted',
    examples: [{ platforms: ['instagram', 'tiktok'], lookback_days: 90 }],
  },
);

export const AuditStart = Type.Object(
  {
    audit_id: Type.String(),
    status: Type.Literal('processing'),
    estimated_completion: Timestamp,
    workspace_id: Type.String(),
    platforms_included: Type.Array(PlatformName),
    lookback_days: Type.Integer(),
    webhook_secret: Type.Optional(
      Type.String({
        description:
          'extension, only with webhook_url: the Standard Webhooks secret (whsec_...) that signs the audit.completed delivery to that URL. Returned only in this response; verify with new Webhook(webhook_secret).',
      }),
    ),
  },
  { $id: 'AuditStart' },
);

const AuditPillar = Type.Object(
  {
    score: Type.Integer({ description: '0-100' }),
    change: Type.String({
      description: 'signed change against the previous completed audit, e.g. "+4.2"; "+0.0" on the first',
    }),
    grade: Type.Enum(['green', 'yellow', 'red'], {
      description: 'v1: green (>= 65), yellow (>= 40) or red; v2: green (>= 60), yellow (>= 40) or red',
    }),
    interval: Type.Optional(ScoreInterval),
  },
  { description: 'one pillar of an audit' },
);

const NullableString = (description: string) => Type.Union([Type.String(), Type.Null()], { description });

/** Where the benchmark comes from (extension of the spec). */
export const BenchmarkBasis = Type.Object(
  {
    status: Type.Enum(
      [
        'published',
        'no_distribution',
        'no_sector',
        'not_consumer_sector',
        'not_published',
        'coarse_distribution',
        'legacy_withdrawn',
      ],
      {
        description:
          'published: both fields set; no_distribution, coarse_distribution: percentile null; otherwise both null. ' +
          'not_published also covers a sector licensed exclusively (the answer does not tell them apart); ' +
          'legacy_withdrawn: a benchmark stored before benchmarks came from published statistics',
      },
    ),
    reason: Type.String(),
    sector: NullableString('the workspace sector'),
    period_end: NullableString('week end (Sunday) of the published weekly cell used as industry_average'),
    methodology_version: NullableString('TACSI methodology of that cell'),
    cohort_band: NullableString('banded cohort size of that cell'),
    margin_of_error: Type.Union([Type.Number(), Type.Null()], {
      description: '95% margin of error of industry_average (index points)',
    }),
    distribution_period_end: NullableString(
      'week end of the published histogram the percentile is read from',
    ),
    percentile_interval: Type.Union(
      [Type.Object({ low: Type.Integer(), high: Type.Integer() }), Type.Null()],
      {
        description:
          '95% interval of the percentile from the noise law of the published histogram (on the same grid); null without a percentile',
      },
    ),
    percentile_granularity: Type.Integer({ description: 'the percentile is reported on this grid' }),
  },
  { $id: 'BenchmarkBasis', description: 'what the benchmark is derived from (extension)' },
);

export const CompletedAudit = Type.Object(
  {
    audit_id: Type.String(),
    status: Type.Literal('completed'),
    completed_at: Timestamp,
    workspace_id: Type.String(),
    score: Type.Number({ description: 'composite Brand Credit Score, 0-100' }),
    grade: Grade,
    formula_version: Type.String({
      description: 'v3 for new audits; earlier audits keep the formula they were scored with',
    }),
    interval: Type.Optional(ScoreInterval),
    grade_range: Type.Optional(GradeRange),
    stale: Type.Optional(Stale),
    latest_data_day: Type.Optional(LatestDataDay),
    authenticity_flags: Type.Optional(AuthenticityFlags),
    crisis: Type.Optional(CrisisData),
    baseline: Type.Optional(Baseline),
    drivers: Type.Optional(Drivers),
    pillars: Type.Object(Object.fromEntries(PILLARS.map((k) => [k, AuditPillar]))),
    recommendations: Type.Array(
      Type.Object({
        priority: Type.Integer({ description: '1 = most important' }),
        pillar: PillarName,
        action: Type.String(),
        expected_impact: Type.String(),
      }),
    ),
    industry_benchmark: Type.Object(
      {
        your_score: Type.Number(),
        industry_average: Type.Union([Type.Number(), Type.Null()], {
          description: "the sector's latest published TACSI weekly indexValue; null when none (see basis)",
        }),
        percentile: Type.Union([Type.Integer({ description: '0-100, on a grid of 5' }), Type.Null()], {
          description:
            "read from the sector's latest published peer distribution; null when none (see basis)",
        }),
        basis: BenchmarkBasis,
      },
      {
        description:
          'derived only from published, differentially private TACSI statistics (docs/privacy.md); a benchmark stored before that is withdrawn (basis.status legacy_withdrawn)',
      },
    ),
  },
  { $id: 'CompletedAudit' },
);

export const FailedAudit = Type.Object(
  {
    audit_id: Type.String(),
    status: Type.Literal('failed'),
    failed_at: Timestamp,
    workspace_id: Type.String(),
    failure_reason: Type.String(),
  },
  { $id: 'FailedAudit', description: 'An audit that could not complete; it used no quota' },
);

const AUDIT_STATUSES = ['processing', 'completed', 'failed'] as const;
const Nullable = <T extends TSchema>(schema: T, description: string) =>
  Type.Union([schema, Type.Null()], { description });

/**
 * One audit in GET /v1/audits (extension): what identifies and summarises it, never its result
 * (pillars, recommendations, benchmark), which GET /v1/audit/{audit_id} answers. Every field is
 * always present; those of another status are null, so one shape serves every status.
 */
export const AuditListItem = Type.Object(
  {
    audit_id: Type.String(),
    status: Type.Enum(AUDIT_STATUSES),
    workspace_id: Type.String(),
    created_at: Timestamp,
    platforms_included: Type.Array(PlatformName),
    lookback_days: Type.Integer(),
    estimated_completion: Nullable(Timestamp, 'while processing: when it should complete; otherwise null'),
    completed_at: Nullable(Timestamp, 'completed audits only'),
    failed_at: Nullable(Timestamp, 'failed audits only'),
    score: Nullable(Type.Number(), 'completed audits only: the composite Brand Credit Score, 0-100'),
    grade: Nullable(Type.String(), 'completed audits only: elite, strong, moderate, weak or critical'),
    formula_version: Nullable(Type.String(), 'completed audits only'),
    failure_reason: Nullable(Type.String(), 'failed audits only'),
  },
  { $id: 'AuditListItem' },
);

export const AuditListQuery = Type.Object(
  {
    workspace_id: Type.Optional(WorkspaceIdInput),
    status: Type.Optional(Type.Enum(AUDIT_STATUSES, { description: 'default: every status' })),
    limit: withDefault(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
    offset: withDefault(Type.Integer({ minimum: 0, maximum: 2_147_483_647, default: 0 })),
  },
  { additionalProperties: false },
);

export const AuditList = Type.Object(
  {
    audits: Type.Array(AuditListItem, { description: 'newest first (created_at, then audit_id)' }),
    total: Type.Integer({ description: 'audits matching the filter' }),
    limit: Type.Integer(),
    offset: Type.Integer(),
  },
  {
    $id: 'AuditList',
    examples: [
      {
        audits: [
          {
            audit_id: 'aud_01JD3Q5XK2V8M4T6R9B7C1N0PZ',
            status: 'completed',
            workspace_id: 'ws_01JD3Q2M8F5E7H9K1N3P5R7T9V',
            created_at: '2026-11-22T10:00:00.000Z',
            platforms_included: ['instagram', 'tiktok'],
            lookback_days: 90,
            estimated_completion: null,
            completed_at: '2026-11-22T10:00:01.204Z',
            failed_at: null,
            score: 68.4,
            grade: 'strong',
            formula_version: 'v1',
            failure_reason: null,
          },
          {
            audit_id: 'aud_01JCZ7W3B9D1F3H5K7M9P1R3T5',
            status: 'failed',
            workspace_id: 'ws_01JD3Q2M8F5E7H9K1N3P5R7T9V',
            created_at: '2026-11-15T09:30:00.000Z',
            platforms_included: ['instagram'],
            lookback_days: 30,
            estimated_completion: null,
            completed_at: null,
            failed_at: '2026-11-15T09:30:02.118Z',
            score: null,
            grade: null,
            formula_version: null,
            failure_reason: 'No metric data in the lookback window.',
          },
        ],
        total: 2,
        limit: 20,
        offset: 0,
      },
    ],
  },
);

const pillar = (score: number, change: string, grade: 'green' | 'yellow' | 'red') => ({
  score,
  change,
  grade,
});

export const COMPLETED_AUDIT_EXAMPLE: Static<typeof CompletedAudit> = {
  audit_id: 'aud_01JD8ZC4T6Y8K2M3N4P5Q6R7S8',
  status: 'completed',
  completed_at: '2026-11-20T09:13:02.000Z',
  workspace_id: 'ws_01JD8Z6Q9W4T3B2N1M0K5R7H8C',
  score: 58.4,
  grade: 'strong',
  formula_version: 'v3',
  pillars: {
    presence: pillar(62, '+2.1', 'green'),
    reach: pillar(57, '+1.4', 'yellow'),
    impact: pillar(60, '+0.8', 'green'),
    sentiment: pillar(52, '-0.6', 'yellow'),
    momentum: pillar(50, '+0.3', 'yellow'),
  },
  interval: { low: 55.9, high: 60.8 },
  grade_range: { low: 'strong', high: 'elite' },
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
  recommendations: [
    {
      priority: 1,
      pillar: 'sentiment',
      action: 'Reply to the most-discussed comments within a day to lift sentiment.',
      expected_impact: '+2.5 points on sentiment',
    },
  ],
  industry_benchmark: {
    your_score: 58.4,
    industry_average: 52.3,
    percentile: 70,
    basis: {
      status: 'published',
      reason:
        'industry_average is the sector’s latest published TACSI weekly index; percentile is read from its latest published peer distribution.',
      sector: 'food-and-beverage',
      period_end: '2026-11-22',
      methodology_version: 'tacsi-m2',
      cohort_band: 'n >= 250',
      margin_of_error: 2.22,
      distribution_period_end: '2026-11-22',
      percentile_interval: { low: 60, high: 80 },
      percentile_granularity: 5,
    },
  },
};

export const AuditResult = Type.Union([CompletedAudit, FailedAudit], { $id: 'AuditResult' });

export const AuditIdParam = Type.Object({
  audit_id: Type.String({
    minLength: 1,
    maxLength: 100,
    examples: ['aud_01JD8ZC4T6Y8K2M3N4P5Q6R7S8'],
  }),
});

export const AUDIT_START_EXAMPLE: Static<typeof AuditStart> = {
  audit_id: 'aud_01JD8ZC4T6Y8K2M3N4P5Q6R7S8',
  status: 'processing',
  estimated_completion: '2026-11-20T09:13:30.000Z',
  workspace_id: 'ws_01JD8Z6Q9W4T3B2N1M0K5R7H8C',
  platforms_included: ['instagram', 'tiktok'],
  lookback_days: 90,
};

export const AUDIT_LIMIT_EXAMPLE = {
  audits_used: 10,
  audits_limit: 10,
  resets_at: '2026-12-01T00:00:00.000Z',
};

export const TOO_EARLY_EXAMPLE = {
  audit_id: 'aud_01JD8ZC4T6Y8K2M3N4P5Q6R7S8',
  estimated_completion: '2026-11-20T09:13:30.000Z',
};
