import type { Insertable, Kysely } from 'kysely';
import { sql } from 'kysely';
import type { DailyScoresTable, DB } from '../infra/db/types.ts';
import { dailyScoreSeries, DEFAULT_LOOKBACK_DAYS, FORMULA_VERSION } from './engine/index.ts';
import { loadSnapshots } from './snapshots.ts';
import { addDays } from '../core/days.ts';
import type { DailySnapshot } from '../core/metric-snapshot.ts';

/**
 * A stored daily score is the workspace's score as of that day over the same 90-day window an
 * audit uses by default, across every platform with metric data. So an audit with default
 * options scores exactly what the history shows for its day, and history never depends on
 * which options somebody's audit happened to use.
 */
export const DAILY_WINDOW_DAYS = DEFAULT_LOOKBACK_DAYS;

/** Rows per multi-row INSERT: 9 columns x 1000 rows stays far below PostgreSQL's 65535 parameters. */
export const DAILY_SCORE_BATCH = 1000;

export type DailyScoreRow = Insertable<DailyScoresTable>;

/** Daily score rows for [from, to] from a workspace's snapshots; days with no data in their window are left out. */
export function computeDailyScores(
  workspaceId: string,
  snapshots: readonly DailySnapshot[],
  from: string,
  to: string,
): DailyScoreRow[] {
  const points = dailyScoreSeries({ snapshots, platforms: [], from, to, windowDays: DAILY_WINDOW_DAYS });
  const rows: DailyScoreRow[] = [];
  for (const p of points) {
    if (!(p.coverage > 0)) continue;
    rows.push({
      workspace_id: workspaceId,
      day: p.day,
      score: p.score,
      ...p.pillars,
      formula_version: FORMULA_VERSION,
    });
  }
  return rows;
}

/** Inserts or replaces daily scores in multi-row batches. */
export async function writeDailyScores(db: Kysely<DB>, rows: readonly DailyScoreRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += DAILY_SCORE_BATCH) {
    await db
      .insertInto('daily_scores')
      .values(rows.slice(i, i + DAILY_SCORE_BATCH))
      .onConflict((oc) =>
        oc.columns(['workspace_id', 'day']).doUpdateSet({
          score: sql`excluded.score`,
          presence: sql`excluded.presence`,
          reach: sql`excluded.reach`,
          impact: sql`excluded.impact`,
          sentiment: sql`excluded.sentiment`,
          momentum: sql`excluded.momentum`,
          formula_version: sql`excluded.formula_version`,
        }),
      )
      .execute();
  }
}

export interface RecomputeOptions {
  /**
   * The first day whose score can have moved (e.g. the first day whose snapshot changed, as
   * upsertSnapshots reports it): the days of [from, to] before it are left as stored, and null
   * means nothing moved (nothing is read or written). Default: all of [from, to].
   */
  fromDay?: string | null;
}

/**
 * Recomputes and stores a workspace's daily scores for [from, to], after its snapshots changed.
 * A snapshot on day d moves the scores of d .. d + window - 1, so callers pass that span.
 */
export async function recomputeDailyScores(
  db: Kysely<DB>,
  workspaceId: string,
  from: string,
  to: string,
  options: RecomputeOptions = {},
): Promise<number> {
  if (options.fromDay === null) return 0;
  if (options.fromDay !== undefined && options.fromDay > from) from = options.fromDay;
  if (from > to) return 0;
  const snapshots = await loadSnapshots(db, workspaceId, {
    from: addDays(from, -(DAILY_WINDOW_DAYS - 1)),
    to,
  });
  const rows = computeDailyScores(workspaceId, snapshots, from, to);
  await writeDailyScores(db, rows);
  return rows.length;
}

/** Rows per bulk INSERT ... SELECT unnest(...) (one array parameter per column, so no parameter limit). */
export const DAILY_SCORE_BULK = 5000;

/** Bulk insert of daily scores that are not stored yet (sandbox, backfills): existing days are kept. */
export async function insertDailyScoresBulk(db: Kysely<DB>, rows: readonly DailyScoreRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += DAILY_SCORE_BULK) {
    const chunk = rows.slice(i, i + DAILY_SCORE_BULK);
    const col = <K extends keyof DailyScoreRow>(k: K) => chunk.map((r) => r[k]);
    await sql`
      INSERT INTO daily_scores (workspace_id, day, score, presence, reach, impact, sentiment, momentum, formula_version)
      SELECT * FROM unnest(
        ${col('workspace_id')}::text[], ${col('day')}::date[], ${col('score')}::real[], ${col('presence')}::real[],
        ${col('reach')}::real[], ${col('impact')}::real[], ${col('sentiment')}::real[], ${col('momentum')}::real[],
        ${col('formula_version')}::text[])
      ON CONFLICT (workspace_id, day) DO NOTHING`.execute(db);
  }
}
