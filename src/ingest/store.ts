import { sql, type Insertable, type Kysely, type QueryCreator } from 'kysely';
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

/**
 * One multi-row upsert (at most SNAPSHOT_BATCH rows), replacing the stored row of the same workspace,
 * platform and day. A row equal to the stored one is left alone, so RETURNING names only the rows that
 * were inserted or changed. A query builder, so a caller can run it inside a larger statement (a CTE).
 */
export function upsertSnapshotsQuery(
  db: QueryCreator<DB>,
  rows: readonly SnapshotRow[],
  options: { keepFollowersThrough?: string | null } = {},
) {
  if (rows.length > SNAPSHOT_BATCH) throw new Error(`at most ${SNAPSHOT_BATCH} snapshots per statement`);
  // An audience the connector only estimated (carried from a later day) does not replace the one stored
  // for that day: what a sync saw on the day stays.
  const keep = options.keepFollowersThrough ?? null;
  const value = (c: (typeof METRICS)[number]) =>
    c === 'followers' && keep !== null
      ? sql`CASE WHEN excluded.day <= ${keep}::date THEN metric_snapshots.followers ELSE excluded.followers END`
      : sql.ref(`excluded.${c}`);
  const stored = sql.join(METRICS.map((c) => sql.ref(`metric_snapshots.${c}`)));
  const incoming = sql.join(METRICS.map(value));
  return db
    .insertInto('metric_snapshots')
    .values([...rows])
    .onConflict((oc) =>
      oc
        .columns(['workspace_id', 'platform', 'day'])
        .doUpdateSet(Object.fromEntries(METRICS.map((c) => [c, value(c)])))
        .where(sql<boolean>`(${stored}) IS DISTINCT FROM (${incoming})`),
    )
    .returning(['workspace_id', 'day']);
}

/**
 * Inserts snapshots (upsertSnapshotsQuery, in batches). The answer names only what changed: per
 * workspace, the first day whose snapshot was inserted or changed (the first daily score that can
 * have moved).
 */
export async function upsertSnapshots(
  db: Kysely<DB>,
  rows: readonly SnapshotRow[],
): Promise<Map<string, string>> {
  const firstChanged = new Map<string, string>();
  for (let i = 0; i < rows.length; i += SNAPSHOT_BATCH) {
    const changed = await upsertSnapshotsQuery(db, rows.slice(i, i + SNAPSHOT_BATCH)).execute();
    for (const { workspace_id, day } of changed) {
      const d = String(day);
      const first = firstChanged.get(workspace_id);
      if (first === undefined || d < first) firstChanged.set(workspace_id, d);
    }
  }
  return firstChanged;
}
