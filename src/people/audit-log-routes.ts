import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Static } from 'typebox';
import { parseIsoInstant, DAY_MS } from '../core/days.ts';
import { invalidParameter } from '../core/errors.ts';
import { workspacePrincipal } from '../infra/auth/auth-plugin.ts';
import { csvTable, jsonOrCsv, negotiateCsv, sendCsv } from '../infra/http/csv.ts';
import { errorResponses } from '../infra/http/schemas.ts';
import { resolveWorkspace } from '../workspaces/tenancy.ts';
import {
  auditPage,
  decodeCursor,
  encodeCursor,
  type AuditFilter,
  type AuditRow,
} from '../audit-log/queries.ts';
import {
  AUDIT_CSV_MAX,
  AUDIT_LOG_PAGE_EXAMPLE,
  AuditEntry,
  AuditLogPage,
  AuditLogQuery,
} from './audit-log-schemas.ts';

const AUDIT_CSV = csvTable(AuditEntry);

function present(r: AuditRow): Static<typeof AuditEntry> {
  const actor: Static<typeof AuditEntry>['actor'] =
    r.actor_person_id !== null
      ? { kind: 'person', id: r.actor_person_id, label: r.actor_email }
      : r.actor_key_id !== null
        ? {
            kind: 'key',
            id: r.actor_key_id,
            label: r.actor_key_prefix ? `${r.actor_key_name ?? ''} (${r.actor_key_prefix}…)`.trim() : null,
          }
        : { kind: 'none', id: null, label: null };
  return {
    id: r.id,
    at: r.at.toISOString(),
    action: r.action,
    actor,
    target: r.target,
    detail: r.detail,
    address: r.address,
  };
}

/** A caller's `since` or `until`: a date (00:00 UTC; `until` a date means its whole day) or an instant. */
function instant(name: 'since' | 'until', value: string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const parsed = parseIsoInstant(value);
  if (!parsed) {
    throw invalidParameter(name, 'must be an ISO 8601 date or date-time (years 0001-9999)');
  }
  return name === 'until' && parsed.dateOnly ? new Date(parsed.instant.getTime() + DAY_MS) : parsed.instant;
}

/** The audit log (docs/security.md "Audit log"): read-only, for owners and admins. */
export async function auditLogRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/v1/audit-log',
    {
      config: { auth: { audience: 'workspace', action: 'audit_log.read' }, csv: 'link' },
      schema: {
        operationId: 'listAuditLog',
        tags: ['teams'],
        summary: "The workspace's audit log, newest first",
        description:
          'Security-relevant actions (sign-ins and failures, sign-outs, members, roles, invitations, keys, webhooks, ' +
          'platform connections) with who did them (a person or an API key), from which address, when and to what. ' +
          'Owners and admins signed in; no API key scope grants it. Filter by action (one or several), actor, target ' +
          'and time; pages follow next_cursor. With Accept: text/csv, the whole filtered range as CSV (at most ' +
          `${AUDIT_CSV_MAX.toLocaleString('en')} entries; a Link header, rel="next", continues it). The log cannot be ` +
          'changed through the API; entries older than AUDIT_LOG_RETENTION_DAYS are deleted.',
        querystring: AuditLogQuery,
        response: {
          200: jsonOrCsv(AuditLogPage, 'One page of the audit log', AUDIT_LOG_PAGE_EXAMPLE, {
            table: AUDIT_CSV,
            rows: (body) => body.entries,
            description: 'one entry per row, the actor as actor.kind, actor.id and actor.label',
          }),
          ...errorResponses(400, 403, 404),
        },
      },
    },
    async (request, reply) => {
      const csv = negotiateCsv(request, reply);
      const query = request.query;
      const principal = workspacePrincipal(request);
      const since = instant('since', query.since);
      const before = instant('until', query.until);
      if (since && before && since >= before) throw invalidParameter('until', 'must be after since');
      const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
      if (after === null) throw invalidParameter('cursor', 'must be the next_cursor of a previous page');
      const ws = await resolveWorkspace(app.ctx.db, principal, query.workspace_id);
      const filter: AuditFilter = {
        workspaceId: ws.id,
        actions: query.action?.split(','),
        actor: query.actor,
        target: query.target,
        since,
        before,
      };
      const limit = csv ? AUDIT_CSV_MAX : query.limit;
      const { rows, hasMore } = await auditPage(app.ctx.db, filter, { limit, after });
      const last = rows.at(-1);
      const next = hasMore && last ? encodeCursor({ at: last.at, id: last.id }) : null;
      const entries = rows.map(present);
      if (csv) {
        if (next !== null) {
          const params = new URLSearchParams();
          for (const [k, v] of Object.entries(query)) {
            if (v !== undefined && k !== 'cursor' && k !== 'limit') params.set(k, String(v));
          }
          params.set('cursor', next);
          reply.header('Link', `</v1/audit-log?${params.toString()}>; rel="next"`);
        }
        return sendCsv(reply, AUDIT_CSV, entries);
      }
      return { workspace_id: ws.id, entries, next_cursor: next };
    },
  );
}
