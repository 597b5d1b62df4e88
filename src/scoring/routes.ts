import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { workspacePrincipal } from '../infra/auth/auth-plugin.ts';
import { DateOnly, errorResponses, Timestamp } from '../infra/http/schemas.ts';
import { currentScore } from './current-score.ts';
import { GRANULARITIES, scoreHistory } from './history.ts';
import { V2ScoreFields } from './schemas.ts';
import { CURRENT_FORMULA, FORMULA_VERSIONS } from './daily-scores.ts';

const Pillars = Type.Object(
  {
    presence: Type.Number(),
    reach: Type.Number(),
    impact: Type.Number(),
    sentiment: Type.Number(),
    momentum: Type.Number(),
  },
  { description: 'pillar scores, 0-100' },
);

const Score = Type.Object(
  {
    score: Type.Number({ description: 'composite Brand Credit Score (IMPRS), 0-100' }),
    pillars: Type.Optional(Pillars),
    grade: Type.String({ description: 'elite, strong, moderate, weak or critical' }),
    formula_version: Type.String({
      description: 'v2 for new scores; the latest audit keeps the formula it was scored with (v1 or v2)',
    }),
    calculated_at: Timestamp,
    workspace_id: Type.String(),
    tier: Type.String({ description: "the workspace's plan: free, pro, agency or enterprise" }),
    source: Type.String({ description: 'audit (latest completed audit) or realtime (live calculation)' }),
    ...V2ScoreFields,
  },
  { $id: 'Score' },
);

const History = Type.Object(
  {
    workspace_id: Type.String(),
    granularity: Type.String(),
    formula_version: Type.String({
      description: 'extension: the formula of every point (a series never mixes formulas)',
    }),
    data: Type.Array(Type.Object({ date: DateOnly, score: Type.Number(), pillars: Pillars })),
    delta: Type.Object({
      score: Type.String({ description: 'last point minus first, signed, e.g. "+4.2"' }),
      period: Type.String({ description: '"FIRST to LAST" (YYYY-MM-DD)' }),
    }),
  },
  { $id: 'ScoreHistory' },
);

const WorkspaceId = Type.Optional(
  Type.String({ minLength: 1, maxLength: 64, description: "default: the key owner's workspace" }),
);

export async function scoreRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/v1/score',
    {
      config: { auth: { audience: 'workspace', plan: 'pro', scope: 'read' } },
      schema: {
        tags: ['scores'],
        summary: 'Current Brand Credit Score',
        description:
          'The latest completed audit, or a live calculation for Agency keys on workspaces with real-time scoring.',
        querystring: Type.Object(
          {
            workspace_id: WorkspaceId,
            include_pillars: Type.Boolean({ default: true }),
          },
          { additionalProperties: false },
        ),
        response: { 200: Score, ...errorResponses(403, 404) },
      },
    },
    async (request) =>
      currentScore(
        app.ctx,
        workspacePrincipal(request),
        request.query.workspace_id,
        request.query.include_pillars,
      ),
  );

  app.get(
    '/v1/score/history',
    {
      config: { auth: { audience: 'workspace', plan: 'pro', scope: 'read' } },
      schema: {
        tags: ['scores'],
        summary: 'Score history',
        description:
          'Stored daily scores of one formula (default the current, v2) in [start_date, end_date]; weekly and monthly points are the last stored day of each ISO week or month.',
        querystring: Type.Object(
          {
            workspace_id: WorkspaceId,
            start_date: Type.Optional(
              Type.String({
                maxLength: 40,
                description: 'ISO 8601 date or date-time; default 90 days before end_date',
              }),
            ),
            end_date: Type.Optional(
              Type.String({ maxLength: 40, description: 'ISO 8601 date or date-time; default today' }),
            ),
            granularity: Type.Enum([...GRANULARITIES], { default: 'weekly' }),
            formula_version: Type.Optional(
              Type.Enum([...FORMULA_VERSIONS], {
                description: `extension: the formula whose stored scores to return; default ${CURRENT_FORMULA} (the current one). Stored v1 scores stay readable with v1.`,
              }),
            ),
          },
          { additionalProperties: false },
        ),
        response: { 200: History, ...errorResponses(403, 404) },
      },
    },
    async (request) => scoreHistory(app.ctx.db, workspacePrincipal(request), request.query, app.ctx.now()),
  );
}
