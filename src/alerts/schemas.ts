// TypeBox schemas of the alert endpoints, with their OpenAPI examples.
import { Type, type Static } from 'typebox';
import { PillarName, Timestamp, withDefault } from '../infra/http/schemas.ts';
import { ALERT_CONDITIONS, AlertDrivers } from '../webhooks/events.ts';
import { MAX_URL_LENGTH } from '../webhooks/url-policy.ts';
import { DIRECTIONS, MAX_DAYS } from './rules.ts';

export const MAX_ALERTS_PER_WORKSPACE = 50;
export const MAX_EMAILS = 10;

const Condition = Type.Enum([...ALERT_CONDITIONS], {
  description:
    'score_below (threshold), score_drop (points over days), pillar_change (pillar, points over days, direction), ' +
    'grade_change (direction), crisis (the scoring engine crisis signal), connection_needs_brand',
});
const Direction = Type.Enum([...DIRECTIONS]);
const Email = Type.String({ format: 'email', maxLength: 254 });

const paramFields = {
  threshold: Type.Optional(
    Type.Number({ minimum: 0, maximum: 100, description: 'score_below: fires below it' }),
  ),
  points: Type.Optional(
    Type.Number({
      exclusiveMinimum: 0,
      maximum: 100,
      description: 'score_drop, pillar_change: size of the move',
    }),
  ),
  days: Type.Optional(
    Type.Integer({ minimum: 1, maximum: MAX_DAYS, format: 'int32', description: 'look-back (default 7)' }),
  ),
  pillar: Type.Optional(PillarName),
  direction: Type.Optional(Direction),
};

export const Params = Type.Object(paramFields, { description: "the condition's parameters" });

const alertFields = {
  id: Type.String(),
  workspace_id: Type.String(),
  name: Type.String(),
  condition: Condition,
  params: Params,
  channels: Type.Object({
    email: Type.Array(Type.String()),
    webhook: Type.Boolean({ description: 'emit alert.triggered / alert.resolved to subscribed webhooks' }),
    slack_url: Type.Union([Type.String(), Type.Null()]),
  }),
  cooldown_minutes: Type.Integer(),
  enabled: Type.Boolean({ description: 'false: kept with its history but not evaluated' }),
  status: Type.Enum(['firing', 'ok'], { description: 'firing: an episode is open' }),
  last_triggered_at: Type.Union([Timestamp, Type.Null()]),
  created_at: Timestamp,
};

export const Alert = Type.Object(alertFields, { $id: 'Alert' });
export const AlertList = Type.Object({ alerts: Type.Array(Alert) }, { $id: 'AlertList' });
export const AlertId = Type.Object({
  alert_id: Type.String({ minLength: 1, maxLength: 64, examples: ['alr_01JD8ZM2N3P4Q5R6S7T8V9W0X1'] }),
});
export const DeletedAlert = Type.Object(
  { id: Type.String(), deleted: Type.Literal(true) },
  { $id: 'DeletedAlert' },
);

export const CreateAlertBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100 }),
    condition: Condition,
    ...paramFields,
    email: Type.Optional(
      Type.Array(Email, { maxItems: MAX_EMAILS, description: 'recipients of the alert emails' }),
    ),
    webhook: Type.Optional(
      Type.Boolean({ description: 'emit alert.triggered / alert.resolved (default false)' }),
    ),
    slack_url: Type.Optional(
      Type.String({
        maxLength: MAX_URL_LENGTH,
        description: 'a Slack-compatible incoming-webhook URL (https)',
      }),
    ),
    cooldown_minutes: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 10080,
        format: 'int32',
        description: 'after an episode resolves, the rule does not fire again for this long (default 60)',
      }),
    ),
  },
  {
    additionalProperties: false,
    examples: [
      {
        name: 'Score fell 5 points in a week',
        condition: 'score_drop',
        points: 5,
        days: 7,
        email: ['brand-team@example.com'],
        webhook: true,
        slack_url: 'https://hooks.slack.com/services/T000/B000/XXXX',
      },
    ],
  },
);

