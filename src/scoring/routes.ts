import type { FastifyInstance, FastifyReply } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { workspacePrincipal } from '../infra/auth/auth-plugin.ts';
import { PLANS } from '../core/catalog.ts';
import {
  DateOnly,
  errorResponses,
  Grade,
  json,
  Timestamp,
  withDefault,
  WorkspaceIdInput,
} from '../infra/http/schemas.ts';
import { currentScore } from './current-score.ts';
import { GRANULARITIES, scoreHistory } from './history.ts';
import { V2ScoreFields } from './schemas.ts';
import { CURRENT_FORMULA, FORMULA_VERSIONS } from './daily-scores.ts';
import { scoreCache } from './score-cache.ts';
import { utcDay } from '../core/days.ts';

const PillarScore = Type.Number({ minimum: 0, maximum: 100 });

export const Pillars = Type.Object(
  {
    presence: PillarScore,
    reach: PillarScore,
    impact: PillarScore,
    sentiment: PillarScore,
    momentum: PillarScore,
  },
  { $id: 'Pillars', description: 'pillar scores, 0-100' },
);

export const Score = Type.Object(
  {
    score: Type.Number({
      minimum: 0,
      maximum: 100,
      description: 'composite Brand Credit Score (IMPRS), 0-100',
    }),
    pillars: Type.Optional(Pillars),
    grade: Grade,
    formula_version: Type.String({
      maxLength: 20,
      pattern: '^v\\d+$',
      description: 'v2 for new scores; the latest audit keeps the formula it was scored with (v1 or v2)',
    }),
    calculated_at: Timestamp,
    workspace_id: Type.String({ maxLength: 64, pattern: '^ws_[0-9A-Z]{26}$' }),
    tier: Type.Enum([...PLANS], { description: "the workspace's plan" }),
    source: Type.Enum(['audit', 'realtime'], {
      description: 'audit (latest completed audit) or realtime (live calculation)',
    }),
    ...V2ScoreFields,
  },
  { $id: 'Score' },
);

export const ScoreHistory = Type.Object(
  {
    workspace_id: Type.String({ maxLength: 64, pattern: '^ws_[0-9A-Z]{26}$' }),
    granularity: Type.Enum([...GRANULARITIES]),
    formula_version: Type.Enum([...FORMULA_VERSIONS], {
      description: 'extension: the formula of every point (a series never mixes formulas)',
    }),
    data: Type.Array(
      Type.Object({ date: DateOnly, score: PillarScore, pillars: Pillars }, { $id: 'ScorePoint' }),
      { maxItems: 3700, description: 'oldest first' },
    ),
    delta: Type.Object({
      score: Type.String({
        maxLength: 12,
        pattern: '^[+-]\\d+\\.\\d$',
        description: 'last point minus first, signed, e.g. "+4.2"',
      }),
      period: Type.String({
        maxLength: 30,
        pattern: '^(\\d{4}-\\d{2}-\\d{2} to \\d{4}-\\d{2}-\\d{2})?$',
        description: '"FIRST to LAST" (YYYY-MM-DD)',
      }),
    }),
  },
  { $id: 'ScoreHistory' },
);

const WorkspaceId = Type.Optional(WorkspaceIdInput);
const PILLARS_EXAMPLE = { presence: 62.1, reach: 56.8, impact: 60.2, sentiment: 51.9, momentum: 50.3 };

/** Sends JSON already serialized by the route's schema: Fastify sends a Buffer as is. */
function sendSerialized(reply: FastifyReply, body: Buffer): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(body);
}

