import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { workspacePrincipal } from '../infra/auth/auth-plugin.ts';
import { resolveWorkspace } from '../infra/auth/tenancy.ts';
import { PLATFORMS } from '../infra/db/types.ts';
import { errorResponses, PlatformName, Timestamp } from '../infra/http/schemas.ts';

const ConnectedPlatform = Type.Object({
  name: PlatformName,
  status: Type.String({ description: 'connected' }),
  last_sync: Timestamp,
  handle: Type.String(),
  followers: Type.Optional(Type.Integer({ description: 'audience size (every platform but youtube)' })),
  subscribers: Type.Optional(Type.Integer({ description: 'audience size on youtube' })),
});

const Platforms = Type.Object({
  platforms: Type.Array(ConnectedPlatform),
  total_connected: Type.Integer(),
  available: Type.Array(PlatformName, { description: 'supported platforms not yet connected' }),
});

export async function platformRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/v1/platforms',
    {
      config: { auth: { audience: 'workspace', plan: 'pro', scope: 'read' } },
      schema: {
        tags: ['workspace'],
        summary: 'Connected social platforms of a workspace',
        querystring: Type.Object(
          { workspace_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })) },
          { additionalProperties: false },
        ),
        response: { 200: Platforms, ...errorResponses(403, 404) },
      },
    },
    async (request) => {
      const { db } = app.ctx;
      const ws = await resolveWorkspace(db, workspacePrincipal(request), request.query.workspace_id);
      const rows = await db
        .selectFrom('platform_connections')
        .select(['platform', 'handle', 'followers', 'last_sync_at', 'connected_at'])
        .where('workspace_id', '=', ws.id)
        .where('status', '=', 'connected')
        .execute();
      const order = (p: string) => PLATFORMS.indexOf(p as (typeof PLATFORMS)[number]);
      rows.sort((a, b) => order(a.platform) - order(b.platform));
      const connected = new Set(rows.map((r) => r.platform));
      return {
        platforms: rows.map((r) => ({
          name: r.platform,
          status: 'connected',
          last_sync: (r.last_sync_at ?? r.connected_at).toISOString(),
          handle: r.handle,
          ...(r.platform === 'youtube' ? { subscribers: r.followers } : { followers: r.followers }),
        })),
        total_connected: rows.length,
        available: PLATFORMS.filter((p) => !connected.has(p)),
      };
    },
  );
}
