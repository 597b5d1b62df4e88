// TypeBox schemas of the platform connection endpoints, with their OpenAPI examples.
import { Type, type Static } from 'typebox';
import { DateOnly, PlatformName, Timestamp, WorkspaceIdInput } from '../infra/http/schemas.ts';
import { CONNECTOR_ERROR_KINDS } from '../ingest/connectors/index.ts';
import { COVERAGE_DATA, HEALTH_REASONS, HEALTH_STATUSES } from './health.ts';

const ERROR_CLASSES = [
  'rate_limited',
  'platform_unavailable',
  'platform_error',
  'reauth_required',
  'invalid_response',
] as const;

const PillarCoverageSchema = Type.Object(
  {
    level: Type.Enum(['full', 'partial', 'none']),
    missing: Type.Array(
      Type.Object({
        data: Type.Enum(COVERAGE_DATA),
        reason: Type.String({ maxLength: 400 }),
      }),
      { description: 'the data the pillar lacks or has only in part, and why (empty when full)' },
    ),
  },
  { additionalProperties: false },
);

const SyncFailureSchema = Type.Object({
  call: Type.String({ maxLength: 300, description: 'the platform call, e.g. GET /{ig-user-id}/insights' }),
  metric: Type.Union([Type.String({ maxLength: 200 }), Type.Null()]),
  kind: Type.Enum(CONNECTOR_ERROR_KINDS),
  scope: Type.Union([Type.String({ maxLength: 200 }), Type.Null()], {
    description: 'the permission the platform said is missing',
  }),
  message: Type.String({ maxLength: 400 }),
  since: Timestamp,
  at: Timestamp,
});

export const ConnectionHealth = Type.Object(
  {
    status: Type.Enum(HEALTH_STATUSES, {
      description:
        'healthy; degraded (stored, but with partial failures, or the last attempt failed and is retried); ' +
        'needs_reauth (the brand must connect again); unsupported (the account is gone or the platform cannot serve it)',
    }),
    reason: Type.Union(
      [
        Type.Enum([
          ...new Set([
            ...HEALTH_REASONS.degraded,
            ...HEALTH_REASONS.needs_reauth,
            ...HEALTH_REASONS.unsupported,
          ]),
        ]),
        Type.Null(),
      ],
      { description: 'why the status is not healthy; null when healthy' },
    ),
    missing_scope: Type.Union([Type.String({ maxLength: 200 }), Type.Null()], {
      description: 'the permission to grant when connecting again, when the platform named it',
    }),
    required_scopes: Type.Array(Type.String({ maxLength: 200 }), {
      description: 'the scopes the service asks for on this platform',
    }),
    granted_scopes: Type.Union([Type.Array(Type.String({ maxLength: 200 })), Type.Null()], {
      description: 'the scopes the platform granted at connect; null when unknown',
    }),
    last_success_at: Type.Union([Timestamp, Type.Null()], { description: 'the last successful sync' }),
    latest_data_day: Type.Union([DateOnly, Type.Null()], {
      description: 'the latest day the platform reported activity for (posts, views or engagement)',
    }),
    reauth_by: Type.Union([Timestamp, Type.Null()], {
      description:
        'when the access token lapses, for a token the platform does not let us refresh (Meta): connect again before',
    }),
    coverage: Type.Object(
      {
        presence: PillarCoverageSchema,
        reach: PillarCoverageSchema,
        impact: PillarCoverageSchema,
        sentiment: PillarCoverageSchema,
        momentum: PillarCoverageSchema,
      },
      {
        description: "per pillar, what the connection gives: the platform's capabilities minus its failures",
      },
    ),
    failures: Type.Array(SyncFailureSchema, {
      description: 'calls of the last sync that failed while the rest was stored; tried again every sync',
    }),
  },
  { $id: 'ConnectionHealth' },
);

export const PlatformConnection = Type.Object(
  {
    name: PlatformName,
    status: Type.Enum(['connected', 'syncing', 'reauth_required', 'error', 'disconnected'], {
      description:
        'connected (spec); extensions: syncing (a sync is running), error (the last attempt failed: see last_error), ' +
        'reauth_required (the platform refused our refresh token, or an access token that cannot be refreshed: ' +
        'reconnect with POST /v1/platforms/{platform}/connect), ' +
        'disconnected (disconnected by the brand; its history is kept, it is also in `available`)',
    }),
    last_sync: Timestamp,
    handle: Type.String(),
    followers: Type.Optional(Type.Integer({ description: 'audience size (every platform but youtube)' })),
    subscribers: Type.Optional(Type.Integer({ description: 'audience size on youtube' })),
    last_error: Type.Union(
      [
        Type.Object({
          class: Type.Enum(ERROR_CLASSES),
          at: Timestamp,
        }),
        Type.Null(),
      ],
      { description: 'extension: the last failed sync attempt since the last success, or null' },
    ),
    disconnected_at: Type.Optional(
      Type.Union([Timestamp, Type.Null()], {
        description: 'extension: when a disconnected platform was disconnected',
      }),
    ),
    next_sync_at: Type.Union([Timestamp, Type.Null()], {
      description:
        'extension: when the next scheduled sync is due; null when none is scheduled (reauth_required, or a ' +
        'connection made without OAuth, which only the CLI syncs)',
    }),
    health: Type.Union([ConnectionHealth, Type.Null()], {
      description:
        'extension: the connection\'s health (docs/ingestion.md "Connection health"); null once disconnected',
    }),
  },
  { $id: 'PlatformConnection' },
);

