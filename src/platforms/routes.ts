import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { workspacePrincipal } from '../infra/auth/auth-plugin.ts';
import { ProblemError, problems } from '../infra/http/problem.ts';
import { DomainError } from '../core/errors.ts';
import { errorResponses, json, PlatformName, Timestamp, WorkspaceIdInput } from '../infra/http/schemas.ts';
import { enqueueManualSync, SYNCING_STALE_MS } from '../ingest/schedule.ts';
import { PLATFORMS } from '../core/catalog.ts';
import { resolveWorkspace } from '../workspaces/tenancy.ts';

const ERROR_CLASSES = [
  'rate_limited',
  'platform_unavailable',
  'platform_error',
  'reauth_required',
  'invalid_response',
] as const;

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
  },
  { $id: 'PlatformConnection' },
);

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
          'Extensions: `status` beyond connected, `last_error`, `next_sync_at` (docs/ingestion.md "Connection health").',
        querystring: WorkspaceQuery,
        response: {
          200: json(Platforms, 'The connections and the platforms still available', {
            platforms: [
              {
                name: 'instagram',
                status: 'connected',
                last_sync: '2026-11-22T03:14:00.000Z',
                handle: '@bluebirdcoffee',
                followers: 48210,
                last_error: null,
                next_sync_at: '2026-11-23T03:14:00.000Z',
              },
              {
                name: 'youtube',
                status: 'error',
                last_sync: '2026-11-20T03:20:00.000Z',
                handle: '@bluebirdcoffee',
                subscribers: 5120,
                last_error: { class: 'platform_unavailable', at: '2026-11-22T03:20:00.000Z' },
                next_sync_at: '2026-11-22T04:20:00.000Z',
              },
            ],
            total_connected: 2,
            available: ['tiktok', 'twitter', 'facebook'],
          }),
          ...errorResponses(403, 404),
        },
      },
    },
    async (request) => {
      const { db } = app.ctx;
      const ws = await resolveWorkspace(db, workspacePrincipal(request), request.query.workspace_id);
      const all = await db
        .selectFrom('platform_connections')
        .select([
          'platform',
          'handle',
          'status',
          'followers',
          'last_sync_at',
          'connected_at',
          'access_token',
          'next_sync_at',
          'sync_started_at',
          'last_error_class',
          'last_error_at',
          'disconnected_at',
        ])
        .where('workspace_id', '=', ws.id)
        .execute();
      // A platform shows its live connection, else its latest disconnected one (history kept, so
      // worth showing with its last_sync; docs/decisions.md "Disconnected platforms stay listed").
      const shown = new Map<string, (typeof all)[number]>();
      for (const r of all) {
        const seen = shown.get(r.platform);
        const newer =
          seen?.status === 'disconnected' &&
          (r.status !== 'disconnected' ||
            (r.disconnected_at?.getTime() ?? 0) > (seen.disconnected_at?.getTime() ?? 0));
        if (!seen || newer) shown.set(r.platform, r);
      }
      const rows = [...shown.values()];
      const order = (p: string) => PLATFORMS.indexOf(p as (typeof PLATFORMS)[number]);
      rows.sort((a, b) => order(a.platform) - order(b.platform));
      const connected = new Set(rows.filter((r) => r.status !== 'disconnected').map((r) => r.platform));
      const now = app.ctx.now();
      return {
        platforms: rows.map((r) => {
          if (r.status === 'disconnected') {
            return {
              name: r.platform,
              status: 'disconnected' as const,
              last_sync: (r.last_sync_at ?? r.connected_at).toISOString(),
              handle: r.handle,
              ...(r.platform === 'youtube' ? { subscribers: r.followers } : { followers: r.followers }),
              last_error: null,
              disconnected_at: r.disconnected_at?.toISOString() ?? null,
              next_sync_at: null,
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
          return {
            name: r.platform,
            status,
            last_sync: (r.last_sync_at ?? r.connected_at).toISOString(),
            handle: r.handle,
            ...(r.platform === 'youtube' ? { subscribers: r.followers } : { followers: r.followers }),
            last_error:
              r.last_error_class && r.last_error_at
                ? { class: r.last_error_class, at: r.last_error_at.toISOString() }
                : null,
            // NULL next_sync_at on a scheduled connection means due now (a new connection).
            next_sync_at: scheduled ? (r.next_sync_at ?? now).toISOString() : null,
          };
        }),
        total_connected: connected.size,
        available: PLATFORMS.filter((p) => !connected.has(p)),
      };
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
          .where('status', '<>', 'disconnected')
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
