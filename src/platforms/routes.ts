import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Static } from 'typebox';
import { workspacePrincipal } from '../infra/auth/auth-plugin.ts';
import { DomainError } from '../core/errors.ts';
import { errorResponses, json } from '../infra/http/schemas.ts';
import { SYNCING_STALE_MS } from './sync-worker.ts';
import type { ConnectorErrorKind } from '../ingest/connectors/index.ts';
import { PLATFORMS, type Platform } from '../core/catalog.ts';
import { coverage, healthOf } from './health.ts';
import { platformEndpoints } from './oauth-config.ts';
import type { AppContext } from '../context.ts';
import { listConnections, type ListedConnection } from './queries.ts';
import { resolveWorkspace } from '../workspaces/tenancy.ts';
import { requestSync } from './sync-now.ts';
import {
  EXAMPLE_CONNECTION,
  PLATFORM_LIST_EXAMPLE,
  PlatformConnection,
  PlatformPath,
  Platforms,
  SYNC_QUEUED_EXAMPLE,
  SyncQueued,
  WorkspaceQuery,
} from './schemas.ts';

export async function platformRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/v1/platforms',
    {
      config: { auth: { audience: 'workspace', plan: 'pro', action: 'score.read' } },
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
          200: json(Platforms, 'The connections and the platforms still available', PLATFORM_LIST_EXAMPLE),
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
        auth: { audience: 'workspace', plan: 'pro', action: 'score.read' },
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
        auth: { audience: 'workspace', plan: 'pro', action: 'platform.manage' },
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
          202: json(SyncQueued, 'The sync is queued', SYNC_QUEUED_EXAMPLE),
          ...errorResponses(403, 404, 409, 422),
        },
      },
    },
    async (request, reply) => {
      const { ctx } = app;
      const { platform } = request.params;
      const ws = await resolveWorkspace(ctx.db, workspacePrincipal(request), request.query.workspace_id);
      const now = ctx.now();
      await requestSync(ctx, ws.id, platform, now);
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
