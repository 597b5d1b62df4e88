import type { FastifyInstance, FastifyReply } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type, type Static } from 'typebox';
import { workspacePrincipal, type AuthRequirement } from '../infra/auth/auth-plugin.ts';
import { DomainError, invalidParameter } from '../core/errors.ts';
import { csvTable, jsonOrCsv, negotiateCsv, sendCsv } from '../infra/http/csv.ts';
import { errorResponses, Grade, PlatformName, Timestamp, withDefault } from '../infra/http/schemas.ts';
import { ACCOUNT_TIERS, round1, type CompositeGrade } from '../scoring/engine/index.ts';
import { ACCOUNT_TYPES, ORG_TYPES } from '../core/catalog.ts';
import { clientsWithLatestScore, exportScope, scoreExportJson, type ClientScoreRow } from './queries.ts';
import { parseIsoInstant } from '../core/days.ts';
import { exportCache } from './export-cache.ts';

/** Spec: read scope and an Agency owner, denied as Forbidden (not Plan Required). */
const EXPORT_AUTH: AuthRequirement = {
  audience: 'workspace',
  plan: 'agency',
  scope: 'read',
  planDenial: 'forbidden',
};

const SCORE_NOTE = 'null when the client has no completed Brand Audit yet';

const Scope = Type.Object(
  { workspaceId: Type.String(), workspaceName: Type.String() },
  { $id: 'ExportScope' },
);

const ScoreFields = {
  coreScore: Type.Union([Type.Number(), Type.Null()], {
    description: `latest stored Brand Credit Score; ${SCORE_NOTE}`,
  }),
  imprsScore: Type.Union([Type.Number(), Type.Null()], { description: `equal to coreScore; ${SCORE_NOTE}` }),
  grade: Type.Union([Grade, Type.Null()], {
    description: `composite grade of coreScore; ${SCORE_NOTE}`,
  }),
  scoredAt: Type.Union([Timestamp, Type.Null()], { description: `when that audit completed; ${SCORE_NOTE}` }),
};

const ClientRow = Type.Object(
  {
    workspaceId: Type.String(),
    name: Type.String(),
    type: Type.Enum(ACCOUNT_TYPES, { description: 'account type: brand, creator or agency' }),
    orgType: Type.Enum(ORG_TYPES, { description: 'organisation type of the workspace' }),
    isWhiteLabeled: Type.Boolean(),
    ...ScoreFields,
  },
  { $id: 'ExportClient' },
);

const CreatorRow = Type.Object(
  {
    workspaceId: Type.String(),
    name: Type.String(),
    accountType: Type.Literal('creator'),
    ...ScoreFields,
  },
  { $id: 'ExportCreator' },
);

const ScoreLogRow = Type.Object(
  {
    workspaceId: Type.String(),
    workspaceName: Type.String(),
    platform: PlatformName,
    tier: Type.Enum(ACCOUNT_TIERS, {
      description: 'account tier of the platform account by its followers (docs/scoring.md)',
    }),
    followerCount: Type.Integer(),
    overallScore: Type.Number(),
    grade: Grade,
    part1Score: Type.Number(),
    part2Score: Type.Number(),
    formulaVersion: Type.String(),
    recordedAt: Timestamp,
  },
  { $id: 'ExportScoreLog' },
);

// Accept: text/csv answers the rows of the JSON list, one per line (scope and count are left out).
const CLIENTS_CSV = csvTable(ClientRow);
const CREATORS_CSV = csvTable(CreatorRow);
const SCORES_CSV = csvTable(ScoreLogRow);
const CSV_AUTH = { auth: EXPORT_AUTH, csv: true } as const;

const ClientExport = Type.Object(
  { scope: Scope, count: Type.Integer(), clients: Type.Array(ClientRow) },
  { $id: 'ClientExport' },
);
const CreatorExport = Type.Object(
  { scope: Scope, count: Type.Integer(), creators: Type.Array(CreatorRow) },
  { $id: 'CreatorExport' },
);
const ScoreLogExport = Type.Object(
  {
    scope: Type.Object({
      workspaceId: Type.String(),
      workspaceName: Type.String(),
      clientCount: Type.Integer(),
    }),
    count: Type.Integer(),
    scores: Type.Array(ScoreLogRow),
  },
  { $id: 'ScoreLogExport' },
);

const NoParameters = Type.Object({}, { additionalProperties: false });

