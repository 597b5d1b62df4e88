import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type, type Static, type TSchema } from 'typebox';
import { anyPrincipal } from '../infra/auth/auth-plugin.ts';
import { problems } from '../infra/http/problem.ts';
import { DateOnly, errorResponses } from '../infra/http/schemas.ts';
import {
  AccessCache,
  assertLicensed,
  licensedSectors,
  sectorNames,
  type FeedRequest,
} from './entitlements.ts';
import { feedCache, ifNoneMatchHits } from './feed-cache.ts';
import { dailyFeed, historyFeed, pillarFeed, weeklyFeed } from './feeds.ts';
import { methodologyFeed } from './methodology-feed.ts';
import type { TacsiPillar } from './privacy/index.ts';
import * as S from './schemas.ts';
import { isCalendarDay, utcDay } from '../core/days.ts';

const AUTH = { audience: 'tacsi', scope: 'read' } as const;

// Built only when thrown: an error object (with its stack) per request would cost ~4% of the CPU.
const notPublished = (what: string) =>
  problems.notFound(`No ${what} has been published for this sector yet.`, 'Not Published');

const ok = (schema: TSchema) => ({
  200: schema,
  304: Type.Null({ description: 'Not Modified: the If-None-Match validator matches the current ETag' }),
});

export async function tacsiRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const cache = feedCache(app.ctx);
  const access = new AccessCache(app.ctx.db, app.ctx.config.authCacheTtlMs);
  // Shared, so the document names it (#/components/schemas/LicensedSectors) with its example.
  app.addSchema(S.LicensedSectors);

  /**
   * Entitlement first (on every request; the subscriber's rows come from memory within the auth cache
   * TTL), then the published data from memory. Bodies are immutable for a given cache key, so the ETag
   * is a hash of the bytes; the cached string is sent as is (Fastify skips serialization of a string
   * with a JSON content type).
   */
  async function serve(
    request: FastifyRequest,
    reply: FastifyReply,
    feed: FeedRequest,
    cacheKey: string,
    build: () => Promise<unknown | null>,
    /** What is not published yet (the 404's wording); null when the feed always builds a body. */
    missing: string | null,
  ): Promise<FastifyReply> {
    await assertLicensed(access, anyPrincipal(request), utcDay(app.ctx.now()), feed);
    const cached = await cache.get(cacheKey, build);
    if (!cached) throw missing === null ? new Error(`feed ${cacheKey} built nothing`) : notPublished(missing);
    reply.header('ETag', cached.etag).header('Cache-Control', 'private, no-cache');
    if (ifNoneMatchHits(request.headers['if-none-match'], cached.etag)) return reply.code(304).send();
    return reply.type('application/json; charset=utf-8').send(cached.body);
  }

  const sectorQuery = Type.Object({ sector: S.SectorParam }, { additionalProperties: false });

  app.get(
    '/v1/tacsi/weekly',
    {
      config: { auth: AUTH },
      schema: {
        tags: ['tacsi'],
        summary: 'Latest weekly sector index with 12 trailing weeks and the forward signal',
        querystring: sectorQuery,
        response: { ...ok(S.WeeklyFeed), ...errorResponses(403, 404) },
      },
    },
    async (request, reply) => {
      const { sector } = request.query;
      return serve(
        request,
        reply,
        { feed: 'weekly', sector },
        `weekly|${sector}`,
        () => weeklyFeed(app.ctx.db, sector),
        'weekly index',
      );
    },
  );

  app.get(
    '/v1/tacsi/history',
    {
      config: { auth: AUTH },
      schema: {
        tags: ['tacsi'],
        summary: 'Weekly archive, newest first, 260 rows per page (sector=headline: Full Database only)',
        querystring: Type.Object(
          {
            sector: S.SectorParam,
            from: Type.Optional({ ...DateOnly, description: 'earliest week end, inclusive' }),
            to: Type.Optional({ ...DateOnly, description: 'latest week end, inclusive' }),
            before: Type.Optional({ ...DateOnly, description: 'cursor: only weeks strictly before it' }),
          },
          { additionalProperties: false },
        ),
        response: { ...ok(S.HistoryFeed), ...errorResponses(403) },
      },
    },
    async (request, reply) => {
      const { sector, from, to, before } = request.query;
      for (const [name, value] of [
        ['from', from],
        ['to', to],
        ['before', before],
      ] as const) {
        if (value !== undefined && !isCalendarDay(value))
          throw problems.invalidParameter(name, 'must be a date YYYY-MM-DD');
      }
      if (from && to && from > to) {
        throw problems.badRequest('Invalid Date Range', 'from must not be after to.', 'from');
      }
      return serve(
        request,
        reply,
        { feed: 'history', sector },
        `history|${sector}|${from ?? ''}|${to ?? ''}|${before ?? ''}`,
        () => historyFeed(app.ctx.db, sector, { from, to, before }),
        null,
      );
    },
  );

  app.get(
    '/v1/tacsi/pillars',
    {
      config: { auth: AUTH },
      schema: {
        tags: ['tacsi'],
        summary: 'Every published weekly value of one pillar, newest first',
        querystring: Type.Object(
          { sector: S.SectorParam, pillar: S.PillarParam },
          { additionalProperties: false },
        ),
        response: { ...ok(S.PillarFeed), ...errorResponses(403, 404) },
      },
    },
    async (request, reply) => {
      const { sector, pillar } = request.query;
      return serve(
        request,
        reply,
        { feed: 'pillars', sector, pillar },
        `pillars|${sector}|${pillar}`,
        // Only reached once the pillar is known to be one of the five (an entitlement rule).
        () => pillarFeed(app.ctx.db, sector, pillar as TacsiPillar),
        'pillar series',
      );
    },
  );

  app.get(
    '/v1/tacsi/daily',
    {
      config: { auth: AUTH },
      schema: {
        tags: ['tacsi'],
        summary: 'The last 30 published daily cells (Daily add-on or Full Database)',
        querystring: sectorQuery,
        response: { ...ok(S.DailyFeed), ...errorResponses(403, 404) },
      },
    },
    async (request, reply) => {
      const { sector } = request.query;
      return serve(
        request,
        reply,
        { feed: 'daily', sector },
        `daily|${sector}`,
        () => dailyFeed(app.ctx.db, sector),
        'daily index',
      );
    },
  );

  app.get(
    '/v1/tacsi/methodology',
    {
      config: { auth: AUTH },
      schema: {
        tags: ['tacsi'],
        summary: 'Privacy parameters of every TACSI methodology (any subscriber key; extension)',
        querystring: Type.Object({}, { additionalProperties: false }),
        response: { ...ok(S.MethodologyFeed), ...errorResponses(403) },
      },
    },
    async (request, reply) => {
      const today = utcDay(app.ctx.now());
      const cut = app.ctx.config.tacsiM2From;
      return serve(
        request,
        reply,
        { feed: 'methodology' },
        `methodology|${today >= cut}`,
        async () => methodologyFeed(cut, today),
        null,
      );
    },
  );

  app.get(
    '/v1/tacsi/sectors',
    {
      config: { auth: AUTH },
      schema: {
        tags: ['tacsi'],
        operationId: 'listLicensedSectors',
        summary:
          'The sectors this key is licensed for, and through which feeds (any subscriber key; extension)',
        description:
          'Every sector this subscriber key may read today with the feeds and pillars it may read there, decided by ' +
          'the same rules as the feeds. Sectors it may not read are absent, never described. A subscriber without ' +
          'a valid licence gets an empty list; a workspace key or a key without the read scope gets the uniform ' +
          '403 Not Licensed of the other TACSI feeds.',
        querystring: Type.Object({}, { additionalProperties: false }),
        response: {
          200: Type.Unsafe<Static<typeof S.LicensedSectors>>({ $ref: 'LicensedSectors#' }),
          ...errorResponses(403),
        },
      },
    },
    async (request, reply) => {
      // The same check, and so the same denial, as every other feed; then the list from the same rows.
      const snapshot = await assertLicensed(access, anyPrincipal(request), utcDay(app.ctx.now()), {
        feed: 'sectors',
      });
      const licensed = licensedSectors(snapshot);
      const names = await sectorNames(
        app.ctx.db,
        licensed.map((s) => s.slug),
      );
      reply.header('Cache-Control', 'private, no-cache');
      return { sectors: licensed.map((s) => ({ ...s, name: names.get(s.slug) ?? s.slug })) };
    },
  );
}
