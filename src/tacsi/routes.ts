import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type, type Static, type TSchema } from 'typebox';
import { anyPrincipal } from '../infra/auth/auth-plugin.ts';
import { DomainError, invalidParameter } from '../core/errors.ts';
import { csvTable, jsonOrCsv, negotiateCsv, sendCsv } from '../infra/http/csv.ts';
import { DateOnly, errorResponses, json } from '../infra/http/schemas.ts';
import {
  AccessCache,
  assertLicensed,
  isLicensed,
  licensedSectors,
  sectorNames,
  type FeedRequest,
} from './entitlements.ts';
import { feedCache, ifNoneMatchHits } from './feed-cache.ts';
import { sendJsonBytes, serialize200 } from '../infra/http/json-bytes.ts';
import { dailyFeed, historyFeed, pillarFeed, weeklyFeed } from './feeds.ts';
import { methodologyFeed } from './methodology-feed.ts';
import { calendarFeed, notices } from './calendar.ts';
import {
  PARQUET_CONTENT_TYPE,
  archiveFeed,
  archiveParquet,
  coverageFeed,
  type TacsiArchive,
} from './archive.ts';
import { CORRECTIONS_PAGE_MAX, correctionsFeed, decodeCursor } from './corrections.ts';
import { Readable } from 'node:stream';
import { storedCutOver } from './ledger-store.ts';
import { TACSI_PILLARS, type TacsiPillar } from './privacy/index.ts';
import * as S from './schemas.ts';
import { CELL, COVERAGE_EXAMPLE, earlier, HISTORY_EXAMPLE } from './schemas.ts';
import { isCalendarDay, parseIsoInstant, utcDay } from '../core/days.ts';

const AUTH = { audience: 'tacsi', action: 'score.read' } as const;
const CONFIG = { auth: AUTH, conditional: true } as const;

// Built only when thrown: an error object (with its stack) per request would cost ~4% of the CPU.
const notPublished = (what: string) =>
  new DomainError('not_published', `No ${what} has been published for this sector yet.`);

/** Accept: text/csv on the history: its rows, one cell per line (pillars and margins as columns). */
const HISTORY_CSV = csvTable(S.TacsiCell);
type HistoryPage = Static<typeof S.HistoryFeed>;

/** How a feed answers Accept: text/csv (the history only): its rows, and the next page's link if any. */
interface CsvFeed {
  rows: (body: HistoryPage) => Static<typeof S.TacsiCell>[];
  next: (body: HistoryPage) => string | null;
}

// Computed, not typed in: the example is what the endpoint answers before the cut-over.
const METHODOLOGY_EXAMPLE = methodologyFeed('2026-11-23', '2026-11-22');
// Computed, as the endpoint answers it on a Wednesday for a Sector Feed with the Daily add-on.
const CALENDAR_EXAMPLE = calendarFeed(new Date('2026-11-25T10:00:00Z'), [
  {
    slug: 'food-and-beverage',
    feeds: ['weekly', 'history', 'pillars', 'daily'],
    pillars: [...TACSI_PILLARS],
  },
]);

const NOT_MODIFIED = Type.Null({
  description: 'Not Modified: the If-None-Match validator matches the current ETag',
});

const ok = <T extends TSchema>(schema: T, description: string, example: Static<T>) => ({
  200: json(schema, description, example),
  304: NOT_MODIFIED,
});

