import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { workspacePrincipal } from '../infra/auth/auth-plugin.ts';
import { idempotent } from '../infra/http/idempotency.ts';
import {
  errorResponses,
  InvalidEventsProblem,
  json,
  problemResponse,
  Timestamp,
  withDefault,
} from '../infra/http/schemas.ts';
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

const WebhookId = Type.Object({
  webhook_id: Type.String({ minLength: 1, maxLength: 64, examples: ['wh_01JD8ZH3K4M5N6P7Q8R9S0T1V2'] }),
});

const WEBHOOK_EXAMPLE = {
  id: 'wh_01JD8ZH3K4M5N6P7Q8R9S0T1V2',
  url: 'https://hooks.example.com/brand-health',
  events: ['audit.completed' as const, 'score.changed' as const],
  status: 'active' as const,
  created_at: '2026-11-20T10:00:00.000Z',
  disabled_reason: null,
};

const WebhookList = Type.Object({ webhooks: Type.Array(Webhook) }, { $id: 'WebhookList' });
const DeletedWebhook = Type.Object({ id: Type.String(), deleted: Type.Boolean() }, { $id: 'DeletedWebhook' });
const DeliveryList = Type.Object(
  {
    deliveries: Type.Array(Delivery),
    total: Type.Integer(),
    limit: Type.Integer(),
    offset: Type.Integer(),
  },
  { $id: 'WebhookDeliveryList' },
);

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
  {
    additionalProperties: false,
    examples: [
      { url: 'https://hooks.example.com/brand-health', events: ['audit.completed', 'score.changed'] },
    ],
  },
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
          200: json(CreatedWebhook, 'The webhook, with its signing secret (shown only here)', {
            ...WEBHOOK_EXAMPLE,
            secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw+3wbbW8vPo8=',
          }),
          ...errorResponses(403, 409),
          422: problemResponse(422, InvalidEventsProblem, {
            title: 'Invalid Events',
            type: '/problems/invalid-events',
            detail:
              'Unrecognised event name "audit.done"; use audit.completed, score.changed, campaign.phase_changed, platform.connection_failed, platform.reauth_required, platform.token_expiring, platform.connection_degraded.',
            invalid_events: ['audit.done'],
          }),
        },
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
        operationId: 'listWebhooks',
        tags: ['webhooks'],
        summary: 'List webhooks (extension)',
        description: "The workspace's webhooks, newest first; secrets are never returned.",
        response: {
          200: json(WebhookList, 'The webhooks', { webhooks: [WEBHOOK_EXAMPLE] }),
          ...errorResponses(403),
        },
      },
    },
    async (request) => ({ webhooks: await listWebhooks(app.ctx, workspacePrincipal(request)) }),
  );

  app.delete(
    '/v1/webhooks/:webhook_id',
    {
      config: { auth: { audience: 'workspace', plan: 'agency', scope: 'write' } },
      schema: {
        operationId: 'deleteWebhook',
        tags: ['webhooks'],
        summary: 'Delete a webhook (extension)',
        description:
          "Deletes the webhook; pending deliveries to it are dropped. Another tenant's webhook is 404.",
        params: WebhookId,
        response: {
          200: json(DeletedWebhook, 'Deleted', { id: 'wh_01JD8ZH3K4M5N6P7Q8R9S0T1V2', deleted: true }),
          ...errorResponses(403, 404),
        },
      },
    },
    async (request) => {
      await deleteWebhook(app.ctx, workspacePrincipal(request), request.params.webhook_id);
      return { id: request.params.webhook_id, deleted: true };
    },
  );

  app.get(
    '/v1/webhooks/:webhook_id/deliveries',
    {
      config: { auth: { audience: 'workspace', plan: 'agency', scope: 'read' } },
      schema: {
        operationId: 'listWebhookDeliveries',
        tags: ['webhooks'],
        summary: 'Recent deliveries of a webhook (extension)',
        description: 'Delivery attempts of the webhook, newest first; page with limit and offset.',
        params: WebhookId,
        querystring: Type.Object(
          {
            limit: withDefault(Type.Integer({ minimum: 1, maximum: 100, default: 20, format: 'int32' })),
            offset: withDefault(Type.Integer({ minimum: 0, maximum: 100_000, default: 0, format: 'int32' })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: json(DeliveryList, 'One page of deliveries', {
            deliveries: [
              {
                id: 'whd_01JD8ZJ5A6B7C8D9E0F1G2H3J4',
                event_id: 'evt_01JD8ZC9X1Y2Z3A4B5C6D7E8F9',
                event_type: 'audit.completed',
                status: 'succeeded',
                attempts: 1,
                last_status_code: 204,
                last_error: null,
                created_at: '2026-11-20T09:13:02.000Z',
                last_attempt_at: '2026-11-20T09:13:03.000Z',
                delivered_at: '2026-11-20T09:13:03.000Z',
              },
            ],
            total: 1,
            limit: 20,
            offset: 0,
          }),
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
