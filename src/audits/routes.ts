import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { workspacePrincipal } from '../infra/auth/auth-plugin.ts';
import { idempotent } from '../infra/http/idempotency.ts';
import { invalidParameter } from '../core/errors.ts';
import {
  AuditLimitProblem,
  errorResponses,
  json,
  problemResponse,
  TooEarlyProblem,
} from '../infra/http/schemas.ts';
import { listAudits, readAudit } from './read.ts';
import {
  AuditList,
  AuditListQuery,
  AuditStart,
  CompletedAudit,
  FailedAudit,
  StartAuditBody,
} from './schemas.ts';
import { startAudit } from './start.ts';
import { type Platform, PLATFORMS } from '../core/catalog.ts';
import { resolveWorkspace } from '../workspaces/tenancy.ts';

function platformNames(values: string[] | undefined): Platform[] | undefined {
  if (!values) return undefined;
  const unknown = values.filter((v) => !PLATFORMS.includes(v as Platform));
  if (unknown.length) {
    throw invalidParameter(
      'platforms',
      `unknown platform ${unknown.map((u) => JSON.stringify(u)).join(', ')} (supported: ${PLATFORMS.join(', ')})`,
    );
  }
  return values as Platform[];
}

const pillar = (score: number, change: string, grade: 'green' | 'yellow' | 'red') => ({
  score,
  change,
  grade,
});

const COMPLETED_AUDIT_EXAMPLE = {
  audit_id: 'aud_01JD8ZC4T6Y8K2M3N4P5Q6R7S8',
  status: 'completed' as const,
  completed_at: '2026-11-20T09:13:02.000Z',
  workspace_id: 'ws_01JD8Z6Q9W4T3B2N1M0K5R7H8C',
  score: 58.4,
  grade: 'strong' as const,
  formula_version: 'v2',
  pillars: {
    presence: pillar(62, '+2.1', 'green'),
    reach: pillar(57, '+1.4', 'yellow'),
    impact: pillar(60, '+0.8', 'green'),
    sentiment: pillar(52, '-0.6', 'yellow'),
    momentum: pillar(50, '+0.3', 'yellow'),
  },
  interval: { low: 55.9, high: 60.8 },
  stale: false,
  latest_data_day: '2026-11-19',
  authenticity_flags: [],
  recommendations: [
    {
      priority: 1,
      pillar: 'sentiment' as const,
      action: 'Reply to the most-discussed comments within a day to lift sentiment.',
      expected_impact: '+2.5 points on sentiment',
    },
  ],
  industry_benchmark: {
    your_score: 58.4,
    industry_average: 52.3,
    percentile: 70,
    basis: {
      status: 'published' as const,
      reason:
        'industry_average is the sector’s latest published TACSI weekly index; percentile is read from its latest published peer distribution.',
      sector: 'food-and-beverage',
      period_end: '2026-11-22',
      methodology_version: 'tacsi-m2',
      cohort_band: 'n >= 250',
      margin_of_error: 2.22,
      distribution_period_end: '2026-11-22',
      percentile_interval: { low: 60, high: 80 },
      percentile_granularity: 5,
    },
  },
};

export async function auditRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/v1/audit/run',
    {
      config: {
        auth: { audience: 'workspace', plan: 'pro', scope: 'write' },
        validationProblems: { '/webhook_url': 'invalid_url' },
        idempotencyKey: true,
        optionalBody: true,
      },
      schema: {
        operationId: 'runAudit',
        tags: ['audits'],
        summary: 'Start a Brand Audit',
        description:
          'Starts an asynchronous audit; read it back with GET /v1/audit/{audit_id}. One audit runs per workspace at a ' +
          'time; failed audits do not use the monthly quota. Supports Idempotency-Key.',
        body: StartAuditBody,
        response: {
          200: json(AuditStart, 'The audit started', {
            audit_id: 'aud_01JD8ZC4T6Y8K2M3N4P5Q6R7S8',
            status: 'processing',
            estimated_completion: '2026-11-20T09:13:30.000Z',
            workspace_id: 'ws_01JD8Z6Q9W4T3B2N1M0K5R7H8C',
            platforms_included: ['instagram', 'tiktok'],
            lookback_days: 90,
          }),
          ...errorResponses(403, 404, 409, 422),
          402: problemResponse(402, AuditLimitProblem, {
            audits_used: 10,
            audits_limit: 10,
            resets_at: '2026-12-01T00:00:00.000Z',
          }),
        },
      },
      // Every field is optional, so a POST without a body means "all defaults".
      preValidation: async (request) => {
        if (request.body === undefined || request.body === null) request.body = {} as typeof request.body;
      },
    },
    async (request, reply) => {
      const principal = workspacePrincipal(request);
      const body = request.body;
      return idempotent(app.ctx, request, reply, async () => ({
        status: 200,
        body: await startAudit(app.ctx, principal, { ...body, platforms: platformNames(body.platforms) }),
      }));
    },
  );

  app.get(
    '/v1/audit/:audit_id',
    {
      config: { auth: { audience: 'workspace', plan: 'pro', scope: 'read' } },
      schema: {
        operationId: 'getAudit',
        tags: ['audits'],
        summary: 'Read a Brand Audit',
        description:
          'A completed audit, or a failed one (status "failed" with failure_reason). 425 Too Early with Retry-After while it is processing.',
        params: Type.Object({
          audit_id: Type.String({
            minLength: 1,
            maxLength: 100,
            examples: ['aud_01JD8ZC4T6Y8K2M3N4P5Q6R7S8'],
          }),
        }),
        response: {
          200: json(
            Type.Union([CompletedAudit, FailedAudit], { $id: 'AuditResult' }),
            'The completed (or failed) audit',
            COMPLETED_AUDIT_EXAMPLE,
          ),
          ...errorResponses(403, 404),
          425: problemResponse(425, TooEarlyProblem, {
            audit_id: 'aud_01JD8ZC4T6Y8K2M3N4P5Q6R7S8',
            estimated_completion: '2026-11-20T09:13:30.000Z',
          }),
        },
      },
    },
    async (request) =>
      readAudit(app.ctx.db, workspacePrincipal(request), request.params.audit_id, app.ctx.now()),
  );

  app.get(
    '/v1/audits',
    {
      config: { auth: { audience: 'workspace', plan: 'pro', scope: 'read' } },
      schema: {
        tags: ['audits'],
        operationId: 'listAudits',
        summary: 'List the Brand Audits of a workspace, newest first (extension)',
        description:
          'Every audit of the workspace this key may see, newest first, in any status unless `status` filters it: ' +
          'its id, status, when it was started and finished, its options and, once completed, its score and grade. ' +
          'The result itself (pillars, recommendations, benchmark) is read with GET /v1/audit/{audit_id}. Audits ' +
          "an agency ran for a client stay that agency's: after the client moves to another agency they are listed " +
          'to neither the client nor its new agency.',
        querystring: AuditListQuery,
        response: {
          200: json(AuditList, "A page of the workspace's audits, newest first"),
          ...errorResponses(403, 404),
        },
      },
    },
    async (request) => {
      const principal = workspacePrincipal(request);
      const ws = await resolveWorkspace(app.ctx.db, principal, request.query.workspace_id);
      const { status, limit, offset } = request.query;
      return listAudits(app.ctx.db, principal, ws.id, { status, limit, offset });
    },
  );
}