export async function scoreRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const cache = scoreCache(app.ctx);
  app.addHook('onReady', () => cache.start(app.ctx));
  app.addHook('onClose', () => cache.stop());

  app.get(
    '/v1/score',
    {
      config: { auth: { audience: 'workspace', plan: 'pro', scope: 'read' } },
      schema: {
        operationId: 'getScore',
        tags: ['scores'],
        summary: 'Current Brand Credit Score',
        description:
          'The latest completed audit, or a live calculation for Agency keys on workspaces with real-time scoring.',
        querystring: Type.Object(
          {
            workspace_id: WorkspaceId,
            include_pillars: withDefault(
              Type.Boolean({ default: true, description: 'include the five pillar scores' }),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          200: json(Score, 'The current score', {
            score: 58.4,
            pillars: PILLARS_EXAMPLE,
            grade: 'strong',
            formula_version: 'v2',
            calculated_at: '2026-11-20T09:12:41.000Z',
            workspace_id: 'ws_01JD8Z6Q9W4T3B2N1M0K5R7H8C',
            tier: 'pro',
            source: 'audit',
            interval: { low: 55.9, high: 60.8 },
            pillar_intervals: {
              presence: { low: 58.7, high: 65.2 },
              reach: { low: 53.1, high: 60.4 },
              impact: { low: 56.0, high: 63.9 },
              sentiment: { low: 47.5, high: 56.2 },
              momentum: { low: 45.8, high: 54.1 },
            },
            stale: false,
            latest_data_day: '2026-11-19',
            authenticity_flags: [],
          }),
          ...errorResponses(403, 404),
        },
      },
    },
    async (request, reply) => {
      const principal = workspacePrincipal(request);
      const { workspace_id: requested, include_pillars: includePillars } = request.query;
      if (!cache.enabled) return currentScore(app.ctx, principal, requested, includePillars);
      // Everything the answer depends on besides the workspace's rows: the key owner (tenancy and
      // visibility), its plan (real-time or not), the variant asked, and the day (`stale`).
      const workspaceId = requested ?? principal.workspaceId;
      const variant = `${principal.workspaceId} ${principal.plan} ${includePillars} ${utcDay(app.ctx.now())}`;
      const hit = cache.get(workspaceId, variant);
      if (hit !== undefined) return sendSerialized(reply, hit);
      const read = cache.begin(workspaceId);
      let view;
      try {
        view = await currentScore(app.ctx, principal, requested, includePillars);
      } catch (error) {
        cache.abandon(read);
        throw error;
      }
      // The route's own response serializer: a cached answer is byte for byte the uncached one.
      const body = Buffer.from(
        reply.serializeInput(view as unknown as Record<string, unknown>, '200', 'application/json') as string,
      );
      cache.set(read, variant, body);
      return sendSerialized(reply, body);
    },
  );

  app.get(
    '/v1/score/history',
    {
      config: { auth: { audience: 'workspace', plan: 'pro', scope: 'read' } },
      schema: {
        operationId: 'getScoreHistory',
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
                pattern: '^\\d{4}-\\d{2}-\\d{2}',
                description: 'ISO 8601 date or date-time; default 90 days before end_date',
                examples: ['2026-08-23'],
              }),
            ),
            end_date: Type.Optional(
              Type.String({
                maxLength: 40,
                pattern: '^\\d{4}-\\d{2}-\\d{2}',
                description: 'ISO 8601 date or date-time; default today',
                examples: ['2026-11-22'],
              }),
            ),
            granularity: withDefault(Type.Enum([...GRANULARITIES], { default: 'weekly' })),
            formula_version: Type.Optional(
              Type.Enum([...FORMULA_VERSIONS], {
                description: `extension: the formula whose stored scores to return; default ${CURRENT_FORMULA} (the current one). Stored v1 scores stay readable with v1.`,
              }),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          200: json(ScoreHistory, 'Score points in the range, oldest first', {
            workspace_id: 'ws_01JD8Z6Q9W4T3B2N1M0K5R7H8C',
            granularity: 'weekly',
            formula_version: 'v2',
            data: [
              { date: '2026-11-08', score: 66.9, pillars: { ...PILLARS_EXAMPLE, reach: 64.0 } },
              { date: '2026-11-15', score: 67.6, pillars: { ...PILLARS_EXAMPLE, reach: 65.3 } },
              { date: '2026-11-22', score: 68.2, pillars: PILLARS_EXAMPLE },
            ],
            delta: { score: '+1.3', period: '2026-11-08 to 2026-11-22' },
          }),
          ...errorResponses(403, 404),
        },
      },
    },
    async (request) => scoreHistory(app.ctx.db, workspacePrincipal(request), request.query, app.ctx.now()),
  );
}
