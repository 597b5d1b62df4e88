import type { ExpressionBuilder } from 'kysely';
import type { DB } from '../infra/db/types.ts';
import { currentlyManaged } from '../workspaces/tenancy.ts';

/**
 * The latest completed audit of the workspace in the enclosing query (a query over `workspaces`):
 * the newest by completion (then id), with `at` among those completed by then, and only one its creator still
 * manages (currentlyManaged), so a moved client never shows the audit its old agency ran. Callers
 * select the columns they need and join it laterally, e.g.
 * `.leftJoinLateral((eb) => latestCompletedAudit(eb, at).select('audits.score').as('a'), (j) => j.onTrue())`.
 */
export function latestCompletedAudit(eb: ExpressionBuilder<DB, 'workspaces'>, at?: Date) {
  let q = eb
    .selectFrom('audits')
    .whereRef('audits.workspace_id', '=', 'workspaces.id')
    .where('audits.status', '=', 'completed')
    .where(currentlyManaged('audits.created_by'));
  if (at) q = q.where('audits.completed_at', '<=', at);
  return q.orderBy('audits.completed_at', 'desc').orderBy('audits.id', 'desc').limit(1);
}
