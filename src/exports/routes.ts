import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Static } from 'typebox';
import { workspacePrincipal, type AuthRequirement } from '../infra/auth/auth-plugin.ts';
import { DomainError, invalidParameter } from '../core/errors.ts';
import { csvTable, jsonOrCsv, negotiateCsv, sendCsv } from '../infra/http/csv.ts';
import { errorResponses } from '../infra/http/schemas.ts';
import { round1, type CompositeGrade } from '../scoring/engine/index.ts';
import { clientsWithLatestScore, exportScope, scoreExportJson, type ClientScoreRow } from './queries.ts';
import { parseIsoInstant } from '../core/days.ts';
import { exportCache } from './export-cache.ts';
import { cachedJson } from '../infra/notified-cache.ts';
import { sendJsonBytes } from '../infra/http/json-bytes.ts';
import {
  CLIENT_EXPORT_EXAMPLE,
  ClientExport,
  ClientRow,
  CREATOR_EXPORT_EXAMPLE,
  CreatorExport,
  CreatorRow,
  NoParameters,
  SCORE_LOG_EXPORT_EXAMPLE,
  ScoreExportQuery,
  ScoreLogExport,
  ScoreLogRow,
} from './schemas.ts';

/** Spec: the export.read action and an Agency owner, denied as Forbidden (not Plan Required). */
const EXPORT_AUTH: AuthRequirement = {
  audience: 'workspace',
  plan: 'agency',
  action: 'export.read',
  planDenial: 'forbidden',
};

// Accept: text/csv answers the rows of the JSON list, one per line (scope and count are left out).
const CLIENTS_CSV = csvTable(ClientRow);
const CREATORS_CSV = csvTable(CreatorRow);
const SCORES_CSV = csvTable(ScoreLogRow);
const CSV_AUTH = { auth: EXPORT_AUTH, csv: true } as const;

function scoreFields(row: ClientScoreRow) {
  const score = row.score === null ? null : round1(row.score);
  return {
    coreScore: score,
    imprsScore: score,
    grade: score === null ? null : (row.grade as CompositeGrade | null),
    scoredAt: row.completed_at ? row.completed_at.toISOString() : null,
  };
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
  const scoreExportPage = (ownerId: string, limit: number, since: Date | null): Promise<Buffer> =>
    cachedJson(cache, ownerId, `${limit} ${since?.getTime() ?? '-'}`, async () => {
      const json = await scoreExportJson(app.ctx.db, ownerId, { limit, since });
      // The key was valid a moment ago; its workspace vanishing in between is a plain 404.
      if (json === null)
        throw new DomainError('not_found', 'The workspace of this API key no longer exists.');
      return Buffer.from(json, 'utf8');
    });

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
          200: jsonOrCsv(ClientExport, 'Every client of the agency', CLIENT_EXPORT_EXAMPLE, {
            table: CLIENTS_CSV,
            rows: (body) => body.clients,
            description: 'one client per row',
          }),
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
          200: jsonOrCsv(CreatorExport, 'Every creator client of the agency', CREATOR_EXPORT_EXAMPLE, {
            table: CREATORS_CSV,
            rows: (body) => body.creators,
            description: 'one creator per row',
          }),
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
        querystring: ScoreExportQuery,
        response: {
          200: jsonOrCsv(ScoreLogExport, 'Score-log rows, newest first', SCORE_LOG_EXPORT_EXAMPLE, {
            table: SCORES_CSV,
            rows: (body) => body.scores,
            description: 'one score-log row per row',
          }),
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
