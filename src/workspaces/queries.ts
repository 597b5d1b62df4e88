import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../infra/db/types.ts';
import { currentAuditPeriod } from './billing.ts';
import type { BenchmarkIndustry } from '../core/catalog.ts';

/** Audits that count against the quota: every audit started this period except failed ones. */
export async function auditsUsed(db: Kysely<DB>, workspaceId: string, now: Date): Promise<number> {
  const { start, end } = currentAuditPeriod(now);
  const row = await db
    .selectFrom('audits')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('workspace_id', '=', workspaceId)
    .where('status', '<>', 'failed')
    .where('created_at', '>=', start)
    .where('created_at', '<', end)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Locks the workspace's row until the transaction ends: the one way work is serialised per
 * workspace, so a count checked against a plan limit (audits, platforms, webhooks) cannot be raced.
 * Undefined when the workspace does not exist.
 */
export async function lockWorkspace(trx: Transaction<DB>, workspaceId: string) {
  return trx
    .selectFrom('workspaces')
    .select(['id', 'plan'])
    .where('id', '=', workspaceId)
    .forUpdate()
    .executeTakeFirst();
}

/** The workspace's display name; undefined when it does not exist. */
export async function workspaceName(
  db: Kysely<DB> | Transaction<DB>,
  workspaceId: string,
): Promise<string | undefined> {
  const row = await db
    .selectFrom('workspaces')
    .select('name')
    .where('id', '=', workspaceId)
    .executeTakeFirst();
  return row?.name;
}

/** A workspace by id, or an agency's clients (by name, then id), with their names. */
export async function namedWorkspaces(
  db: Kysely<DB>,
  which: { id: string } | { clientsOf: string },
): Promise<{ id: string; name: string }[]> {
  if ('id' in which) {
    return db.selectFrom('workspaces').select(['id', 'name']).where('id', '=', which.id).execute();
  }
  return db
    .selectFrom('workspaces')
    .select(['id', 'name'])
    .where('parent_id', '=', which.clientsOf)
    .orderBy('name')
    .orderBy('id')
    .execute();
}

/** The workspace's agency (parent) id: null for a workspace without one, undefined when it does not exist. */
export async function parentOf(
  db: Kysely<DB> | Transaction<DB>,
  workspaceId: string,
): Promise<string | null | undefined> {
  const row = await db
    .selectFrom('workspaces')
    .select('parent_id')
    .where('id', '=', workspaceId)
    .executeTakeFirst();
  return row ? row.parent_id : undefined;
}

/**
 * The benchmark industry a workspace's scores are judged against: its sector's (docs/scoring.md,
 * "Formula v3: the scale"); null without a sector or when the sector has none (all industries).
 */
export async function benchmarkIndustryOf(
  db: Kysely<DB>,
  workspaceId: string,
): Promise<BenchmarkIndustry | null> {
  const row = await db
    .selectFrom('workspaces as w')
    .innerJoin('sectors as s', 's.slug', 'w.sector_slug')
    .select('s.benchmark_industry')
    .where('w.id', '=', workspaceId)
    .executeTakeFirst();
  return row?.benchmark_industry ?? null;
}
