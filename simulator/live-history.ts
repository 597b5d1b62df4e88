import type { Kysely } from 'kysely';
import type { DB } from '../src/infra/db/types.ts';
import { recomputeDailyScores } from '../src/scoring/daily-scores.ts';
import { addDays } from '../src/core/days.ts';
import { holdsPlace } from '../src/ingest/connection-state.ts';

/**
 * Hands a sandbox workspace's platforms over to the platform simulator before they are connected
 * through it (`npm run demo`): their seeded snapshots after the simulator's today are removed, and the
 * daily scores of those days recomputed, in one transaction. The simulator's account is another one
 * than the seed's, and its clock starts in the past: left in place, the seed's days would outlive the
 * simulator's (a sync re-reads only from the last day with activity, src/ingest/sync.ts) and the score
 * would blend the two accounts. The days come back as the simulator's clock reaches them; the seed's
 * days up to the simulator's today are overwritten by its first sync's backfill.
 */
export async function handOverToSimulator(
  db: Kysely<DB>,
  workspaceId: string,
  simulatorToday: string,
  today: string,
): Promise<{ removed: number }> {
  return db.transaction().execute(async (trx) => {
    const removed = await trx
      .deleteFrom('metric_snapshots')
      .where('workspace_id', '=', workspaceId)
      .where('day', '>', simulatorToday)
      .where('platform', 'in', (qb) =>
        qb
          .selectFrom('platform_connections')
          .select('platform')
          .where('workspace_id', '=', workspaceId)
          .where(holdsPlace),
      )
      .executeTakeFirst();
    if (simulatorToday < today)
      await recomputeDailyScores(trx, workspaceId, addDays(simulatorToday, 1), today);
    return { removed: Number(removed.numDeletedRows) };
  });
}

/**
 * The day the demo's simulator clock starts on. A first run starts `behind` days back, so the sandbox
 * catches up a day a minute. A restart resumes where the last run's simulator had got to: the workspace's
 * platforms then hold OAuth tokens that simulator issued, and their latest synced day is how far its clock
 * had run. Starting `behind` days back again would hand those days over (delete them) and replay them.
 */
export async function demoStartDay(
  db: Kysely<DB>,
  workspaceId: string,
  today: string,
  behind: number,
): Promise<{ day: string; resumed: boolean }> {
  const first = addDays(today, -behind);
  const row = await db
    .selectFrom('platform_connections')
    .innerJoin('metric_snapshots', (j) =>
      j
        .onRef('metric_snapshots.workspace_id', '=', 'platform_connections.workspace_id')
        .onRef('metric_snapshots.platform', '=', 'platform_connections.platform'),
    )
    .where('platform_connections.workspace_id', '=', workspaceId)
    .where(holdsPlace)
    .where('platform_connections.access_token', 'is not', null)
    .select((eb) => eb.fn.max('metric_snapshots.day').as('latest'))
    .executeTakeFirst();
  const latest = row?.latest ? String(row.latest).slice(0, 10) : null;
  if (!latest || latest <= first) return { day: first, resumed: false };
  return { day: latest < today ? latest : today, resumed: true };
}
