import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { workspacePrincipal } from '../infra/auth/auth-plugin.ts';
import { idempotent } from '../infra/http/idempotency.ts';
import { invalidParameter } from '../core/errors.ts';
import { errorResponses } from '../infra/http/schemas.ts';
import { readAudit } from './read.ts';
import { AuditStart, CompletedAudit, FailedAudit, StartAuditBody } from './schemas.ts';
import { startAudit } from './start.ts';
import { type Platform, PLATFORMS } from '../core/catalog.ts';

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
        auth: { audience: 'workspace', plan: 'pro', scope: 'write' },
        validationProblems: { '/webhook_url': 'invalid_url' },
      },
      schema: {
        tags: ['audits'],
        summary: 'Start a Brand Audit',
        description:
          'Starts an asynchronous audit; read it back with GET /v1/audit/{audit_id}. One audit runs per workspace at a ' +
          'time; failed audits do not use the monthly quota. Supports Idempotency-Key.',
        body: StartAuditBody,
        response: { 200: AuditStart, ...errorResponses(402, 403, 404, 409, 422) },
      },
      // Every field is optional, so a POST without a body means "all defaults".
      preValidation: async (request) => {
        if (request.body === undefined || request.body === null) request.body = {};
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
        tags: ['audits'],
        summary: 'Read a Brand Audit',
        description:
          'A completed audit, or a failed one (status "failed" with failure_reason). 425 Too Early with Retry-After while it is processing.',
        params: Type.Object({ audit_id: Type.String({ minLength: 1, maxLength: 100 }) }),
        response: { 200: Type.Union([CompletedAudit, FailedAudit]), ...errorResponses(403, 404, 425) },
      },
    },
    async (request) =>
      readAudit(app.ctx.db, workspacePrincipal(request), request.params.audit_id, app.ctx.now()),
  );
}
