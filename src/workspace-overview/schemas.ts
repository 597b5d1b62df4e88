// TypeBox schemas of the workspace endpoint, with its OpenAPI example.
import { Type, type Static } from 'typebox';
import { Timestamp } from '../infra/http/schemas.ts';
import { BILLING_PERIODS, PLANS } from '../core/catalog.ts';

const Count = (description?: string) =>
  Type.Integer({ minimum: 0, maximum: 1_000_000, format: 'int32', ...(description ? { description } : {}) });

export const WorkspaceResource = Type.Object(
  {
    id: Type.String({ maxLength: 64, pattern: '^ws_[0-9A-Z]{26}$' }),
    name: Type.String({ maxLength: 200 }),
    plan: Type.Enum([...PLANS]),
    billing_period: Type.Enum([...BILLING_PERIODS]),
    team_members: Count(),
    team_limit: Count(),
    platforms_connected: Count(),
    platform_limit: Type.Union([Count(), Type.Null()], { description: 'null: every platform' }),
    audits_used: Count('audits started this calendar month (UTC), failed ones excluded'),
    audits_limit: Type.Union([Count(), Type.Null()], {
      description: 'per calendar month; null: unlimited',
    }),
    current_core_score: Type.Union([Type.Number(), Type.Null()], {
      description:
        'the current Brand Credit Score (0-100), as GET /v1/score answers it; null when that has none',
    }),
    created_at: Timestamp,
  },
  { $id: 'Workspace' },
);

export const WORKSPACE_EXAMPLE: Static<typeof WorkspaceResource> = {
  id: 'ws_01JD8Z6Q9W4T3B2N1M0K5R7H8C',
  name: 'Bluebird Coffee',
  plan: 'pro',
  billing_period: 'monthly',
  team_members: 3,
  team_limit: 5,
  platforms_connected: 3,
  platform_limit: 3,
  audits_used: 1,
  audits_limit: 10,
  current_core_score: 68.2,
  created_at: '2024-11-23T10:00:00.000Z',
};
