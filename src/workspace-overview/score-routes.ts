// GET /v1/score: the current score (src/workspace-overview/current-score.ts), served through the score
// cache. With GET /v1/workspace it sits above the domains it reads (scoring, audits, platforms).
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { workspacePrincipal } from '../infra/auth/auth-plugin.ts';
import { errorResponses, json } from '../infra/http/schemas.ts';
import { currentScore } from './current-score.ts';
import { Score, SCORE_EXAMPLE, ScoreQuery } from '../scoring/schemas.ts';
import { scoreCache } from '../scoring/score-cache.ts';
import { cachedJson } from '../infra/notified-cache.ts';
import { sendJsonBytes, serialize200 } from '../infra/http/json-bytes.ts';
import { utcDay } from '../core/days.ts';

export async function currentScoreRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const cache = scoreCache(app.ctx);
  app.addHook('onReady', () => cache.start(app.ctx));
  app.addHook('onClose', () => cache.stop());

  app.get(
    '/v1/score',
    {
      config: { auth: { audience: 'workspace', plan: 'pro', action: 'score.read' } },
      schema: {
        operationId: 'getScore',
        tags: ['scores'],
        summary: 'Current Brand Credit Score',
        description:
          'The latest completed audit, or a live calculation for Agency keys on workspaces with real-time scoring.',
        querystring: ScoreQuery,
        response: {
          200: json(Score, 'The current score', SCORE_EXAMPLE),
          ...errorResponses(403, 404),
        },
      },
    },
    async (request, reply) => {
      const principal = workspacePrincipal(request);
      const { workspace_id: requested, include_pillars: includePillars } = request.query;
      // Everything the answer depends on besides the workspace's rows: the key owner (tenancy and
      // visibility), its plan (real-time or not), the variant asked, and the day (`stale`).
      const variant = `${principal.workspaceId} ${principal.plan} ${includePillars} ${utcDay(app.ctx.now())}`;
      const body = await cachedJson(cache, requested ?? principal.workspaceId, variant, async () =>
        serialize200(reply, await currentScore(app.ctx, principal, requested, includePillars)),
      );
      return sendJsonBytes(reply, body);
    },
  );
}
