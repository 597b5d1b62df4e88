import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type, type Static } from 'typebox';
import { workspacePrincipal } from '../infra/auth/auth-plugin.ts';
import { ProblemError, problems } from '../infra/http/problem.ts';
import { DomainError } from '../core/errors.ts';
import {
  DateOnly,
  errorResponses,
  json,
  PlatformName,
  Timestamp,
  WorkspaceIdInput,
} from '../infra/http/schemas.ts';
import { enqueueManualSync, SYNCING_STALE_MS } from '../ingest/sync-worker.ts';
import { CONNECTOR_ERROR_KINDS, type ConnectorErrorKind } from '../ingest/connectors/index.ts';
import { PLATFORMS, SYNC_ERROR_CLASSES, type Platform } from '../core/catalog.ts';
import { COVERAGE_DATA, coverage, HEALTH_REASONS, HEALTH_STATUSES, healthOf } from './health.ts';
import { platformEndpoints } from './oauth-config.ts';
import type { AppContext } from '../context.ts';
import { listConnections, type ListedConnection } from './queries.ts';
import { holdsPlace } from './connection-state.ts';
import { resolveWorkspace } from '../workspaces/tenancy.ts';

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
const EXAMPLE_CONNECTION: Static<typeof PlatformConnection> = {
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

const Platforms = Type.Object(
  {
    platforms: Type.Array(PlatformConnection),
    total_connected: Type.Integer({ description: 'platforms connected (disconnected ones excluded)' }),
    available: Type.Array(PlatformName, {
      description: 'supported platforms that can be connected: never connected, or disconnected',
    }),
  },
  { $id: 'PlatformList' },
);

const SyncQueued = Type.Object(
  {
    platform: PlatformName,
    status: Type.Literal('queued'),
    requested_at: Timestamp,
  },
  { $id: 'SyncQueued' },
);

const WorkspaceQuery = Type.Object(
  { workspace_id: Type.Optional(WorkspaceIdInput) },
  { additionalProperties: false },
);

export const PlatformPath = Type.Object({ platform: { ...PlatformName, examples: ['instagram'] } });

export async function platformRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/v1/platforms',
    {
      config: { auth: { audience: 'workspace', plan: 'pro', scope: 'read' } },
      schema: {
        operationId: 'listPlatforms',
        tags: ['platforms'],
        summary: 'Connected social platforms of a workspace, with their sync health',
        description:
          '`last_sync` is the last successful sync (the connection time before the first one). ' +
          'Extensions: `status` beyond connected, `last_error`, `next_sync_at`, and `health`: healthy, degraded, ' +
          'needs_reauth or unsupported with a reason code, the scopes required and granted, the last success, the ' +
          'latest day with data, per-pillar coverage and the calls that failed (docs/ingestion.md "Connection health").',
        querystring: WorkspaceQuery,
        response: {
          200: json(Platforms, 'The connections and the platforms still available', {
            platforms: [EXAMPLE_CONNECTION, EXAMPLE_DEGRADED],
            total_connected: 2,
            available: ['tiktok', 'twitter', 'facebook'],
          }),
          ...errorResponses(403, 404),
        },
      },
    },
    async (request) => {
      const { ctx } = app;
      const ws = await resolveWorkspace(ctx.db, workspacePrincipal(request), request.query.workspace_id);
      const rows = shownConnections(await listConnections(ctx.db, ws.id));
      const connected = new Set(rows.filter((r) => r.status !== 'disconnected').map((r) => r.platform));
      const now = ctx.now();
      return {
        platforms: rows.map((r) => presentConnection(ctx, r, now)),
        total_connected: connected.size,
        available: PLATFORMS.filter((p) => !connected.has(p)),
      };
    },
  );

  app.get(
    '/v1/platforms/:platform',
    {
      config: {
        auth: { audience: 'workspace', plan: 'pro', scope: 'read' },
        validationProblems: { '/platform': 'invalid_platform' },
      },
      schema: {
        operationId: 'getPlatform',
        tags: ['platforms'],
        summary: "One platform's connection, with its health (extension)",
        description:
          'The connection GET /v1/platforms lists for this platform: the live one, else the latest disconnected ' +
          'one. 404 when the platform was never connected.',
        params: PlatformPath,
        querystring: WorkspaceQuery,
        response: {
          200: json(PlatformConnection, 'The connection and its health', EXAMPLE_CONNECTION),
          ...errorResponses(403, 404, 422),
        },
      },
    },
    async (request) => {
      const { ctx } = app;
      const { platform } = request.params;
      const ws = await resolveWorkspace(ctx.db, workspacePrincipal(request), request.query.workspace_id);
      const [row] = shownConnections(await listConnections(ctx.db, ws.id, platform));
      if (!row) {
        throw new DomainError(
          'platform_not_connected',
          `${platform} is not connected to workspace ${ws.id}: connect it with POST /v1/platforms/${platform}/connect.`,
        );
      }
      return presentConnection(ctx, row, ctx.now());
    },
  );

  app.post(
    '/v1/platforms/:platform/sync',
    {
      config: {
        auth: { audience: 'workspace', plan: 'pro', scope: 'write' },
        validationProblems: { '/platform': 'invalid_platform' },
      },
      schema: {
        operationId: 'syncPlatform',
        tags: ['platforms'],
        summary: 'Sync a connected platform now (extension)',
        description:
          'Queues an immediate sync of the connection, outside its schedule: for a connection that was just ' +
          'authorised. At most one per connection per SYNC_ON_DEMAND_COOLDOWN_SECONDS (default 300): 429 with ' +
          'Retry-After otherwise. Watch GET /v1/platforms for the result.',
        params: PlatformPath,
        querystring: WorkspaceQuery,
        response: {
          202: json(SyncQueued, 'The sync is queued', {
            platform: 'instagram',
            status: 'queued',
            requested_at: '2026-11-22T10:05:00.000Z',
          }),
          ...errorResponses(403, 404, 409, 422),
        },
      },
    },
    async (request, reply) => {
      const { ctx } = app;
      const { platform } = request.params;
      const ws = await resolveWorkspace(ctx.db, workspacePrincipal(request), request.query.workspace_id);
      const now = ctx.now();
      const cooldown = ctx.config.sync.onDemandCooldownSeconds;
      const outcome = await ctx.db.transaction().execute(async (trx) => {
        const c = await trx
          .selectFrom('platform_connections')
          .select(['id', 'platform', 'status', 'access_token', 'manual_sync_at'])
          .where('workspace_id', '=', ws.id)
          .where('platform', '=', platform)
          .where(holdsPlace)
          .forUpdate()
          .executeTakeFirst();
        if (!c) {
          return new DomainError(
            'platform_not_connected',
            `${platform} is not connected to workspace ${ws.id}: connect it with POST /v1/platforms/${platform}/connect.`,
          );
        }
        if (c.status === 'reauth_required') {
          return problems.conflict(
            'Reauthorization Required',
            `The ${platform} connection needs re-authorisation: reconnect with POST /v1/platforms/${platform}/connect.`,
          );
        }
        if (c.access_token === null) {
          return problems.conflict(
            'Not Connected Through OAuth',
            `The ${platform} connection has no authorisation to sync with: reconnect with POST /v1/platforms/${platform}/connect.`,
          );
        }
        const wait = c.manual_sync_at
          ? Math.ceil((c.manual_sync_at.getTime() + cooldown * 1000 - now.getTime()) / 1000)
          : 0;
        if (wait > 0) {
          return new ProblemError(
            429,
            'Sync Rate Limited',
            `${platform} was synced on demand less than ${cooldown} s ago; retry in ${wait} s.`,
            { headers: { 'Retry-After': String(wait) } },
          );
        }
        await trx
          .updateTable('platform_connections')
          .set({ manual_sync_at: now })
          .where('id', '=', c.id)
          .execute();
        await enqueueManualSync(ctx, trx, c);
        return null;
      });
      if (outcome) throw outcome;
      reply.code(202);
      return { platform, status: 'queued' as const, requested_at: now.toISOString() };
    },
  );
}

