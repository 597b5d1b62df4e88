// The events a webhook receives, as the OpenAPI 3.1 `webhooks` section documents them: one entry per
// event type, the envelope every delivery has (src/webhooks/attempt.ts eventPayload) around the data
// its emitter records (emitEvent callers, typed by EventData), and the Standard Webhooks signature headers.
import { Type, type Static, type TSchema } from 'typebox';
import { EVENT_TYPES, SYNC_ERROR_CLASSES, type EventType } from '../core/catalog.ts';
import {
  ChangeExplanationData,
  CrisisData,
  DateOnly,
  Grade,
  PillarName,
  PlatformName,
  Timestamp,
} from '../infra/http/schemas.ts';

const Id = (prefix: string) =>
  Type.String({
    maxLength: 64,
    pattern: `^${prefix}_[0-9A-Z]{26}$`,
    examples: [`${prefix}_01JD8Z6Q9W4T3B2N1M0K5R7H8C`],
  });
const Score = Type.Number({ minimum: 0, maximum: 100 });
const Signed = Type.String({
  maxLength: 12,
  pattern: '^[+-]\\d+\\.\\d$',
  description: 'signed, one decimal',
});
const Handle = Type.String({ maxLength: 200 });

/** What an alert's condition is (docs/alerts.md "Conditions"). */
export const ALERT_CONDITIONS = [
  'score_below',
  'score_drop',
  'pillar_change',
  'grade_change',
  'crisis',
  'connection_needs_brand',
] as const;
const Points = Type.Number({ minimum: -100, maximum: 100 });

/**
 * Why an alert fired or resolved: the figures its condition looked at (each condition fills its own),
 * and what moved the score (an audit or a platform sync). Shared by the events and GET /v1/alerts/{id}/history.
 */
export const AlertDrivers = Type.Object(
  {
    score: Type.Optional(Score),
    previous_score: Type.Optional(Score),
    threshold: Type.Optional(Score),
    peak_score: Type.Optional(Score),
    peak_day: Type.Optional(DateOnly),
    drop: Type.Optional(Points),
    days: Type.Optional(Type.Integer({ minimum: 1, maximum: 365 })),
    grade: Type.Optional(Grade),
    previous_grade: Type.Optional(Grade),
    pillar: Type.Optional(PillarName),
    pillar_score: Type.Optional(Score),
    reference_pillar_score: Type.Optional(Score),
    pillar_change: Type.Optional(Points),
    pillars: Type.Optional(
      Type.Array(Type.Object({ pillar: PillarName, change: Points }), {
        maxItems: 5,
        description: 'the pillars that moved, largest move first, over the same span as the condition',
      }),
    ),
    crisis: Type.Optional(
      Type.Object({
        active: Type.Boolean(),
        negative_share: Type.Number({ minimum: 0, maximum: 1 }),
        baseline_negative_share: Type.Number({ minimum: 0, maximum: 1 }),
        volume_ratio: Type.Number({ minimum: 0 }),
        since: Type.Union([DateOnly, Type.Null()]),
      }),
    ),
    connections: Type.Optional(
      Type.Array(
        Type.Object({
          platform: PlatformName,
          handle: Handle,
          reason: Type.Union([Type.String({ maxLength: 100 }), Type.Null()]),
        }),
        { maxItems: 10 },
      ),
    ),
    audit_id: Type.Optional(Id('aud')),
    platform: Type.Optional(PlatformName),
  },
  { description: 'the figures the condition looked at; each condition fills its own' },
);

const ALERT_EXAMPLE = {
  alert_id: 'alr_01JD8ZM2N3P4Q5R6S7T8V9W0X1',
  episode_id: 'ale_01JD8ZN3P4Q5R6S7T8V9W0X1Y2',
  workspace_id: 'ws_01JD8Z6Q9W4T3B2N1M0K5R7H8C',
  name: 'Score fell 5 points in a week',
  condition: 'score_drop',
  summary: 'The score fell 6.2 points in 7 days (71.4 on 2026-11-14 to 65.2).',
  drivers: {
    score: 65.2,
    peak_score: 71.4,
    peak_day: '2026-11-14',
    drop: 6.2,
    days: 7,
    pillars: [
      { pillar: 'sentiment', change: -14.1 },
      { pillar: 'reach', change: -3.0 },
    ],
    audit_id: 'aud_01JD8ZC4T6Y8K2M3N4P5Q6R7S8',
  },
};

const alertFields = {
  alert_id: Id('alr'),
  episode_id: Id('ale'),
  workspace_id: Id('ws'),
  name: Type.String({ maxLength: 100 }),
  condition: Type.Enum([...ALERT_CONDITIONS]),
  summary: Type.String({ maxLength: 500, description: 'one sentence saying what happened' }),
  drivers: AlertDrivers,
  triggered_at: Timestamp,
};

