import type { Kysely } from 'kysely';
import type { Platform } from '../../src/core/catalog.ts';
import type { DB } from '../../src/infra/db/types.ts';

/** One score_log row as an audit would write it (a micro-tier instagram account by default). */
export async function insertScoreLog(
  db: Kysely<DB>,
  workspaceId: string,
  recordedAt: string,
  platform: Platform = 'instagram',
  overall = 70,
): Promise<void> {
  await db
    .insertInto('score_log')
    .values({
      workspace_id: workspaceId,
      platform,
      tier: 'micro',
      follower_count: 12_000,
      overall_score: overall,
      grade: 'strong',
      part1_score: 68,
      part2_score: 72.5,
      formula_version: 'v1',
      recorded_at: new Date(recordedAt),
    })
    .execute();
}
