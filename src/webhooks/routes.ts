import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { workspacePrincipal } from '../infra/auth/auth-plugin.ts';
import { idempotent } from '../infra/http/idempotency.ts';
import { errorResponses, InvalidEventsProblem, json, problemResponse } from '../infra/http/schemas.ts';
import { createWebhook, deleteWebhook, listDeliveries, listWebhooks } from './service.ts';
import { MAX_WEBHOOKS_PER_WORKSPACE } from './settings.ts';
import {
  CreateBody,
  CREATED_WEBHOOK_EXAMPLE,
  CreatedWebhook,
  DELETED_WEBHOOK_EXAMPLE,
  DeletedWebhook,
  DELIVERY_LIST_EXAMPLE,
  DeliveryList,
  DeliveryListQuery,
  INVALID_EVENTS_EXAMPLE,
  WEBHOOK_LIST_EXAMPLE,
  WebhookId,
  WebhookList,
} from './schemas.ts';

export async function webhookRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/v1/webhooks',
    {
      config: {
        auth: { audience: 'workspace', plan: 'agency', action: 'webhook.manage' },
        validationProblems: {
          '/url': 'invalid_url',
          '/events': 'invalid_events',
          '/secret': 'invalid_secret',
        },
        idempotencyKey: true,
      },
      schema: {
        operationId: 'createWebhook',
        tags: ['webhooks'],
        summary: 'Register a webhook',
        description:
          `Deliveries are signed Standard Webhooks POSTs (docs/webhooks.md). At most ${MAX_WEBHOOKS_PER_WORKSPACE} ` +
          'webhooks per workspace (422 Webhook Limit Reached). Supports the Idempotency-Key header.',
        body: CreateBody,
        response: {
          200: json(
            CreatedWebhook,
            'The webhook, with its signing secret (shown only here)',
            CREATED_WEBHOOK_EXAMPLE,
          ),
          ...errorResponses(403, 409),
          422: problemResponse(422, InvalidEventsProblem, INVALID_EVENTS_EXAMPLE),
        },
      },
    },
    async (request, reply) => {
      const principal = workspacePrincipal(request);
      return idempotent(app.ctx, request, reply, async () => ({
        status: 200,
        body: await createWebhook(app.ctx, principal, request.body, request.ip),
      }));
    },
  );

  app.get(
    '/v1/webhooks',
    {
      config: { auth: { audience: 'workspace', plan: 'agency', action: 'score.read' } },
      schema: {
        operationId: 'listWebhooks',
        tags: ['webhooks'],
        summary: 'List webhooks (extension)',
        description: "The workspace's webhooks, newest first; secrets are never returned.",
        response: {
          200: json(WebhookList, 'The webhooks', WEBHOOK_LIST_EXAMPLE),
          ...errorResponses(403),
        },
      },
    },
    async (request) => ({ webhooks: await listWebhooks(app.ctx, workspacePrincipal(request)) }),
  );

  app.delete(
    '/v1/webhooks/:webhook_id',
    {
      config: { auth: { audience: 'workspace', plan: 'agency', action: 'webhook.manage' } },
      schema: {
        operationId: 'deleteWebhook',
        tags: ['webhooks'],
        summary: 'Delete a webhook (extension)',
        description:
          "Deletes the webhook; pending deliveries to it are dropped. Another tenant's webhook is 404.",
        params: WebhookId,
        response: {
          200: json(DeletedWebhook, 'Deleted', DELETED_WEBHOOK_EXAMPLE),
          ...errorResponses(403, 404),
        },
      },
    },
    async (request) => {
      await deleteWebhook(app.ctx, workspacePrincipal(request), request.params.webhook_id, request.ip);
      return { id: request.params.webhook_id, deleted: true };
    },
  );

  app.get(
    '/v1/webhooks/:webhook_id/deliveries',
    {
      config: { auth: { audience: 'workspace', plan: 'agency', action: 'score.read' } },
      schema: {
        operationId: 'listWebhookDeliveries',
        tags: ['webhooks'],
        summary: 'Recent deliveries of a webhook (extension)',
        description: 'Delivery attempts of the webhook, newest first; page with limit and offset.',
        params: WebhookId,
        querystring: DeliveryListQuery,
        response: {
          200: json(DeliveryList, 'One page of deliveries', DELIVERY_LIST_EXAMPLE),
          ...errorResponses(403, 404),
        },
      },
    },
    async (request) =>
      listDeliveries(app.ctx, workspacePrincipal(request), request.params.webhook_id, {
        limit: request.query.limit,
        offset: request.query.offset,
      }),
  );
}
