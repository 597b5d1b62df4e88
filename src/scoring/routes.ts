import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { workspacePrincipal } from '../infra/auth/auth-plugin.ts';
import { errorResponses, json } from '../infra/http/schemas.ts';
import { scoreHistory } from './history.ts';
import { ScoreHistory, SCORE_HISTORY_EXAMPLE, ScoreHistoryQuery } from './schemas.ts';

export async function scoreRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
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