/**
 * One row per platform: its live connection, else its latest disconnected one (history kept, so
 * worth showing with its last_sync; docs/adr/0098-disconnected-platforms-stay-listed-as-disconnected.md),
 * in the canonical platform order.
 */
function shownConnections(all: ListedConnection[]): ListedConnection[] {
  const shown = new Map<string, ListedConnection>();
  for (const r of all) {
    const seen = shown.get(r.platform);
    const newer =
      seen?.status === 'disconnected' &&
      (r.status !== 'disconnected' ||
        (r.disconnected_at?.getTime() ?? 0) > (seen.disconnected_at?.getTime() ?? 0));
    if (!seen || newer) shown.set(r.platform, r);
  }
  const order = (p: Platform) => PLATFORMS.indexOf(p);
  return [...shown.values()].sort((a, b) => order(a.platform) - order(b.platform));
}

function presentConnection(
  ctx: AppContext,
  r: ListedConnection,
  now: Date,
): Static<typeof PlatformConnection> {
  const audience = r.platform === 'youtube' ? { subscribers: r.followers } : { followers: r.followers };
  if (r.status === 'disconnected') {
    return {
      name: r.platform,
      status: 'disconnected',
      last_sync: (r.last_sync_at ?? r.connected_at).toISOString(),
      handle: r.handle,
      ...audience,
      last_error: null,
      disconnected_at: r.disconnected_at?.toISOString() ?? null,
      next_sync_at: null,
      health: null,
    };
  }
  const syncing =
    r.sync_started_at !== null && now.getTime() - r.sync_started_at.getTime() < SYNCING_STALE_MS;
  const status =
    r.status === 'reauth_required'
      ? ('reauth_required' as const)
      : syncing
        ? ('syncing' as const)
        : r.last_error_class && r.last_error_class !== 'rate_limited'
          ? ('error' as const)
          : ('connected' as const);
  const scheduled = r.status === 'connected' && r.access_token !== null;
  const requiredScopes = platformEndpoints(ctx.config, r.platform).scopes;
  const verdict = healthOf({ ...r, required_scopes: requiredScopes });
  return {
    name: r.platform,
    status,
    last_sync: (r.last_sync_at ?? r.connected_at).toISOString(),
    handle: r.handle,
    ...audience,
    last_error:
      r.last_error_class && r.last_error_at
        ? { class: r.last_error_class, at: r.last_error_at.toISOString() }
        : null,
    // NULL next_sync_at on a scheduled connection means due now (a new connection).
    next_sync_at: scheduled ? (r.next_sync_at ?? now).toISOString() : null,
    health: {
      ...verdict,
      required_scopes: requiredScopes,
      granted_scopes: r.granted_scopes,
      last_success_at: r.last_sync_at?.toISOString() ?? null,
      latest_data_day: r.latest_data_day,
      reauth_by: r.refresh_token === null ? (r.token_expires_at?.toISOString() ?? null) : null,
      coverage: coverage(r.platform, r.sync_failures),
      failures: r.sync_failures.map((f) => ({ ...f, kind: f.kind as ConnectorErrorKind })),
    },
  };
}