interface EventDoc {
  description: string;
  data: TSchema;
  example: Record<string, unknown>;
}

const DATA = {
  'audit.completed': {
    description: "A Brand Audit completed (also sent to the audit's own `webhook_url`).",
    data: Type.Object({
      audit_id: Id('aud'),
      workspace_id: Id('ws'),
      score: Score,
      grade: Grade,
      completed_at: Timestamp,
    }),
    example: {
      audit_id: 'aud_01JD8ZC4T6Y8K2M3N4P5Q6R7S8',
      workspace_id: 'ws_01JD8Z6Q9W4T3B2N1M0K5R7H8C',
      score: 71.4,
      grade: 'strong',
      completed_at: '2026-11-20T09:12:41.000Z',
    },
  },
  'score.changed': {
    description:
      "The workspace's composite score moved past the change threshold, after an audit or (extension) a platform sync.",
    data: Type.Object({
      workspace_id: Id('ws'),
      audit_id: Type.Optional(Id('aud')),
      score: Score,
      previous_score: Score,
      change: Signed,
      grade: Grade,
      previous_grade: Grade,
      changed_at: Timestamp,
      source: Type.Optional(
        Type.Enum(['sync'], { description: 'extension: present when a sync moved the score' }),
      ),
      platform: Type.Optional(PlatformName),
      crisis: Type.Optional(
        Type.Union([CrisisData, Type.Null()], {
          description:
            'extension (formula v3): the crisis signal while one is active, null when the conversation is calm; ' +
            'a crisis that starts fires score.changed at once, whatever the score did',
        }),
      ),
      explanation: Type.Optional(
        Type.Union([ChangeExplanationData, Type.Null()], {
          description:
            "extension (formula v3): what moved the score since the previous score, from both scores' drivers; null when the previous score was stored without its drivers",
        }),
      ),
    }),
    example: {
      workspace_id: 'ws_01JD8Z6Q9W4T3B2N1M0K5R7H8C',
      audit_id: 'aud_01JD8ZC4T6Y8K2M3N4P5Q6R7S8',
      score: 71.4,
      previous_score: 66.9,
      change: '+4.5',
      grade: 'strong',
      previous_grade: 'strong',
      changed_at: '2026-11-20T09:12:41.000Z',
      crisis: null,
      explanation: {
        summary:
          'The score rose 4.5 points, from 66.9 to 71.4; the largest parts: engagement per view on Instagram (+2.6) and posts a week on Instagram (+1.3).',
        drivers: [
          {
            pillar: 'impact',
            platform: 'instagram',
            metric: 'engagement_per_view',
            before: 0.0181,
            after: 0.0252,
            median: 0.0208548,
            points: 2.61,
            text: 'Engagement per view on Instagram rose from 1.81% to 2.52% of views engaging: +2.6 points.',
          },
          {
            pillar: 'presence',
            platform: 'instagram',
            metric: 'posts_per_week',
            before: 3.1,
            after: 4.6,
            median: 4.5,
            points: 1.32,
            text: 'Posts a week on Instagram rose from 3.1 to 4.6 posts a week: +1.3 points.',
          },
          {
            pillar: 'reach',
            platform: 'instagram',
            metric: 'views_per_follower_day',
            before: 0.121,
            after: 0.136,
            median: 0.110088,
            points: 0.42,
            text: 'Views per follower on Instagram rose from 12.1 to 13.6 views a day per 100 followers: +0.4 points.',
          },
        ],
        other_points: 0.13,
        rounding: 0.02,
      },
    },
  },
  'campaign.phase_changed': {
    description:
      'A Narrative Arc campaign entered its next phase (null: before the first or after the last).',
    data: Type.Object({
      campaign_id: Id('cmp'),
      workspace_id: Id('ws'),
      campaign_name: Type.String({ maxLength: 200 }),
      from_phase: Type.Union([Type.String({ maxLength: 100 }), Type.Null()]),
      to_phase: Type.Union([Type.String({ maxLength: 100 }), Type.Null()]),
      changed_at: Timestamp,
    }),
    example: {
      campaign_id: 'cmp_01JD8ZF1A2B3C4D5E6F7G8H9J0',
      workspace_id: 'ws_01JD8Z6Q9W4T3B2N1M0K5R7H8C',
      campaign_name: 'Spring launch',
      from_phase: 'foundation',
      to_phase: 'build',
      changed_at: '2026-11-16T00:00:00.000Z',
    },
  },
  'platform.connection_failed': {
    description:
      'Extension: syncs of a connection failed several times in a row (docs/ingestion.md "Events").',
    data: Type.Object({
      workspace_id: Id('ws'),
      platform: PlatformName,
      handle: Handle,
      error_class: Type.Enum([...SYNC_ERROR_CLASSES]),
      consecutive_failures: Type.Integer({ minimum: 1, maximum: 1_000_000, format: 'int32' }),
      failed_at: Timestamp,
    }),
    example: {
      workspace_id: 'ws_01JD8Z6Q9W4T3B2N1M0K5R7H8C',
      platform: 'tiktok',
      handle: '@bluebird',
      error_class: 'platform_unavailable',
      consecutive_failures: 3,
      failed_at: '2026-11-21T04:00:12.000Z',
    },
  },
  'platform.reauth_required': {
    description:
      'Extension: the connection needs the brand and stopped syncing: the platform refused our refresh or ' +
      'access token, a permission the sync needs is missing, or the account is gone. Fires once, when the ' +
      'connection enters the state; the owner connects the account again (docs/ingestion.md "Events").',
    data: Type.Object({
      workspace_id: Id('ws'),
      platform: PlatformName,
      handle: Handle,
      reason: Type.Optional(
        Type.Enum(['refresh_refused', 'token_refused', 'permission_missing', 'account_gone'], {
          description:
            'refresh_refused / token_refused: connect again; permission_missing: connect again granting `scope`; ' +
            'account_gone: the account, Page or channel no longer exists for this login: connect a live one or disconnect',
        }),
      ),
      scope: Type.Optional(
        Type.String({ maxLength: 200, description: 'the missing permission, when named' }),
      ),
      reconnect: Type.String({ maxLength: 100, pattern: '^POST /v1/platforms/[a-z]+/connect$' }),
      required_at: Timestamp,
    }),
    example: {
      workspace_id: 'ws_01JD8Z6Q9W4T3B2N1M0K5R7H8C',
      platform: 'youtube',
      handle: '@bluebird',
      reason: 'refresh_refused',
      reconnect: 'POST /v1/platforms/youtube/connect',
      required_at: '2026-11-21T04:00:12.000Z',
    },
  },
  'platform.token_expiring': {
    description:
      "Extension: the access token of a connection that cannot be refreshed (Meta's long-lived token, about 60 " +
      'days) lapses within 7 days; connecting again before `expires_at` keeps the syncs going. Once per token.',
    data: Type.Object({
      workspace_id: Id('ws'),
      platform: PlatformName,
      handle: Handle,
      expires_at: Timestamp,
      reconnect: Type.String({ maxLength: 100, pattern: '^POST /v1/platforms/[a-z]+/connect$' }),
      warned_at: Timestamp,
    }),
    example: {
      workspace_id: 'ws_01JD8Z6Q9W4T3B2N1M0K5R7H8C',
      platform: 'instagram',
      handle: '@bluebird',
      expires_at: '2026-11-28T04:00:12.000Z',
      reconnect: 'POST /v1/platforms/instagram/connect',
      warned_at: '2026-11-21T04:01:00.000Z',
    },
  },
  'platform.connection_degraded': {
    description:
      'Extension: a sync stored its data, but a call was refused for a permission the brand did not grant; ' +
      'the pillars it feeds lack that data until the owner connects again granting it. Once per call.',
    data: Type.Object({
      workspace_id: Id('ws'),
      platform: PlatformName,
      handle: Handle,
      missing: Type.Array(
        Type.Object({
          call: Type.String({ maxLength: 300 }),
          metric: Type.Union([Type.String({ maxLength: 200 }), Type.Null()]),
          scope: Type.Union([Type.String({ maxLength: 200 }), Type.Null()]),
        }),
        { minItems: 1, maxItems: 100 },
      ),
      reconnect: Type.String({ maxLength: 100, pattern: '^POST /v1/platforms/[a-z]+/connect$' }),
      degraded_at: Timestamp,
    }),
    example: {
      workspace_id: 'ws_01JD8Z6Q9W4T3B2N1M0K5R7H8C',
      platform: 'instagram',
      handle: '@bluebird',
      missing: [
        { call: 'GET /{ig-media-id}/comments', metric: 'comments', scope: 'instagram_manage_comments' },
      ],
      reconnect: 'POST /v1/platforms/instagram/connect',
      degraded_at: '2026-11-21T04:00:12.000Z',
    },
  },
  'alert.triggered': {
    description:
      "Extension: an alert rule's condition became true (docs/alerts.md); once per episode, with what drove it.",
    data: Type.Object(alertFields),
    example: { ...ALERT_EXAMPLE, triggered_at: '2026-11-21T04:00:12.000Z' },
  },
  'alert.resolved': {
    description:
      'Extension: the condition of an alert that fired is false again (docs/alerts.md); `drivers` are the figures that cleared it.',
    data: Type.Object({ ...alertFields, resolved_at: Timestamp }),
    example: {
      ...ALERT_EXAMPLE,
      summary: 'The score is back within 5 points of its 7-day high (70.8, high 71.4).',
      drivers: { score: 70.8, peak_score: 71.4, peak_day: '2026-11-14', drop: 0.6, days: 7 },
      triggered_at: '2026-11-21T04:00:12.000Z',
      resolved_at: '2026-11-23T04:00:09.000Z',
    },
  },
  'report.ready': {
    description:
      'Extension: a scheduled report was generated (docs/reports.md); fetch it as PDF, JSON or CSV. Once per ' +
      'schedule and period.',
    data: Type.Object({
      report_id: Id('rpt'),
      schedule_id: Id('rps'),
      workspace_id: Id('ws'),
      period_start: Type.String({ format: 'date', maxLength: 10 }),
      period_end: Type.String({ format: 'date', maxLength: 10 }),
      pdf: Type.String({ maxLength: 100, pattern: '^/v1/reports/rpt_[0-9A-Z]{26}/pdf$' }),
      ready_at: Timestamp,
    }),
    example: {
      report_id: 'rpt_01JD8ZH2K3L4M5N6P7Q8R9S0T1',
      schedule_id: 'rps_01JD8ZG1A2B3C4D5E6F7G8H9J0',
      workspace_id: 'ws_01JD8Z6Q9W4T3B2N1M0K5R7H8C',
      period_start: '2026-11-16',
      period_end: '2026-11-22',
      pdf: '/v1/reports/rpt_01JD8ZH2K3L4M5N6P7Q8R9S0T1/pdf',
      ready_at: '2026-11-23T01:05:12.000Z',
    },
  },
} satisfies Record<EventType, EventDoc>;

