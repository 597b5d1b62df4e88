import { sql, type Insertable, type Kysely } from 'kysely';
import {
  METRIC_COLUMNS,
  snapshotToRow,
  type DailySnapshot,
  type SnapshotSource,
} from '../core/metric-snapshot.ts';
import type { DB, MetricSnapshotsTable } from '../infra/db/types.ts';

export type SnapshotRow = Insertable<MetricSnapshotsTable>;

/** 16 columns x 1000 rows: one multi-row INSERT stays well below PostgreSQL's 65535 parameters. */
export const SNAPSHOT_BATCH = 1000;

export function snapshotRow(workspaceId: string, s: DailySnapshot, source: SnapshotSource): SnapshotRow {
  return { workspace_id: workspaceId, ...snapshotToRow(s), source };
}

const METRICS = [...METRIC_COLUMNS, 'source'] as const;

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
