import type { Kysely } from 'kysely';
import type { DB } from '../../src/infra/db/types.ts';

/** Which audit-log rows a test reads: each filter narrows (an action ending in `%` matches a prefix). */
export interface AuditFilter {
  personId?: string;
  workspaceId?: string;
  action?: string;
  detailLike?: string;
}

/** The audit-log rows matching `filter`, oldest first (as recorded: `at`, then `id`). */
export function auditEntries(db: Kysely<DB>, filter: AuditFilter) {
  let query = db.selectFrom('audit_log').selectAll();
  if (filter.personId !== undefined) query = query.where('actor_person_id', '=', filter.personId);
  if (filter.workspaceId !== undefined) query = query.where('workspace_id', '=', filter.workspaceId);
  if (filter.action !== undefined)
    query = query.where('action', filter.action.endsWith('%') ? 'like' : '=', filter.action);
  if (filter.detailLike !== undefined) query = query.where('detail', 'like', filter.detailLike);
  return query.orderBy('at').orderBy('id').execute();
}
