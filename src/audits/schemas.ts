import { Type } from 'typebox';
import { PillarName, PlatformName, Timestamp } from '../infra/http/schemas.ts';

const PILLAR_KEYS = ['presence', 'reach', 'impact', 'sentiment', 'momentum'] as const;

export const StartAuditBody = Type.Object(
  {
    workspace_id: Type.Optional(
      Type.String({ minLength: 1, maxLength: 64, description: "default: the key owner's workspace" }),
    ),
    platforms: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 32 }), {
        minItems: 1,
        maxItems: 5,
        description:
          'Connected platforms to include (instagram, tiktok, youtube, twitter, facebook), each once; default: every connected platform',
      }),
    ),
    lookback_days: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 365, default: 90, description: 'days of metrics scored, 1-365' }),
    ),
    webhook_url: Type.Optional(
      Type.String({ maxLength: 2048, description: 'HTTPS URL that receives audit.completed for this audit' }),
    ),
  },
  { additionalProperties: false },
);

export const AuditStart = Type.Object(
  {
    audit_id: Type.String(),
    status: Type.String({ description: 'processing' }),
    estimated_completion: Timestamp,
    workspace_id: Type.String(),
    platforms_included: Type.Array(PlatformName),
    lookback_days: Type.Integer(),
  },
  { $id: 'AuditStart' },
);

const AuditPillar = Type.Object({
  score: Type.Integer({ description: '0-100' }),
  change: Type.String({
    description: 'signed change against the previous completed audit, e.g. "+4.2"; "+0.0" on the first',
  }),
  grade: Type.String({ description: 'green (>= 65), yellow (>= 40) or red' }),
});

export const CompletedAudit = Type.Object(
  {
    audit_id: Type.String(),
    status: Type.Literal('completed'),
    completed_at: Timestamp,
    workspace_id: Type.String(),
    score: Type.Number({ description: 'composite Brand Credit Score, 0-100' }),
    grade: Type.String({ description: 'elite, strong, moderate, weak or critical' }),
    formula_version: Type.String(),
    pillars: Type.Object(Object.fromEntries(PILLAR_KEYS.map((k) => [k, AuditPillar]))),
    recommendations: Type.Array(
      Type.Object({
        priority: Type.Integer({ description: '1 = most important' }),
        pillar: PillarName,
        action: Type.String(),
        expected_impact: Type.String(),
      }),
    ),
    industry_benchmark: Type.Object({
      your_score: Type.Number(),
      industry_average: Type.Number(),
      percentile: Type.Integer({ description: '0-100' }),
    }),
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
