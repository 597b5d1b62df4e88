// GET /v1/workspace: the workspace as its people and programs see it, composed from the domains that own
// each figure (plan limits, audits used, connections, the current score, the team). It sits above them
// all, so the workspaces folder, which every domain imports for tenancy, imports none of them.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { workspacePrincipal } from '../infra/auth/auth-plugin.ts';
import { errorResponses, json } from '../infra/http/schemas.ts';
import { connectionsHoldingPlace } from '../platforms/queries.ts';
import { auditsUsed } from '../workspaces/queries.ts';
import { currentCompositeScore } from './current-score.ts';
import { PLAN_LIMITS } from '../core/catalog.ts';
import { WORKSPACE_EXAMPLE, WorkspaceResource } from './schemas.ts';
import { resolveWorkspace } from '../workspaces/tenancy.ts';
import { teamSize } from '../people/teams.ts';

export async function workspaceRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/v1/workspace',
    {
      config: { auth: { audience: 'workspace', plan: 'pro', action: 'score.read' } },
      schema: {
        operationId: 'getWorkspace',
        tags: ['workspace'],
        summary: "The API key owner's workspace",
        description:
          "The key owner's workspace with its plan limits, this month's audit use and its latest Brand Credit Score.",
        response: {
          200: json(WorkspaceResource, 'The workspace', WORKSPACE_EXAMPLE),
          ...errorResponses(403, 404),
        },
      },
    },
    async (request) => {
      const principal = workspacePrincipal(request);
      const { db, now } = app.ctx;
      const ws = await resolveWorkspace(db, principal, undefined);
      const limits = PLAN_LIMITS[ws.plan];
      const [used, connected, score, team] = await Promise.all([
        auditsUsed(db, ws.id, now()),
        connectionsHoldingPlace(db, ws.id).then((c) => c.length),
        currentCompositeScore(app.ctx, principal, ws.id),
        teamSize(db, ws.id),
      ]);
      return {
        id: ws.id,
        name: ws.name,
        plan: ws.plan,
        billing_period: ws.billing_period,
        team_members: team,
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
