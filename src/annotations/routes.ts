import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { workspacePrincipal } from '../infra/auth/auth-plugin.ts';
import { errorResponses, json } from '../infra/http/schemas.ts';
import { createAnnotation, deleteAnnotation, listAnnotations } from './service.ts';
import {
  Annotation,
  ANNOTATION_EXAMPLE,
  AnnotationId,
  AnnotationList,
  AnnotationListQuery,
  CreateAnnotationBody,
  DeletedAnnotation,
} from './schemas.ts';

export async function annotationRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/v1/annotations',
    {
      config: { auth: { audience: 'workspace', action: 'campaign.manage' } },
      schema: {
        operationId: 'createAnnotation',
        tags: ['annotations'],
        summary: 'Add a note to the timeline (extension)',
        description: "A note on one day of the key's workspace: text, category (default note) and author.",
        body: CreateAnnotationBody,
        response: {
          201: json(Annotation, 'The annotation', ANNOTATION_EXAMPLE),
          ...errorResponses(400, 403),
        },
      },
    },
    async (request, reply) => {
      const created = await createAnnotation(app.ctx, workspacePrincipal(request), request.body);
      return reply.code(201).send(created);
    },
  );

  app.get(
    '/v1/annotations',
    {
      config: { auth: { audience: 'workspace', action: 'score.read' } },
      schema: {
        operationId: 'listAnnotations',
        tags: ['annotations'],
        summary: 'List timeline notes (extension)',
        description:
          'Notes between from and to (inclusive; default the 365 days up to today; at most 3660 days), oldest first.',
        querystring: AnnotationListQuery,
        response: {
          200: json(AnnotationList, 'The annotations', { annotations: [ANNOTATION_EXAMPLE] }),
          ...errorResponses(400, 403),
        },
      },
    },
    async (request) => ({
      annotations: await listAnnotations(app.ctx, workspacePrincipal(request).workspaceId, request.query),
    }),
  );

  app.delete(
    '/v1/annotations/:annotation_id',
    {
      config: { auth: { audience: 'workspace', action: 'campaign.manage' } },
      schema: {
        operationId: 'deleteAnnotation',
        tags: ['annotations'],
        summary: 'Delete a timeline note (extension)',
        description: "Another tenant's annotation is 404.",
        params: AnnotationId,
        response: {
          200: json(DeletedAnnotation, 'Deleted', { id: ANNOTATION_EXAMPLE.id, deleted: true }),
          ...errorResponses(403, 404),
        },
      },
    },
    async (request) => {
      await deleteAnnotation(app.ctx, workspacePrincipal(request), request.params.annotation_id);
      return { id: request.params.annotation_id, deleted: true as const };
    },
  );
}
