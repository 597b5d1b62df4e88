import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { workspacePrincipal } from '../infra/auth/auth-plugin.ts';
import { errorResponses, json } from '../infra/http/schemas.ts';
import { currentScore } from './current-score.ts';
import { scoreHistory } from './history.ts';
import {
  Score,
  SCORE_EXAMPLE,
  ScoreHistory,
  SCORE_HISTORY_EXAMPLE,
  ScoreHistoryQuery,
  ScoreQuery,
} from './schemas.ts';
import { scoreCache } from './score-cache.ts';
import { cachedJson } from '../infra/notified-cache.ts';
import { sendJsonBytes, serialize200 } from '../infra/http/json-bytes.ts';
import { utcDay } from '../core/days.ts';

export async function scoreRoutes(fastify: FastifyInstance): Promise<void> {
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

  app.get(
    '/v1/score/history',
    {
      config: { auth: { audience: 'workspace', plan: 'pro', action: 'score.read' } },
      schema: {
        operationId: 'getScoreHistory',
        tags: ['scores'],
        summary: 'Score history',
        description:
          'Stored daily scores of one formula (default the current, v2) in [start_date, end_date]; weekly and monthly points are the last stored day of each ISO week or month.',
        querystring: ScoreHistoryQuery,
        response: {
          200: json(ScoreHistory, 'Score points in the range, oldest first', SCORE_HISTORY_EXAMPLE),
          ...errorResponses(403, 404),
        },
      },
    },
    async (request) =>
      scoreHistory(app.ctx.db, app.ctx.timeline, workspacePrincipal(request), request.query, app.ctx.now()),
  );
}
