import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { workspacePrincipal } from '../infra/auth/auth-plugin.ts';
import { errorResponses, Timestamp } from '../infra/http/schemas.ts';
import { connectedPlatforms } from '../platforms/queries.ts';
import { auditsUsed, latestCompositeScore } from './queries.ts';
import { PLAN_LIMITS } from '../core/catalog.ts';
import { resolveWorkspace } from './tenancy.ts';

const WorkspaceResource = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    plan: Type.String({ description: 'free, pro, agency or enterprise' }),
    billing_period: Type.String({ description: 'monthly or annual' }),
    team_members: Type.Integer(),
    team_limit: Type.Integer(),
    platforms_connected: Type.Integer(),
    platform_limit: Type.Union([Type.Integer(), Type.Null()], { description: 'null: every platform' }),
    audits_used: Type.Integer({
      description: 'audits started this calendar month (UTC), failed ones excluded',
    }),
    audits_limit: Type.Union([Type.Integer(), Type.Null()], {
      description: 'per calendar month; null: unlimited',
    }),
    current_core_score: Type.Union([Type.Number(), Type.Null()], {
      description: 'latest Brand Credit Score (0-100); null before the first audit',
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
        tags: ['workspace'],
        summary: "The API key owner's workspace",
        response: { 200: WorkspaceResource, ...errorResponses(403, 404) },
      },
    },
    async (request) => {
      const principal = workspacePrincipal(request);
      const { db, now } = app.ctx;
      const ws = await resolveWorkspace(db, principal, undefined);
      const limits = PLAN_LIMITS[ws.plan];
      const [used, connected, score] = await Promise.all([
        auditsUsed(db, ws.id, now()),
        connectedPlatforms(db, ws.id).then((p) => p.length),
        latestCompositeScore(db, ws.id),
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
