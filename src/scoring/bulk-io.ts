import { sql } from 'kysely';
import type { AppContext } from '../context.ts';
import { INDEX_FORMULA, insertDailyScoresBulk, type DailyScoreRow } from './daily-scores.ts';
import { loadSnapshots } from './snapshots.ts';
import type { Platform } from '../core/catalog.ts';
import { METRIC_FIELDS, snapshotFromValues, type DailySnapshot } from '../core/metric-snapshot.ts';

/**
 * Bulk reads and writes for backfills (the sandbox, the benchmark). On PGlite, rows cross the
 * WASM boundary one by one at ~35k rows/s, while COPY moves a whole CSV blob at once (about 7x
 * faster for 600k snapshots), so PGlite uses COPY; PostgreSQL uses ordinary queries.
 * Never call these inside a transaction.
 */

/** Snapshots of each workspace in `ids`, oldest first, one workspace at a time. */
export async function* snapshotsByWorkspace(
  ctx: AppContext,
  ids: readonly string[],
): AsyncGenerator<[string, DailySnapshot[]]> {
  const pglite = ctx.database.pglite;
  if (!pglite) {
    for (const id of ids) yield [id, await loadSnapshots(ctx.db, id)];
    return;
  }
  if (ids.length === 0) return;
  // COPY takes no bind parameters: the ids go in as an escaped literal. They come back as their
  // index in `ids`, so the CSV holds nothing that needs quoting.
  const list = ids.map((id) => `'${id.replaceAll("'", "''")}'`).join(',');
  // CSV writes an empty text as "" but NULL as nothing, which splits and decodes as ''. Text
  // fields hold no comma, quote or line break (their pattern), so nothing else needs quoting.
  const metrics = METRIC_FIELDS.map((f) =>
    f.sqlType === 'text' ? `NULLIF(s.${f.column}, '')` : `s.${f.column}`,
  ).join(', ');
  const result = await pglite.query(
    `COPY (
       SELECT t.idx, s.platform, s.day, ${metrics}
       FROM metric_snapshots s
       JOIN unnest(ARRAY[${list}]::text[]) WITH ORDINALITY AS t(id, idx) ON t.id = s.workspace_id
       ORDER BY t.idx, s.day, s.platform
     ) TO '/dev/blob' WITH (FORMAT csv)`,
  );
  const text = result.blob ? await result.blob.text() : '';
  let current = -1;
  let batch: DailySnapshot[] = [];
  for (const line of text.split('\n')) {
    if (!line) continue;
    const f = line.split(',');
    const idx = Number(f[0]) - 1;
    if (idx !== current) {
      if (current >= 0) yield [ids[current]!, batch];
      current = idx;
      batch = [];
    }
    batch.push(snapshotFromValues(f[1] as Platform, f[2]!, f, 3));
  }
  if (current >= 0) yield [ids[current]!, batch];
}

const quote = (s: string) => `"${s.replaceAll('"', '""')}"`;

/**
 * Inserts daily scores for days not stored yet (COPY on PGlite, so only for workspaces that have none
 * of that formula). An unquoted empty CSV field is NULL.
 */
export async function writeNewDailyScores(ctx: AppContext, rows: readonly DailyScoreRow[]): Promise<void> {
  const pglite = ctx.database.pglite;
  if (!pglite) return insertDailyScoresBulk(ctx.db, rows);
  if (!rows.length) return;
  const csv = rows
    .map((r) =>
      [
        quote(r.workspace_id),
        r.day,
        r.score,
        r.presence,
        r.reach,
        r.impact,
        r.sentiment,
        r.momentum,
        quote(r.formula_version),
        r.score_low ?? '',
        r.score_high ?? '',
        r.grade ? quote(r.grade) : '',
        typeof r.crisis === 'string' ? quote(r.crisis) : '',
        r.baseline_version ? quote(r.baseline_version) : '',
        typeof r.drivers === 'string' ? quote(r.drivers) : '',
      ].join(','),
    )
    .join('\n');
  await pglite.query(
    `COPY daily_scores (workspace_id, day, score, presence, reach, impact, sentiment, momentum, formula_version,
                       score_low, score_high, grade, crisis, baseline_version, drivers)
     FROM '/dev/blob' WITH (FORMAT csv)`,
    [],
    { blob: new Blob([csv]) },
  );
}

/**
 * Workspaces with snapshots and no stored daily score yet (of the index formula, which every backfill
 * writes; the current formula's rows only where they are shown: the sandbox's backfillDailyScores).
 */
export async function workspacesWithoutDailyScores(ctx: AppContext): Promise<string[]> {
  const todo = await sql<{ id: string }>`
    SELECT w.id FROM workspaces w
    WHERE EXISTS (SELECT 1 FROM metric_snapshots s WHERE s.workspace_id = w.id)
      AND NOT EXISTS (SELECT 1 FROM daily_scores d
                      WHERE d.workspace_id = w.id AND d.formula_version = ${INDEX_FORMULA})
    ORDER BY w.id`.execute(ctx.db);
  return todo.rows.map((r) => r.id);
}
