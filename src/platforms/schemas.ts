// TypeBox schemas of the platform connection endpoints, with their OpenAPI examples.
import { Type, type Static } from 'typebox';
import { DateOnly, PlatformName, Timestamp, WorkspaceIdInput } from '../infra/http/schemas.ts';
import { CONNECTOR_ERROR_KINDS } from '../ingest/connectors/index.ts';
import { SYNC_ERROR_CLASSES } from '../core/catalog.ts';
import { COVERAGE_DATA, HEALTH_REASONS, HEALTH_STATUSES } from './health.ts';

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
          class: Type.Enum(SYNC_ERROR_CLASSES),
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

// Connect (OAuth) endpoints.

export const NoQuery = Type.Object({}, { additionalProperties: false });

export const AttemptPath = Type.Object({
  platform: PlatformPath.properties.platform,
  id: Type.String({ minLength: 1, maxLength: 64, examples: ['oc_01JD8Z7B5V0Q3X8K2M4N6P9R1S'] }),
});

export const Account = Type.Object({
  account_id: Type.String({ description: "the platform's id of the account" }),
  handle: Type.String(),
  name: Type.String(),
  followers: Type.Integer({ description: 'audience size (subscribers on youtube)' }),
  connected_elsewhere: Type.Boolean({
    description: 'connected to another workspace already: picking it needs `share: true`',
  }),
});

export const Attempt = Type.Object(
  {
    id: Type.String({ description: 'the connect attempt' }),
    platform: PlatformName,
    workspace_id: Type.String(),
    status: Type.Enum(['pending', 'pending_selection', 'connected', 'denied', 'failed', 'expired'], {
      description:
        'pending: waiting for the account owner at the platform; pending_selection: the login gave several ' +
        'accounts (or one connected elsewhere), pick one with POST …/connect/{id}/select; connected; denied ' +
        '(consent refused); failed (see `error`); expired',
    }),
    expires_at: Timestamp,
    handle: Type.Optional(Type.String({ description: 'connected: the account' })),
    followers: Type.Optional(Type.Integer()),
    reconnected: Type.Optional(
      Type.Boolean({ description: 'a connection waiting for re-authorisation was restored' }),
    ),
    accounts: Type.Optional(
      Type.Array(Account, { description: 'pending_selection: the accounts to pick from' }),
    ),
    granted_scopes: Type.Union([Type.Array(Type.String()), Type.Null()], {
      description: 'what the platform granted (null: not known yet)',
    }),
    missing_scopes: Type.Array(Type.String(), {
      description:
        'requested but not granted: only optional ones (comment texts for sentiment); a declined required ' +
        'scope refuses the connect with 403 Permissions Declined',
    }),
    error: Type.Optional(Type.String({ description: 'failed: what went wrong' })),
  },
  { $id: 'PlatformConnectAttempt' },
);

export const ATTEMPT_EXAMPLE: Static<typeof Attempt> = {
  id: 'oc_01JD8Z7B5V0Q3X8K2M4N6P9R1S',
  platform: 'instagram',
  workspace_id: 'ws_01JD8Z6Q9W4T3B2N1M0K5R7H8C',
  status: 'connected',
  expires_at: '2026-11-22T10:15:00.000Z',
  handle: 'bluebirdcoffee',
  followers: 48210,
  reconnected: false,
  granted_scopes: ['instagram_basic', 'instagram_manage_insights', 'pages_show_list', 'business_management'],
  missing_scopes: [],
};

export const CallbackParams = Type.Object(
  {
    state: Type.Optional(Type.String({ maxLength: 512 })),
    code: Type.Optional(Type.String({ maxLength: 2048 })),
    error: Type.Optional(Type.String({ maxLength: 256 })),
    error_description: Type.Optional(Type.String({ maxLength: 1024 })),
    iss: Type.Optional(Type.String({ maxLength: 512 })),
    scope: Type.Optional(Type.String({ maxLength: 2048 })),
  },
  { additionalProperties: true },
);

/** The redirect's query as a JSON body (POST callback). */
export const CallbackBody = Type.Object(CallbackParams.properties, {
  additionalProperties: true,
  examples: [
    {
      state: 'Zm9vYmFyYmF6cXV4',
      code: 'AQD8sT2kq0x1yZ',
      iss: 'https://www.facebook.com',
    },
  ],
});

export const PlatformAuthorization = Type.Object(
  {
    platform: PlatformName,
    id: Type.String({ description: 'the connect attempt' }),
    authorization_url: Type.String({ format: 'uri' }),
    expires_at: Timestamp,
  },
  { $id: 'PlatformAuthorization' },
);

export const PLATFORM_AUTHORIZATION_EXAMPLE: Static<typeof PlatformAuthorization> = {
  platform: 'instagram',
  id: 'oc_01JD8Z7B5V0Q3X8K2M4N6P9R1S',
  authorization_url:
    'https://www.facebook.com/v26.0/dialog/oauth?response_type=code&client_id=1234567890&redirect_uri=https%3A%2F%2Fapi.example%2Fv1%2Fplatforms%2Finstagram%2Fcallback&scope=instagram_basic%2Cinstagram_manage_insights%2Cinstagram_manage_comments%2Cpages_show_list%2Cpages_read_engagement%2Cbusiness_management&state=Zm9vYmFy&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&code_challenge_method=S256&auth_type=rerequest',
  expires_at: '2026-11-22T10:15:00.000Z',
};

export const PENDING_SELECTION_EXAMPLE: Static<typeof Attempt> = {
  id: ATTEMPT_EXAMPLE.id,
  platform: ATTEMPT_EXAMPLE.platform,
  workspace_id: ATTEMPT_EXAMPLE.workspace_id,
  status: 'pending_selection',
  expires_at: ATTEMPT_EXAMPLE.expires_at,
  accounts: [
    {
      account_id: '17841400000000001',
      handle: 'bluebirdcoffee',
      name: 'Bluebird Coffee',
      followers: 48210,
      connected_elsewhere: false,
    },
    {
      account_id: '17841400000000002',
      handle: 'bluebirdroastery',
      name: 'Bluebird Roastery',
      followers: 9120,
      connected_elsewhere: false,
    },
  ],
  granted_scopes: ATTEMPT_EXAMPLE.granted_scopes,
  missing_scopes: [],
};

export const SelectAccountBody = Type.Object(
  {
    account_id: Type.String({ minLength: 1, maxLength: 200 }),
    share: Type.Optional(
      Type.Boolean({
        description: 'connect an account that another workspace has connected too',
        default: false,
      }),
    ),
  },
  { additionalProperties: false, examples: [{ account_id: '17841400000000002', share: false }] },
);

export const PlatformDisconnected = Type.Object(
  {
    platform: PlatformName,
    status: Type.Literal('disconnected'),
    revoked: Type.Boolean({ description: 'the platform confirmed the revocation' }),
  },
  { $id: 'PlatformDisconnected' },
);

export const PLATFORM_DISCONNECTED_EXAMPLE: Static<typeof PlatformDisconnected> = {
  platform: 'tiktok',
  status: 'disconnected',
  revoked: true,
};