export async function tacsiRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const cache = feedCache(app.ctx);
  const access = new AccessCache(app.ctx.db, app.ctx.config.authCacheTtlMs);

  /**
   * Entitlement first (on every request; the subscriber's rows come from memory within the auth cache
   * TTL), then the published data from memory. Bodies are immutable for a given cache key, so the ETag
   * is a hash of the bytes; the cached bytes are sent as they are (Fastify does not serialize a Buffer).
   */
  async function serve<T extends TSchema>(
    request: FastifyRequest,
    reply: FastifyReply,
    feed: FeedRequest,
    cacheKey: string,
    /** The 200 body's schema (the route's response); `build` returns that body, null when unpublished. */
    schema: T,
    build: () => Promise<Static<T> | null>,
    /** What is not published yet (the 404's wording); null when the feed always builds a body. */
    missing: string | null,
    csvFeed?: CsvFeed,
  ): Promise<FastifyReply> {
    const csv = csvFeed !== undefined && negotiateCsv(request, reply);
    await assertLicensed(access, anyPrincipal(request), utcDay(app.ctx.now()), feed);
    // Serialized by the route's own 200 serializer, so a cached body is byte for byte an uncached one.
    const cached = await cache.get(cacheKey, async () => {
      const body = await build();
      return body === null ? null : serialize200(reply, body);
    });
    if (!cached) throw missing === null ? new Error(`feed ${cacheKey} built nothing`) : notPublished(missing);
    // The CSV is a function of the cached JSON bytes, so its validator is theirs, marked as another
    // representation (a strong ETag must differ between representations).
    const etag = csv ? `${cached.etag.slice(0, -1)}-csv"` : cached.etag;
    reply.header('ETag', etag).header('Cache-Control', 'private, no-cache');
    if (ifNoneMatchHits(request.headers['if-none-match'], etag)) return reply.code(304).send();
    if (!csv) return sendJsonBytes(reply, cached.bytes);
    const body = JSON.parse(cached.bytes.toString()) as HistoryPage;
    const next = csvFeed.next(body);
    if (next !== null) reply.header('Link', `<${next}>; rel="next"`);
    return sendCsv(reply, HISTORY_CSV, csvFeed.rows(body));
  }

  app.get(
    '/v1/tacsi/weekly',
    {
      config: CONFIG,
      schema: {
        operationId: 'getTacsiWeekly',
        tags: ['tacsi'],
        summary: 'Latest weekly sector index with 12 trailing weeks and the forward signal',
        description:
          "The sector's latest published weekly cell, the 12 weeks before it and the forward signal. Conditional: send If-None-Match with the ETag.",
        querystring: S.SectorQuery,
        response: {
          ...ok(S.WeeklyFeed, 'The latest week and its history', {
            sector: 'food-and-beverage',
            ...CELL,
            forwardSignal: {
              status: 'pending_archive_depth',
              note: 'The forward signal needs 104 published weeks of this sector.',
            },
            history: [earlier('2026-11-15', 62.6), earlier('2026-11-08', 62.1)],
          }),
          ...errorResponses(403, 404),
        },
      },
    },
    async (request, reply) => {
      const { sector } = request.query;
      return serve(
        request,
        reply,
        { feed: 'weekly', sector },
        `weekly|${sector}`,
        S.WeeklyFeed,
        () => weeklyFeed(app.ctx.db, sector),
        'weekly index',
      );
    },
  );

  app.get(
    '/v1/tacsi/history',
    {
      config: { ...CONFIG, csv: 'link' },
      schema: {
        operationId: 'listTacsiHistory',
        tags: ['tacsi'],
        summary: 'Weekly archive, newest first, 260 rows per page (sector=headline: Full Database only)',
        description:
          'The weekly archive between from and to, newest first, 260 rows per page; the next page is before=nextBefore while hasMore. ' +
          'With Accept: text/csv, the page\'s cells as CSV rows; its Link header (rel="next") is the next page.',
        querystring: Type.Object(
          {
            sector: S.SectorParam,
            from: Type.Optional({ ...DateOnly, description: 'earliest week end, inclusive' }),
            to: Type.Optional({ ...DateOnly, description: 'latest week end, inclusive' }),
            before: Type.Optional({ ...DateOnly, description: 'cursor: only weeks strictly before it' }),
            asOf: Type.Optional(
              Type.String({
                format: 'date-time',
                description:
                  'an instant, not in the future: the archive exactly as it could be read then (cells published at or before it); the answer is byte for byte the one served at that instant',
              }),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          ...ok(S.HistoryFeed, 'One page of the archive', HISTORY_EXAMPLE),
          200: jsonOrCsv(S.HistoryFeed, 'One page of the archive', HISTORY_EXAMPLE, {
            table: HISTORY_CSV,
            rows: (page) => page.rows,
            description: 'one weekly cell per row, newest first; pillars and margins as dotted columns',
          }),
          ...errorResponses(403),
        },
      },
    },
    async (request, reply) => {
      const { sector, from, to, before, asOf } = request.query;
      for (const [name, value] of [
        ['from', from],
        ['to', to],
        ['before', before],
      ] as const) {
        if (value !== undefined && !isCalendarDay(value))
          throw invalidParameter(name, 'must be a date YYYY-MM-DD');
      }
      if (from && to && from > to) {
        throw new DomainError('invalid_date_range', 'from must not be after to.', { parameter: 'from' });
      }
      const parsed = asOf === undefined ? undefined : parseIsoInstant(asOf);
      if (parsed !== undefined && !parsed?.zoned)
        throw invalidParameter(
          'asOf',
          'must be an ISO 8601 instant with its offset, e.g. 2026-11-23T03:30:00Z',
        );
      const instant = parsed?.instant;
      if (instant !== undefined && instant.getTime() > app.ctx.now().getTime())
        throw invalidParameter('asOf', 'must not be in the future');
      return serve(
        request,
        reply,
        { feed: 'history', sector },
        `history|${sector}|${from ?? ''}|${to ?? ''}|${before ?? ''}|${instant?.toISOString() ?? ''}`,
        S.HistoryFeed,
        () => historyFeed(app.ctx.db, sector, { from, to, before, asOf: instant }),
        null,
        {
          rows: (page: HistoryPage) => page.rows,
          next: (page: HistoryPage) =>
            page.hasMore && page.nextBefore
              ? `/v1/tacsi/history?${new URLSearchParams({
                  sector,
                  ...(from ? { from } : {}),
                  ...(to ? { to } : {}),
                  before: page.nextBefore,
                  ...(instant ? { asOf: instant.toISOString() } : {}),
                })}`
              : null,
        },
      );
    },
  );

  app.get(
    '/v1/tacsi/pillars',
    {
      config: CONFIG,
      schema: {
        operationId: 'getTacsiPillar',
        tags: ['tacsi'],
        summary: 'Every published weekly value of one pillar, newest first',
        description:
          'The series of one pillar of the sector index, newest first (Pillar add-on or Full Database).',
        querystring: Type.Object(
          { sector: S.SectorParam, pillar: S.PillarParam },
          { additionalProperties: false },
        ),
        response: {
          ...ok(S.PillarFeed, 'The pillar series', {
            sector: 'food-and-beverage',
            pillar: 'sentiment',
            series: [
              {
                periodEnd: '2026-11-22',
                value: 64.1,
                delta: 0.5,
                cohortBand: 'n >= 100',
                methodologyVersion: 'tacsi-m1',
                marginOfError: 1.4,
              },
            ],
          }),
          ...errorResponses(403, 404),
        },
      },
    },
    async (request, reply) => {
      const { sector, pillar } = request.query;
      return serve(
        request,
        reply,
        { feed: 'pillars', sector, pillar },
        `pillars|${sector}|${pillar}`,
        S.PillarFeed,
        // Only reached once the pillar is known to be one of the five (an entitlement rule).
        () => pillarFeed(app.ctx.db, sector, pillar as TacsiPillar),
        'pillar series',
      );
    },
  );

  app.get(
    '/v1/tacsi/daily',
    {
      config: CONFIG,
      schema: {
        operationId: 'getTacsiDaily',
        tags: ['tacsi'],
        summary: 'The last 30 published daily cells (Daily add-on or Full Database)',
        description: 'The 30 latest daily cells of the sector, newest first.',
        querystring: S.SectorQuery,
        response: {
          ...ok(S.DailyFeed, 'The latest daily cells', {
            sector: 'food-and-beverage',
            cadence: 'daily',
            rows: [
              { ...CELL, periodEnd: '2026-11-22', methodologyVersion: 'tacsi-m2' },
              { ...earlier('2026-11-21', 63.1), methodologyVersion: 'tacsi-m2' },
            ],
          }),
          ...errorResponses(403, 404),
        },
      },
    },
    async (request, reply) => {
      const { sector } = request.query;
      return serve(
        request,
        reply,
        { feed: 'daily', sector },
        `daily|${sector}`,
        S.DailyFeed,
        () => dailyFeed(app.ctx.db, sector),
        'daily index',
      );
    },
  );

  app.get(
    '/v1/tacsi/methodology',
    {
      config: CONFIG,
      schema: {
        operationId: 'getTacsiMethodology',
        tags: ['tacsi'],
        summary: 'Privacy parameters of every TACSI methodology (any subscriber key; extension)',
        description:
          'The differential-privacy parameters of every methodology and the cut-over date (docs/privacy.md).',
        querystring: Type.Object({}, { additionalProperties: false }),
        response: {
          ...ok(S.MethodologyFeed, 'The methodologies', METHODOLOGY_EXAMPLE),
          ...errorResponses(403),
        },
      },
    },
    async (request, reply) => {
      const today = utcDay(app.ctx.now());
      // The cut-over the first publication fixed; the configured one until then.
      const cut = (await storedCutOver(app.ctx.db)) ?? app.ctx.config.tacsiM2From;
      return serve(
        request,
        reply,
        { feed: 'methodology' },
        `methodology|${cut}|${today}`,
        S.MethodologyFeed,
        async () => methodologyFeed(cut, today, await notices(app.ctx.db, today, true)),
        null,
      );
    },
  );

  app.get(
    '/v1/tacsi/archive',
    {
      config: CONFIG,
      schema: {
        operationId: 'downloadTacsiArchive',
        tags: ['tacsi'],
        summary: "A sector's whole weekly archive in one download, as CSV or Parquet (extension)",
        description:
          'Every published weekly cell of the sector, oldest first, in one streamed download: format=csv (RFC 4180, the ' +
          'history CSV columns) or format=parquet (Apache Parquet, the same columns). Same entitlement and uniform denial ' +
          'as the history feed; strong ETag per format, If-None-Match answers 304.',
        querystring: Type.Object(
          { sector: S.SectorParam, format: Type.Enum(['csv', 'parquet']) },
          { additionalProperties: false },
        ),
        response: {
          200: {
            description: 'The archive',
            content: {
              'text/csv': {
                schema: Type.String({
                  description: 'RFC 4180 CSV with a header row, one weekly cell per row',
                }),
                example: HISTORY_CSV.text([earlier('2026-11-15', 62.6), CELL]),
              },
              [PARQUET_CONTENT_TYPE]: {
                schema: Type.String({
                  format: 'binary',
                  description: 'Apache Parquet, one weekly cell per row',
                }),
                example: '(an Apache Parquet file: the CSV columns, one weekly cell per row, oldest first)',
              },
            },
          },
          304: NOT_MODIFIED,
          ...errorResponses(403),
        },
      },
    },
    async (request, reply) => {
      const { sector, format } = request.query;
      await assertLicensed(access, anyPrincipal(request), utcDay(app.ctx.now()), { feed: 'history', sector });
      // Kept as JSON only to be turned into CSV or Parquet below (never sent as JSON).
      const cached = await cache.get(`archive|${sector}`, async () =>
        Buffer.from(JSON.stringify(await archiveFeed(app.ctx.db, sector))),
      );
      if (!cached) throw new Error(`feed archive|${sector} built nothing`);
      // Each format is a function of the cached JSON bytes: its validator is theirs, marked per format.
      const etag = `${cached.etag.slice(0, -1)}-${format}"`;
      // Not JSON: the reply is a stream, so its type is the plain one.
      const raw = reply as FastifyReply;
      raw
        .header('ETag', etag)
        .header('Cache-Control', 'private, no-cache')
        .header('Content-Disposition', `attachment; filename="tacsi-${sector}-weekly.${format}"`);
      if (ifNoneMatchHits(request.headers['if-none-match'], etag)) return raw.code(304).send();
      const body = JSON.parse(cached.bytes.toString()) as TacsiArchive;
      if (format === 'csv') return sendCsv(raw, HISTORY_CSV, body.rows);
      return raw
        .type(PARQUET_CONTENT_TYPE)
        .send(Readable.from([Buffer.from(await archiveParquet(body.rows))]));
    },
  );

  app.get(
    '/v1/tacsi/corrections',
    {
      config: CONFIG,
      schema: {
        operationId: 'listTacsiCorrections',
        tags: ['tacsi'],
        summary: "Every correction of a sector's published cells, newest first (extension)",
        description:
          'A published cell is never changed: a correction publishes a new vintage of it with a reason (docs/tacsi.md). ' +
          `This lists them, newest first, ${CORRECTIONS_PAGE_MAX} per page (the next page is cursor=nextCursor while ` +
          'hasMore): the cell, its new vintage, the reason and when it was published, never a value. Same entitlement and ' +
          "uniform denial as the history feed; daily cells' corrections are listed when the key may read the daily feed.",
        querystring: Type.Object(
          {
            sector: S.SectorParam,
            cursor: Type.Optional(
              Type.String({ maxLength: 200, description: 'nextCursor of the previous page' }),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          ...ok(S.CorrectionsFeed, 'One page of the corrections', {
            sector: 'food-and-beverage',
            count: 1,
            pageMax: CORRECTIONS_PAGE_MAX,
            hasMore: false,
            nextCursor: null,
            corrections: [
              {
                sector: 'food-and-beverage',
                feed: 'weekly',
                periodEnd: '2026-11-15',
                vintage: 2,
                reason: 'Two brands were scored in the wrong sector for that week.',
                publishedAt: '2026-11-24T10:12:00.000Z',
              },
            ],
          }),
          ...errorResponses(400, 403),
        },
      },
    },
    async (request, reply) => {
      const { sector, cursor } = request.query;
      const after = cursor === undefined ? undefined : decodeCursor(cursor);
      if (after === null) throw invalidParameter('cursor', 'must be the nextCursor of a previous page');
      const today = utcDay(app.ctx.now());
      const snapshot = await assertLicensed(access, anyPrincipal(request), today, {
        feed: 'history',
        sector,
      });
      // Daily cells' corrections only for a key that may read the daily feed.
      const daily = isLicensed(snapshot, { feed: 'daily', sector });
      return serve(
        request,
        reply,
        { feed: 'history', sector },
        `corrections|${sector}|${daily ? 'daily' : 'weekly'}|${cursor ?? ''}`,
        S.CorrectionsFeed,
        () => correctionsFeed(app.ctx.db, sector, { daily, after }),
        null,
      );
    },
  );

  app.get(
    '/v1/tacsi/coverage',
    {
      config: { auth: AUTH },
      schema: {
        tags: ['tacsi'],
        operationId: 'getTacsiCoverage',
        summary:
          'First and last published periods and band history of each sector this key may read (extension)',
        description:
          'For every sector this key may read today (as GET /v1/tacsi/sectors): its first and last published weekly (and, ' +
          'with the daily feed, daily) periods and the history of its cohort band. Same check and uniform denial.',
        querystring: Type.Object({}, { additionalProperties: false }),
        response: {
          200: json(S.CoverageFeed, 'The coverage of this key', COVERAGE_EXAMPLE),
          ...errorResponses(403),
        },
      },
    },
    async (request, reply) => {
      const snapshot = await assertLicensed(access, anyPrincipal(request), utcDay(app.ctx.now()), {
        feed: 'sectors',
      });
      reply.header('Cache-Control', 'private, no-cache');
      return { sectors: await coverageFeed(app.ctx.db, licensedSectors(snapshot)) };
    },
  );

  app.get(
    '/v1/tacsi/calendar',
    {
      config: { auth: AUTH },
      schema: {
        tags: ['tacsi'],
        operationId: 'getTacsiCalendar',
        summary:
          'When the next cells of each feed this key may read are published, and the lag policy (extension)',
        description:
          "For every sector this key may read today (as GET /v1/tacsi/sectors), each feed's next scheduled publication " +
          'instant and the period it publishes, from the publication schedules; and the lag policy. The same check and ' +
          'uniform 403 Not Licensed as every feed.',
        querystring: Type.Object({}, { additionalProperties: false }),
        response: {
          200: json(S.CalendarFeed, 'The release calendar of this key', CALENDAR_EXAMPLE),
          ...errorResponses(403),
        },
      },
    },
    async (request, reply) => {
      const now = app.ctx.now();
      const snapshot = await assertLicensed(access, anyPrincipal(request), utcDay(now), { feed: 'sectors' });
      reply.header('Cache-Control', 'private, no-cache');
      return calendarFeed(now, licensedSectors(snapshot));
    },
  );

  app.get(
    '/v1/tacsi/notices',
    {
      config: CONFIG,
      schema: {
        tags: ['tacsi'],
        operationId: 'listTacsiNotices',
        summary:
          'Methodology notices, announced ahead of their effective date (any subscriber key; extension)',
        description:
          'Every methodology notice, latest effective date first. A notice is always announced before the day it takes ' +
          'effect; those not yet in effect are also in GET /v1/tacsi/methodology.',
        querystring: Type.Object({}, { additionalProperties: false }),
        response: { ...ok(S.NoticesFeed, 'The notices', { notices: [] }), ...errorResponses(403) },
      },
    },
    async (request, reply) => {
      const today = utcDay(app.ctx.now());
      return serve(
        request,
        reply,
        { feed: 'methodology' },
        `notices|${today}`,
        S.NoticesFeed,
        async () => ({ notices: await notices(app.ctx.db, today) }),
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
          200: json(S.LicensedSectors, 'The sectors this key may read today, with their feeds'),
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
