import { sql, type Kysely, type QueryCreator } from 'kysely';
import type { DB } from '../infra/db/types.ts';
import type { Platform } from '../core/catalog.ts';
import {
  METRIC_COLUMNS,
  snapshotFromRow,
  snapshotFromValues,
  type DailySnapshot,
} from '../core/metric-snapshot.ts';

const COLUMNS = ['platform', 'day', ...METRIC_COLUMNS] as const;

type SnapshotFilter = { platforms?: readonly Platform[]; from?: string; to?: string };

/**
 * A workspace's snapshots, oldest first, optionally limited to some platforms and to days in
 * [from, to]. Served by the (workspace_id, platform, day) primary key.
 */
export async function loadSnapshots(
  db: Kysely<DB>,
  workspaceId: string,
  options: SnapshotFilter = {},
): Promise<DailySnapshot[]> {
  let q = db.selectFrom('metric_snapshots').select(COLUMNS).where('workspace_id', '=', workspaceId);
  if (options.platforms) {
    if (options.platforms.length === 0) return [];
    q = q.where('platform', 'in', [...options.platforms]);
  }
  if (options.from) q = q.where('day', '>=', options.from);
  if (options.to) q = q.where('day', '<=', options.to);
  const rows = await q.orderBy('day').orderBy('platform').execute();
  return rows.map(snapshotFromRow);
}

/** One snapshot as loadSnapshotsForScoring receives it: platform, day, then the metrics in METRIC_FIELDS order. */
export type PackedSnapshot = [Platform, string, ...number[]];

/**
 * The same rows for the scoring engine, in (platform, day) order, the primary key's own. They come
 * back as ONE json value that JSON.parse decodes natively: decoding 1,825 rows x 14 columns field
 * by field in the pg driver cost about 6 ms of CPU per audit. The engine indexes snapshots by
 * platform and day and lists platforms in canonical order, so its results do not depend on order.
 */
export async function loadSnapshotsForScoring(
  db: Kysely<DB>,
  workspaceId: string,
  options: SnapshotFilter = {},
): Promise<DailySnapshot[]> {
  if (options.platforms?.length === 0) return [];
  const { rows } = await packedSnapshotsQuery(db, workspaceId, options).executeTakeFirstOrThrow();
  return unpackSnapshots(rows);
}

/**
 * The query behind loadSnapshotsForScoring (one row, column `rows`), so a caller can read it as a
 * scalar subquery beside other values in one statement; decode with unpackSnapshots.
 */
export function packedSnapshotsQuery(
  db: QueryCreator<DB>,
  workspaceId: string,
  options: SnapshotFilter = {},
) {
  const packed = sql<PackedSnapshot[] | null>`json_agg(json_build_array(${sql.join(
    COLUMNS.map((c) => sql.ref(c)),
  )}) ORDER BY platform, day)`;
  let q = db.selectFrom('metric_snapshots').select(packed.as('rows')).where('workspace_id', '=', workspaceId);
  if (options.platforms) q = q.where('platform', 'in', [...options.platforms]);
  if (options.from) q = q.where('day', '>=', options.from);
  if (options.to) q = q.where('day', '<=', options.to);
  return q;
}

export function unpackSnapshots(rows: PackedSnapshot[] | null): DailySnapshot[] {
  if (!rows) return [];
  return rows.map((r) => snapshotFromValues(r[0], r[1], r, 2));
}