const FULL = { level: 'full' as const, missing: [] };
export const EXAMPLE_CONNECTION: Static<typeof PlatformConnection> = {
  name: 'instagram',
  status: 'connected',
  last_sync: '2026-11-22T03:14:00.000Z',
  handle: '@bluebirdcoffee',
  followers: 48210,
  last_error: null,
  next_sync_at: '2026-11-23T03:14:00.000Z',
  health: {
    status: 'healthy',
    reason: null,
    missing_scope: null,
    required_scopes: [
      'instagram_basic',
      'instagram_manage_insights',
      'pages_show_list',
      'business_management',
    ],
    granted_scopes: null,
    last_success_at: '2026-11-22T03:14:00.000Z',
    latest_data_day: '2026-11-21',
    reauth_by: '2027-01-12T10:02:00.000Z',
    coverage: {
      presence: FULL,
      reach: {
        level: 'partial',
        missing: [
          {
            data: 'audience_history',
            reason: 'new followers a day only (no unfollows), for the last 30 days',
          },
        ],
      },
      impact: {
        level: 'partial',
        missing: [{ data: 'engagement', reason: 'likes and comments per post; no saves or shares' }],
      },
      sentiment: FULL,
      momentum: {
        level: 'partial',
        missing: [{ data: 'engagement', reason: 'likes and comments per post; no saves or shares' }],
      },
    },
    failures: [],
  },
};
const EXAMPLE_DEGRADED: Static<typeof PlatformConnection> = {
  name: 'youtube',
  status: 'connected',
  last_sync: '2026-11-22T03:20:00.000Z',
  handle: '@bluebirdcoffee',
  subscribers: 5120,
  last_error: null,
  next_sync_at: '2026-11-23T03:20:00.000Z',
  health: {
    status: 'degraded',
    reason: 'partial_failure',
    missing_scope: 'https://www.googleapis.com/auth/yt-analytics.readonly',
    required_scopes: [
      'https://www.googleapis.com/auth/youtube.readonly',
      'https://www.googleapis.com/auth/yt-analytics.readonly',
    ],
    granted_scopes: ['https://www.googleapis.com/auth/youtube.readonly'],
    last_success_at: '2026-11-22T03:20:00.000Z',
    latest_data_day: '2026-11-20',
    reauth_by: null,
    coverage: {
      presence: FULL,
      reach: {
        level: 'partial',
        missing: [
          { data: 'views', reason: 'GET /v2/reports failed (permission_missing: yt-analytics.readonly)' },
        ],
      },
      impact: {
        level: 'partial',
        missing: [
          { data: 'views', reason: 'GET /v2/reports failed (permission_missing: yt-analytics.readonly)' },
        ],
      },
      sentiment: {
        level: 'none',
        missing: [{ data: 'comments', reason: 'comments are not read from YouTube' }],
      },
      momentum: {
        level: 'partial',
        missing: [
          { data: 'views', reason: 'GET /v2/reports failed (permission_missing: yt-analytics.readonly)' },
          { data: 'comments', reason: 'comments are not read from YouTube' },
        ],
      },
    },
    failures: [
      {
        call: 'GET /v2/reports',
        metric: 'views',
        kind: 'permission_missing',
        scope: 'https://www.googleapis.com/auth/yt-analytics.readonly',
        message: 'youtube: /v2/reports answered 403: Request had insufficient authentication scopes.',
        since: '2026-11-21T03:20:00.000Z',
        at: '2026-11-22T03:20:00.000Z',
      },
    ],
  },
};

export const Platforms = Type.Object(
  {
    platforms: Type.Array(PlatformConnection),
    total_connected: Type.Integer({ description: 'platforms connected (disconnected ones excluded)' }),
    available: Type.Array(PlatformName, {
      description: 'supported platforms that can be connected: never connected, or disconnected',
    }),
  },
  { $id: 'PlatformList' },
);

export const SyncQueued = Type.Object(
  {
    platform: PlatformName,
    status: Type.Literal('queued'),
    requested_at: Timestamp,
  },
  { $id: 'SyncQueued' },
);

export const WorkspaceQuery = Type.Object(
  { workspace_id: Type.Optional(WorkspaceIdInput) },
  { additionalProperties: false },
);

export const PlatformPath = Type.Object({ platform: { ...PlatformName, examples: ['instagram'] } });

export const PLATFORM_LIST_EXAMPLE: Static<typeof Platforms> = {
  platforms: [EXAMPLE_CONNECTION, EXAMPLE_DEGRADED],
  total_connected: 2,
  available: ['tiktok', 'twitter', 'facebook'],
};

export const SYNC_QUEUED_EXAMPLE: Static<typeof SyncQueued> = {
  platform: 'instagram',
  status: 'queued',
  requested_at: '2026-11-22T10:05:00.000Z',
};