/** The `data` of an event of `type`, as its documented schema gives it: what emitEvent accepts. */
export type EventData<T extends EventType> = Static<(typeof DATA)[T]['data']>;

const SIGNATURE_HEADERS = [
  {
    name: 'webhook-id',
    in: 'header',
    required: true,
    description:
      'the event id (also `id` in the body): the same on every retry, so receivers can de-duplicate',
    schema: { type: 'string', maxLength: 64, pattern: '^evt_[0-9A-Z]{26}$' },
    example: 'evt_01JD8ZC9X1Y2Z3A4B5C6D7E8F9',
  },
  {
    name: 'webhook-timestamp',
    in: 'header',
    required: true,
    description: 'Unix seconds of this attempt (signed); refuse deliveries more than 5 minutes old',
    schema: { type: 'string', maxLength: 12, pattern: '^\\d{1,12}$' },
    example: '1763629961',
  },
  {
    name: 'webhook-signature',
    in: 'header',
    required: true,
    description:
      'Standard Webhooks signatures: space-separated `v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}">`, one per active secret (two while a secret rotates)',
    schema: { type: 'string', maxLength: 1000, pattern: '^v1,[A-Za-z0-9+/=]+( v1,[A-Za-z0-9+/=]+)*$' },
    example: 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
  },
];

