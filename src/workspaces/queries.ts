import type { Kysely } from 'kysely';
import type { DB } from '../infra/db/types.ts';
import { currentAuditPeriod } from './billing.ts';

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

/** The latest completed audit's composite: the workspace's current Brand Credit Score. */
export async function latestCompositeScore(db: Kysely<DB>, workspaceId: string): Promise<number | null> {
  const row = await db
    .selectFrom('audits')
    .select('score')
    .where('workspace_id', '=', workspaceId)
    .where('status', '=', 'completed')
    .orderBy('completed_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.score ?? null;
}
