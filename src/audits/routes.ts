import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
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
  AUDIT_LIMIT_EXAMPLE,
  AUDIT_START_EXAMPLE,
  AuditIdParam,
  AuditList,
  AuditListQuery,
  AuditResult,
  AuditStart,
  COMPLETED_AUDIT_EXAMPLE,
  StartAuditBody,
  TOO_EARLY_EXAMPLE,
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

export async function auditRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/v1/audit/run',
    {
      config: {
        auth: { audience: 'workspace', plan: 'pro', action: 'audit.run' },
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
          200: json(AuditStart, 'The audit started', AUDIT_START_EXAMPLE),
          ...errorResponses(403, 404, 409, 422),
          402: problemResponse(402, AuditLimitProblem, AUDIT_LIMIT_EXAMPLE),
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
      config: { auth: { audience: 'workspace', plan: 'pro', action: 'score.read' } },
      schema: {
        operationId: 'getAudit',
        tags: ['audits'],
        summary: 'Read a Brand Audit',
        description:
          'A completed audit, or a failed one (status "failed" with failure_reason). 425 Too Early with Retry-After while it is processing.',
        params: AuditIdParam,
        response: {
          200: json(AuditResult, 'The completed (or failed) audit', COMPLETED_AUDIT_EXAMPLE),
          ...errorResponses(403, 404),
          425: problemResponse(425, TooEarlyProblem, TOO_EARLY_EXAMPLE),
        },
      },
    },
    async (request) =>
      readAudit(app.ctx.db, workspacePrincipal(request), request.params.audit_id, app.ctx.now()),
  );

  app.get(
    '/v1/audits',
    {
      config: { auth: { audience: 'workspace', plan: 'pro', action: 'score.read' } },
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