/** The body of one delivery of `type`: the envelope around the event's data. */
export function eventSchema(type: EventType): TSchema {
  return Type.Object(
    {
      id: Id('evt'),
      type: Type.Literal(type),
      created_at: Timestamp,
      data: DATA[type].data,
    },
    { description: `Delivery of ${type}` },
  );
}

/** The OpenAPI 3.1 `webhooks` section: one POST per event type, to the URL the webhook registered. */
export function webhookDocuments(): Record<string, unknown> {
  return Object.fromEntries(
    EVENT_TYPES.map((type) => [
      type,
      {
        post: {
          operationId: `on${type
            .split(/[._]/)
            .map((w) => w[0]!.toUpperCase() + w.slice(1))
            .join('')}`,
          summary: `${type} event`,
          description: `${DATA[type].description} Signed per Standard Webhooks (docs/webhooks.md); a 2xx answer within 10 s acknowledges it, anything else is retried with backoff.`,
          tags: ['webhooks'],
          security: [],
          parameters: SIGNATURE_HEADERS,
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: eventSchema(type),
                example: {
                  id: 'evt_01JD8ZC9X1Y2Z3A4B5C6D7E8F9',
                  type,
                  created_at: '2026-11-20T09:12:41.000Z',
                  data: DATA[type].example,
                },
              },
            },
          },
          responses: {
            '2XX': { description: 'Any 2xx acknowledges the delivery' },
            '410': {
              description: 'Gone: the delivery fails at once and the webhook is disabled (unsubscribes)',
            },
          },
        },
      },
    ]),
  );
}
