// TypeBox schemas of the webhook endpoints, with their OpenAPI examples.
import { Type, type Static } from 'typebox';
import { Timestamp, withDefault } from '../infra/http/schemas.ts';
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

export const Webhook = Type.Object(webhookFields, { $id: 'Webhook' });

export const CreatedWebhook = Type.Object(
  {
    ...webhookFields,
    secret: Type.String({
      description:
        'extension: the signing secret, returned only in this response (the given one, or a generated whsec_ secret)',
    }),
  },
  { $id: 'CreatedWebhook' },
);

export const Delivery = Type.Object(
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

export const WebhookId = Type.Object({
  webhook_id: Type.String({ minLength: 1, maxLength: 64, examples: ['wh_01JD8ZH3K4M5N6P7Q8R9S0T1V2'] }),
});

const WEBHOOK_EXAMPLE: Static<typeof Webhook> = {
  id: 'wh_01JD8ZH3K4M5N6P7Q8R9S0T1V2',
  url: 'https://hooks.example.com/brand-health',
  events: ['audit.completed' as const, 'score.changed' as const],
  status: 'active' as const,
  created_at: '2026-11-20T10:00:00.000Z',
  disabled_reason: null,
};

export const WebhookList = Type.Object({ webhooks: Type.Array(Webhook) }, { $id: 'WebhookList' });
export const DeletedWebhook = Type.Object(
  { id: Type.String(), deleted: Type.Boolean() },
  { $id: 'DeletedWebhook' },
);
export const DeliveryList = Type.Object(
  {
    deliveries: Type.Array(Delivery),
    total: Type.Integer(),
    limit: Type.Integer(),
    offset: Type.Integer(),
  },
  { $id: 'WebhookDeliveryList' },
);

export const CreateBody = Type.Object(
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

export const DeliveryListQuery = Type.Object(
  {
    limit: withDefault(Type.Integer({ minimum: 1, maximum: 100, default: 20, format: 'int32' })),
    offset: withDefault(Type.Integer({ minimum: 0, maximum: 100_000, default: 0, format: 'int32' })),
  },
  { additionalProperties: false },
);

export const CREATED_WEBHOOK_EXAMPLE: Static<typeof CreatedWebhook> = {
  ...WEBHOOK_EXAMPLE,
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw+3wbbW8vPo8=',
};

export const WEBHOOK_LIST_EXAMPLE: Static<typeof WebhookList> = { webhooks: [WEBHOOK_EXAMPLE] };

export const DELETED_WEBHOOK_EXAMPLE: Static<typeof DeletedWebhook> = {
  id: 'wh_01JD8ZH3K4M5N6P7Q8R9S0T1V2',
  deleted: true,
};

export const INVALID_EVENTS_EXAMPLE = {
  title: 'Invalid Events',
  type: '/problems/invalid-events',
  detail:
    'Unrecognised event name "audit.done"; use audit.completed, score.changed, campaign.phase_changed, platform.connection_failed, platform.reauth_required, platform.token_expiring, platform.connection_degraded, alert.triggered, alert.resolved, report.ready.',
  invalid_events: ['audit.done'],
};

export const DELIVERY_LIST_EXAMPLE: Static<typeof DeliveryList> = {
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
};