const SCORE_EXAMPLE = {
  coreScore: 68.2,
  imprsScore: 68.2,
  grade: 'strong' as const,
  scoredAt: '2026-11-20T09:13:02.000Z',
};
const AGENCY_SCOPE = { workspaceId: 'ws_01JD8Z4A1B2C3D4E5F6G7H8J9K', workspaceName: 'Northwind Agency' };

function scoreFields(row: ClientScoreRow) {
  const score = row.score === null ? null : round1(row.score);
  return {
    coreScore: score,
    imprsScore: score,
    grade: score === null ? null : (row.grade as CompositeGrade | null),
    scoredAt: row.completed_at ? row.completed_at.toISOString() : null,
  };
}

/**
 * JSON bytes are sent as they are: Fastify skips the response serializer for a Buffer, while the
 * route's response schema still documents the body in OpenAPI. Typed as a plain reply because the type
 * provider types send() as the schema's object, not its JSON text.
 */
function sendJsonBytes(reply: FastifyReply, json: Buffer): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(json);
}

export async function exportRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const cache = exportCache(app.ctx);
  app.addHook('onReady', () => cache.start(app.ctx));
  app.addHook('onClose', () => cache.stop());

  const scopeOf = async (ownerId: string) => {
    const scope = await exportScope(app.ctx.db, ownerId);
    // The key was valid a moment ago; its workspace vanishing in between is a plain 404.
    if (!scope) throw new DomainError('not_found', 'The workspace of this API key no longer exists.');
    return scope;
  };

  /**
   * The score-log page as JSON bytes, from the cache when this owner's page for (limit, since) was read
   * since its last change. The owner is the authenticated key's workspace: the cache is keyed by it,
   * so the tenant boundary is the query's, as uncached.
   */
  const scoreExportPage = async (ownerId: string, limit: number, since: Date | null): Promise<Buffer> => {
    const variant = `${limit} ${since?.getTime() ?? '-'}`;
    const hit = cache.enabled ? cache.get(ownerId, variant) : undefined;
    if (hit !== undefined) return hit;
    const read = cache.enabled ? cache.begin(ownerId) : null;
    let json: string | null;
    try {
      json = await scoreExportJson(app.ctx.db, ownerId, { limit, since });
    } catch (error) {
      if (read) cache.abandon(read);
      throw error;
    }
    if (json === null) {
      if (read) cache.abandon(read);
      // The key was valid a moment ago; its workspace vanishing in between is a plain 404.
      throw new DomainError('not_found', 'The workspace of this API key no longer exists.');
    }
    const body = Buffer.from(json, 'utf8');
    if (read) cache.set(read, variant, body);
    return body;
  };

  app.get(
    '/v1/export/clients',
    {
      config: CSV_AUTH,
      schema: {
        operationId: 'exportClients',
        tags: ['exports'],
        summary: "The agency's client workspaces with their latest stored score",
        description:
          'Clients are the workspaces whose parent is the key owner; ordered by name, then id. ' +
          'With Accept: text/csv, the clients as CSV rows.',
        querystring: NoParameters,
        response: {
          200: jsonOrCsv(
            ClientExport,
            'Every client of the agency',
            {
              scope: AGENCY_SCOPE,
              count: 1,
              clients: [
                {
                  workspaceId: 'ws_01JD8Z6Q9W4T3B2N1M0K5R7H8C',
                  name: 'Bluebird Coffee',
                  type: 'brand',
                  orgType: 'company',
                  isWhiteLabeled: false,
                  ...SCORE_EXAMPLE,
                },
              ],
            },
            { table: CLIENTS_CSV, rows: (body) => body.clients, description: 'one client per row' },
          ),
          ...errorResponses(403, 404),
        },
      },
    },
    async (request, reply) => {
      const csv = negotiateCsv(request, reply);
      const ownerId = workspacePrincipal(request).workspaceId;
      const [scope, rows] = await Promise.all([
        scopeOf(ownerId),
        clientsWithLatestScore(app.ctx.db, ownerId),
      ]);
      const body: Static<typeof ClientExport> = {
        scope,
        count: rows.length,
        clients: rows.map((r) => ({
          workspaceId: r.id,
          name: r.name,
          type: r.account_type,
          orgType: r.org_type,
          isWhiteLabeled: r.is_white_labeled,
          ...scoreFields(r),
        })),
      };
      return csv ? sendCsv(reply, CLIENTS_CSV, body.clients) : body;
    },
  );

  app.get(
    '/v1/export/creators',
    {
      config: CSV_AUTH,
      schema: {
        operationId: 'exportCreators',
        tags: ['exports'],
        summary: "The agency's client workspaces whose account type is creator",
        description:
          'Creators are the clients whose account type is creator; ordered by name, then id. ' +
          'With Accept: text/csv, the creators as CSV rows.',
        querystring: NoParameters,
        response: {
          200: jsonOrCsv(
            CreatorExport,
            'Every creator client of the agency',
            {
              scope: AGENCY_SCOPE,
              count: 1,
              creators: [
                {
                  workspaceId: 'ws_01JD8Z7R2S3T4V5W6X7Y8Z9A0B',
                  name: 'Mara Lopes',
                  accountType: 'creator',
                  ...SCORE_EXAMPLE,
                },
              ],
            },
            { table: CREATORS_CSV, rows: (body) => body.creators, description: 'one creator per row' },
          ),
          ...errorResponses(403, 404),
        },
      },
    },
    async (request, reply) => {
      const csv = negotiateCsv(request, reply);
      const ownerId = workspacePrincipal(request).workspaceId;
      const [scope, rows] = await Promise.all([
        scopeOf(ownerId),
        clientsWithLatestScore(app.ctx.db, ownerId, { accountType: 'creator' }),
      ]);
      const body: Static<typeof CreatorExport> = {
        scope,
        count: rows.length,
        creators: rows.map((r) => ({
          workspaceId: r.id,
          name: r.name,
          accountType: 'creator' as const,
          ...scoreFields(r),
        })),
      };
      return csv ? sendCsv(reply, CREATORS_CSV, body.creators) : body;
    },
  );

  app.get(
    '/v1/export/scores',
    {
      config: CSV_AUTH,
      schema: {
        operationId: 'exportScores',
        tags: ['exports'],
        summary: 'Raw score-log rows of the agency and its clients, newest first',
        description:
          'Per-platform score-log rows of the agency and its clients, newest first, at most limit rows; fetch older ones by lowering the range, newer ones with since. With Accept: text/csv, the same rows as CSV (same limit and since).',
        querystring: Type.Object(
          {
            limit: withDefault(Type.Integer({ minimum: 1, maximum: 1000, default: 500, format: 'int32' })),
            since: Type.Optional(
              Type.String({
                maxLength: 64,
                examples: ['2026-11-01'],
                description: 'ISO 8601 date or date-time (no offset: UTC); only rows recorded at or after it',
              }),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          200: jsonOrCsv(
            ScoreLogExport,
            'Score-log rows, newest first',
            {
              scope: { ...AGENCY_SCOPE, clientCount: 12 },
              count: 1,
              scores: [
                {
                  workspaceId: 'ws_01JD8Z6Q9W4T3B2N1M0K5R7H8C',
                  workspaceName: 'Bluebird Coffee',
                  platform: 'instagram',
                  tier: 'micro',
                  followerCount: 48210,
                  overallScore: 70.4,
                  grade: 'strong',
                  part1Score: 72.1,
                  part2Score: 68.7,
                  formulaVersion: 'v1',
                  recordedAt: '2026-11-20T09:13:02.000Z',
                },
              ],
            },
            { table: SCORES_CSV, rows: (body) => body.scores, description: 'one score-log row per row' },
          ),
          ...errorResponses(403, 404),
        },
      },
    },
    async (request, reply) => {
      const csv = negotiateCsv(request, reply);
      const ownerId = workspacePrincipal(request).workspaceId;
      const { limit, since } = request.query;
      let sinceInstant: Date | null = null;
      if (since !== undefined) {
        const parsed = parseIsoInstant(since);
        if (!parsed) throw invalidParameter('since', 'must be an ISO 8601 date (YYYY-MM-DD) or date-time');
        sinceInstant = parsed.instant;
      }
      const body = await scoreExportPage(ownerId, limit, sinceInstant);
      // The CSV rows are the JSON's: one query, one tenant boundary, one number format for both.
      if (csv)
        return sendCsv(
          reply,
          SCORES_CSV,
          (JSON.parse(body.toString('utf8')) as Static<typeof ScoreLogExport>).scores,
        );
      return sendJsonBytes(reply, body);
    },
  );
}