export const UpdateAlertBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    ...paramFields,
    email: Type.Optional(
      Type.Array(Email, { maxItems: MAX_EMAILS, description: 'replaces the recipients; [] removes them' }),
    ),
    webhook: Type.Optional(Type.Boolean()),
    slack_url: Type.Optional(
      Type.Union([Type.String({ maxLength: MAX_URL_LENGTH }), Type.Null()], {
        description: 'a Slack-compatible incoming-webhook URL (https); null removes it',
      }),
    ),
    cooldown_minutes: Type.Optional(Type.Integer({ minimum: 0, maximum: 10080, format: 'int32' })),
    enabled: Type.Optional(Type.Boolean({ description: 'false: keep the rule but stop evaluating it' })),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    examples: [{ name: 'Score under 55', threshold: 55 }, { enabled: false }, { slack_url: null }],
  },
);

const Notification = Type.Object({
  phase: Type.Enum(['triggered', 'resolved']),
  channel: Type.Enum(['email', 'slack']),
  status: Type.Enum(['pending', 'sent', 'failed']),
  attempts: Type.Integer(),
  last_error: Type.Union([Type.String(), Type.Null()]),
  sent_at: Type.Union([Timestamp, Type.Null()]),
});

export const Episode = Type.Object(
  {
    id: Type.String(),
    status: Type.Enum(['firing', 'resolved']),
    summary: Type.String(),
    drivers: AlertDrivers,
    triggered_at: Timestamp,
    resolved_at: Type.Union([Timestamp, Type.Null()]),
    resolution: Type.Union([Type.Object({ summary: Type.String(), drivers: AlertDrivers }), Type.Null()]),
    notifications: Type.Array(Notification),
  },
  { $id: 'AlertEpisode' },
);

export const EpisodeList = Type.Object(
  { episodes: Type.Array(Episode), total: Type.Integer(), limit: Type.Integer(), offset: Type.Integer() },
  { $id: 'AlertEpisodeList' },
);

export const EpisodeListQuery = Type.Object(
  {
    limit: withDefault(Type.Integer({ minimum: 1, maximum: 100, default: 20, format: 'int32' })),
    offset: withDefault(Type.Integer({ minimum: 0, maximum: 100_000, default: 0, format: 'int32' })),
  },
  { additionalProperties: false },
);

export const ALERT_EXAMPLE: Static<typeof Alert> = {
  id: 'alr_01JD8ZM2N3P4Q5R6S7T8V9W0X1',
  workspace_id: 'ws_01JD8Z6Q9W4T3B2N1M0K5R7H8C',
  name: 'Score fell 5 points in a week',
  condition: 'score_drop',
  params: { points: 5, days: 7 },
  channels: {
    email: ['brand-team@example.com'],
    webhook: true,
    slack_url: 'https://hooks.slack.com/services/T000/B000/XXXX',
  },
  cooldown_minutes: 60,
  enabled: true,
  status: 'firing',
  last_triggered_at: '2026-11-21T04:00:12.000Z',
  created_at: '2026-11-20T10:00:00.000Z',
};

export const EPISODE_LIST_EXAMPLE: Static<typeof EpisodeList> = {
  episodes: [
    {
      id: 'ale_01JD8ZN3P4Q5R6S7T8V9W0X1Y2',
      status: 'resolved',
      summary: 'The score fell 6.2 points in 7 days (71.4 on 2026-11-14 to 65.2).',
      drivers: {
        score: 65.2,
        peak_score: 71.4,
        peak_day: '2026-11-14',
        drop: 6.2,
        days: 7,
        pillars: [{ pillar: 'sentiment', change: -14.1 }],
      },
      triggered_at: '2026-11-21T04:00:12.000Z',
      resolved_at: '2026-11-23T04:00:09.000Z',
      resolution: {
        summary: 'The score is back within 5.0 points of its 7-day high (70.8, high 71.4).',
        drivers: { score: 70.8, peak_score: 71.4, drop: 0.6, days: 7 },
      },
      notifications: [
        {
          phase: 'triggered',
          channel: 'email',
          status: 'sent',
          attempts: 1,
          last_error: null,
          sent_at: '2026-11-21T04:00:13.000Z',
        },
      ],
    },
  ],
  total: 1,
  limit: 20,
  offset: 0,
};
