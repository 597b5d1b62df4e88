import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { workspacePrincipal } from '../infra/auth/auth-plugin.ts';
import { errorResponses, json, Timestamp } from '../infra/http/schemas.ts';
import { connectionsHoldingPlace } from '../platforms/queries.ts';
import { auditsUsed } from './queries.ts';
import { currentCompositeScore } from '../scoring/current-score.ts';
import { BILLING_PERIODS, PLAN_LIMITS, PLANS } from '../core/catalog.ts';
import { resolveWorkspace } from './tenancy.ts';

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

export async function workspaceRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/v1/workspace',
    {
      config: { auth: { audience: 'workspace', plan: 'pro', scope: 'read' } },
      schema: {
        operationId: 'getWorkspace',
        tags: ['workspace'],
        summary: "The API key owner's workspace",
        description:
          "The key owner's workspace with its plan limits, this month's audit use and its latest Brand Credit Score.",
        response: {
          200: json(WorkspaceResource, 'The workspace', {
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
          }),
          ...errorResponses(403, 404),
        },
      },
    },
    async (request) => {
      const principal = workspacePrincipal(request);
      const { db, now } = app.ctx;
      const ws = await resolveWorkspace(db, principal, undefined);
      const limits = PLAN_LIMITS[ws.plan];
      const [used, connected, score] = await Promise.all([
        auditsUsed(db, ws.id, now()),
        connectionsHoldingPlace(db, ws.id).then((c) => c.length),
        currentCompositeScore(app.ctx, principal, ws.id),
      ]);
      return {
        id: ws.id,
        name: ws.name,
        plan: ws.plan,
        billing_period: ws.billing_period,
        team_members: ws.team_members,
        team_limit: limits.teamLimit,
        platforms_connected: connected,
        platform_limit: limits.platformLimit,
        audits_used: used,
        audits_limit: limits.auditsPerMonth,
        current_core_score: score,
        created_at: ws.created_at.toISOString(),
      };
    },
  );
}
