/**
 * Agency export queries. The tenant boundary is part of every query (parent_id = the key owner,
 * or the owner itself for score logs): nothing is fetched that the caller may not see.
 */
import type { Kysely } from 'kysely';
import { visibleTo } from '../infra/auth/tenancy.ts';
import type { DB } from '../infra/db/types.ts';

export interface ExportScope {
  workspaceId: string;
  workspaceName: string;
}

export async function exportScope(db: Kysely<DB>, ownerId: string): Promise<ExportScope | null> {
  const row = await db
    .selectFrom('workspaces')
    .select(['id', 'name'])
    .where('id', '=', ownerId)
    .executeTakeFirst();
  return row ? { workspaceId: row.id, workspaceName: row.name } : null;
}

export interface ClientScoreRow {
  id: string;
  name: string;
  account_type: string;
  org_type: string;
  is_white_labeled: boolean;
  score: number | null;
  completed_at: Date | null;
}

/**
 * The owner's client workspaces (parent_id = owner), each with its latest completed audit.
 * Ordered by name then id so repeated exports diff cleanly.
 */
export async function clientsWithLatestScore(
  db: Kysely<DB>,
  ownerId: string,
  filter: { accountType?: 'creator' } = {},
): Promise<ClientScoreRow[]> {
  let q = db
    .selectFrom('workspaces as w')
    .leftJoinLateral(
      (eb) =>
        eb
          .selectFrom('audits as a')
          .select(['a.score', 'a.completed_at'])
          .whereRef('a.workspace_id', '=', 'w.id')
          .where('a.status', '=', 'completed')
          .orderBy('a.completed_at', 'desc')
          .orderBy('a.id', 'desc')
          .limit(1)
          .as('latest'),
      (join) => join.onTrue(),
    )
    .select([
      'w.id',
      'w.name',
      'w.account_type',
      'w.org_type',
      'w.is_white_labeled',
      'latest.score',
      'latest.completed_at',
    ])
    .where('w.parent_id', '=', ownerId);
  if (filter.accountType) q = q.where('w.account_type', '=', filter.accountType);
  return q.orderBy('w.name').orderBy('w.id').execute();
}

export async function clientCount(db: Kysely<DB>, ownerId: string): Promise<number> {
  const row = await db
    .selectFrom('workspaces')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('parent_id', '=', ownerId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Score-log rows of the owner and its clients, newest first (recorded_at, then id). */
export async function scoreLogRows(
  db: Kysely<DB>,
  ownerId: string,
  options: { limit: number; since: Date | null },
) {
  let q = db
    .selectFrom('score_log as s')
    .innerJoin('workspaces', 'workspaces.id', 's.workspace_id')
    .where(visibleTo(ownerId))
    .select([
      's.id',
      's.workspace_id',
      'workspaces.name as workspace_name',
      's.platform',
      's.tier',
      's.follower_count',
      's.overall_score',
      's.grade',
      's.part1_score',
      's.part2_score',
      's.formula_version',
      's.recorded_at',
    ]);
  if (options.since) q = q.where('s.recorded_at', '>=', options.since);
  return q.orderBy('s.recorded_at', 'desc').orderBy('s.id', 'desc').limit(options.limit).execute();
}
