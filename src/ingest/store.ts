import { sql, type Insertable, type Kysely } from 'kysely';
import type { DB, MetricSnapshotsTable } from '../infra/db/types.ts';
import type { DailySnapshot } from '../scoring/engine/index.ts';
import { SNAPSHOT_METRIC_COLUMNS } from '../scoring/snapshots.ts';

export type SnapshotRow = Insertable<MetricSnapshotsTable>;
export type SnapshotSource = 'connector' | 'import' | 'sandbox';

/** 16 columns x 1000 rows: one multi-row INSERT stays well below PostgreSQL's 65535 parameters. */
export const SNAPSHOT_BATCH = 1000;

export function snapshotRow(workspaceId: string, s: DailySnapshot, source: SnapshotSource): SnapshotRow {
  return {
    workspace_id: workspaceId,
    platform: s.platform,
    day: s.day,
    followers: s.followers,
    posts: s.posts,
    impressions: s.impressions,
    likes: s.likes,
    comments: s.comments,
    shares: s.shares,
    saves: s.saves,
    mentions: s.mentions,
    sentiment_positive: s.sentimentPositive,
    sentiment_neutral: s.sentimentNeutral,
    sentiment_negative: s.sentimentNegative,
    profile_completeness: s.profileCompleteness,
    source,
  };
}

const METRICS = [...SNAPSHOT_METRIC_COLUMNS, 'source'] as const;

/** Inserts snapshots, replacing the stored row of the same workspace, platform and day. */
export async function upsertSnapshots(db: Kysely<DB>, rows: readonly SnapshotRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += SNAPSHOT_BATCH) {
    await db
      .insertInto('metric_snapshots')
      .values(rows.slice(i, i + SNAPSHOT_BATCH))
      .onConflict((oc) =>
        oc
          .columns(['workspace_id', 'platform', 'day'])
          .doUpdateSet(Object.fromEntries(METRICS.map((c) => [c, sql.ref(`excluded.${c}`)]))),
      )
      .execute();
  }
}
