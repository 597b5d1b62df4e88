import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { workspacePrincipal } from '../infra/auth/auth-plugin.ts';
import { idempotent } from '../infra/http/idempotency.ts';
import { errorResponses, Timestamp } from '../infra/http/schemas.ts';
import { createWebhook, deleteWebhook, listDeliveries, listWebhooks } from './service.ts';
import { MAX_WEBHOOKS_PER_WORKSPACE } from './settings.ts';
import { MAX_URL_LENGTH } from './url-policy.ts';
import { EVENT_TYPES } from '../core/catalog.ts';

const EventName = Type.Enum([...EVENT_TYPES]);
const WebhookStatus = Type.Enum(['active', 'disabled'], {
  description: 'disabled (extension): the endpoint answered 410 Gone, or its deliveries kept failing',
});

const webhookFields = {
  id: Type.String(),
  url: Type.String(),
  events: Type.Array(EventName),
  status: WebhookStatus,
  created_at: Timestamp,
  disabled_reason: Type.Union([Type.String(), Type.Null()], {
    description: 'extension: why it was disabled',
  }),
};

const Webhook = Type.Object(webhookFields, { $id: 'Webhook' });

const CreatedWebhook = Type.Object(
  {
    ...webhookFields,
    secret: Type.String({
      description:
        'extension: the signing secret, returned only in this response (the given one, or a generated whsec_ secret)',
    }),
  },
  { $id: 'CreatedWebhook' },
);

const Delivery = Type.Object(
  {
    id: Type.String(),
    event_id: Type.String({ description: 'also the webhook-id header and the payload id' }),
    event_type: EventName,
    status: Type.Enum(['pending', 'succeeded', 'failed']),
    attempts: Type.Integer(),
    last_status_code: Type.Union([Type.Integer(), Type.Null()]),
    last_error: Type.Union([Type.String(), Type.Null()]),
    created_at: Timestamp,
    last_attempt_at: Type.Union([Timestamp, Type.Null()]),
    delivered_at: Type.Union([Timestamp, Type.Null()]),
  },
  { $id: 'WebhookDelivery' },
);

const WebhookId = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

const CreateBody = Type.Object(
  {
    url: Type.String({ maxLength: MAX_URL_LENGTH, description: 'https URL on a public address' }),
    events: Type.Array(Type.String({ maxLength: 100 }), {
      maxItems: 20,
      description: `one or more of ${EVENT_TYPES.join(', ')}; duplicates are ignored`,
    }),
    secret: Type.Optional(
      Type.String({
        maxLength: 200,
        description:
          'signing secret: "whsec_" + base64 of 24-64 bytes, or 24-128 visible ASCII characters; generated when absent',
      }),
    ),
  },
  { additionalProperties: false },
);

export async function webhookRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/v1/webhooks',
    {
      config: {
        auth: { audience: 'workspace', plan: 'agency', scope: 'write' },
        validationProblems: {
          '/url': 'invalid_url',
          '/events': 'invalid_events',
          '/secret': 'invalid_secret',
        },
      },
      schema: {
        tags: ['webhooks'],
        summary: 'Register a webhook',
        description:
          `Deliveries are signed Standard Webhooks POSTs (docs/webhooks.md). At most ${MAX_WEBHOOKS_PER_WORKSPACE} ` +
          'webhooks per workspace (422 Webhook Limit Reached). Supports the Idempotency-Key header.',
        body: CreateBody,
        response: { 200: CreatedWebhook, ...errorResponses(403, 409, 422) },
      },
    },
    async (request, reply) => {
      const principal = workspacePrincipal(request);
      return idempotent(app.ctx, request, reply, async () => ({
        status: 200,
        body: await createWebhook(app.ctx, principal, request.body),
      }));
    },
  );

  app.get(
    '/v1/webhooks',
    {
      config: { auth: { audience: 'workspace', plan: 'agency', scope: 'read' } },
      schema: {
        tags: ['webhooks'],
        summary: 'List webhooks (extension), newest first; secrets are never returned',
        response: { 200: Type.Object({ webhooks: Type.Array(Webhook) }), ...errorResponses(403) },
      },
    },
    async (request) => ({ webhooks: await listWebhooks(app.ctx, workspacePrincipal(request)) }),
  );

  app.delete(
    '/v1/webhooks/:id',
    {
      config: { auth: { audience: 'workspace', plan: 'agency', scope: 'write' } },
      schema: {
        tags: ['webhooks'],
        summary: 'Delete a webhook (extension); pending deliveries to it are dropped',
        params: WebhookId,
        response: {
          200: Type.Object({ id: Type.String(), deleted: Type.Boolean() }),
          ...errorResponses(403, 404),
        },
      },
    },
    async (request) => {
      await deleteWebhook(app.ctx, workspacePrincipal(request), request.params.id);
      return { id: request.params.id, deleted: true };
    },
  );

  app.get(
    '/v1/webhooks/:id/deliveries',
    {
      config: { auth: { audience: 'workspace', plan: 'agency', scope: 'read' } },
      schema: {
        tags: ['webhooks'],
        summary: 'Recent deliveries of a webhook (extension), newest first',
        params: WebhookId,
        querystring: Type.Object(
          {
            limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
            offset: Type.Integer({ minimum: 0, maximum: 100_000, default: 0 }),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            deliveries: Type.Array(Delivery),
            total: Type.Integer(),
            limit: Type.Integer(),
            offset: Type.Integer(),
          }),
          ...errorResponses(403, 404),
        },
      },
    },
    async (request) =>
      listDeliveries(app.ctx, workspacePrincipal(request), request.params.id, {
        limit: request.query.limit,
        offset: request.query.offset,
      }),
  );
}
