import type { Insertable, Kysely, QueryCreator } from 'kysely';
import { sql } from 'kysely';
import type { DailyScoresTable, DB } from '../infra/db/types.ts';
import {
  baselineSetFor,
  storedBaseline,
  dailyScoreSeriesV2,
  dailyScoreSeriesV3,
  FORMULA_VERSION_V2,
  DEFAULT_LOOKBACK_DAYS,
  FORMULA_VERSION_V3,
  gradeWithHysteresis,
  scoreInputDays,
  scoreWorkspaceV3,
  type CompositeGrade,
  type CrisisSignal,
  type WorkspaceScoreV3,
} from './engine/index.ts';
import type { ComparableScore } from './score-change.ts';
import { loadSnapshots } from './snapshots.ts';
import { storedDrivers } from './explanations.ts';
import { addDays } from '../core/days.ts';
import type { DailySnapshot } from '../core/metric-snapshot.ts';
import { pillarScoresOf, type BenchmarkIndustry, type PillarScores } from '../core/catalog.ts';
import { benchmarkIndustryOf } from '../workspaces/queries.ts';

/**
 * A stored daily score is the workspace's score as of that day over the same 90-day window an
 * audit uses by default, across every platform with metric data. So an audit with default
 * options scores exactly what the history shows for its day, and history never depends on
 * which options somebody's audit happened to use.
 */
export const DAILY_WINDOW_DAYS = DEFAULT_LOOKBACK_DAYS;

/**
 * The formula new scores are computed with. Stored rows of other formulas stay as they are (a day
 * holds one row per formula); docs/scoring.md "Formula v3 in the API".
 */
export const CURRENT_FORMULA = FORMULA_VERSION_V3;
/** Every formula a stored score can carry (the daily_scores CHECK spells the same). */
export const FORMULA_VERSIONS = ['v1', 'v2', 'v3'] as const;
export type StoredFormula = (typeof FORMULA_VERSIONS)[number];

/**
 * The formula the sector index reads (TACSI's current methodology, tacsi-m2): its daily rows are
 * written beside the current formula's, so the index keeps one formula across the switch to v3
 * (docs/adr/0176-formula-v3-in-the-api.md). Only stored days carry it: audits and the live score do not.
 */
export const INDEX_FORMULA = FORMULA_VERSION_V2;

/** The current formula's engine: every new score (audits, the live score, stored days) comes from it. */
export const scoreCurrent = scoreWorkspaceV3;
export type CurrentScore = WorkspaceScoreV3;

/**
 * The first day of snapshots a current-formula score of `day` over `lookbackDays` reads: its window
 * and the manipulation screen's reference before it (scoreInputDays). Loading less would score
 * without the account's own history; loading more changes nothing.
 */
export function scoreInputFrom(day: string, lookbackDays: number = DAILY_WINDOW_DAYS): string {
  return addDays(day, -(scoreInputDays(lookbackDays) - 1));
}

/** The last day whose stored daily score a snapshot of `day` can move (the input span after it). */
export function lastDayMovedBy(day: string): string {
  return addDays(day, scoreInputDays(DAILY_WINDOW_DAYS) - 1);
}

/** A stored row's crisis column: the signal while active, null when calm. */
function crisisColumn(crisis: CrisisSignal): string | null {
  return crisis.active ? JSON.stringify(crisis) : null;
}

/** Rows per multi-row INSERT: 15 columns x 1000 rows stays far below PostgreSQL's 65535 parameters. */
export const DAILY_SCORE_BATCH = 1000;

export type DailyScoreRow = Insertable<DailyScoresTable>;

export interface ComputeDailyOptions {
  /** Stored grade of the day before `from`, so hysteresis carries across recomputes. */
  previousGrade?: CompositeGrade | null;
  /** The same for the index formula's rows (storedGradesBefore gives both). */
  previousIndexGrade?: CompositeGrade | null;
  /** Give the last row its 90% interval (default true; false for a batch that is not the last). */
  lastInterval?: boolean;
  /** The workspace's benchmark industry (benchmarkIndustryOf); null or absent: all industries. */
  industry?: BenchmarkIndustry | null;
}

/**
 * Daily score rows for [from, to] from a workspace's snapshots under the current formula, and the
 * index formula's rows for the same days (indexRows); days with no data in their window are left out.
 * The series runs without intervals (the jackknife costs ~9x); the last stored day gets its 90%
 * interval, which is what score.changed compares against next time.
 */
export function computeDailyScores(
  workspaceId: string,
  snapshots: readonly DailySnapshot[],
  from: string,
  to: string,
  options: ComputeDailyOptions = {},
): DailyScoreRow[] {
  const points = dailyScoreSeriesV3({
    snapshots,
    platforms: [],
    from,
    to,
    windowDays: DAILY_WINDOW_DAYS,
    previousGrade: options.previousGrade ?? null,
    intervals: false,
    industry: options.industry ?? null,
  });
  const baseline = storedBaseline(baselineSetFor(options.industry));
  const rows: DailyScoreRow[] = [];
  for (const p of points) {
    if (!(p.coverage > 0)) continue;
    rows.push({
      workspace_id: workspaceId,
      day: p.day,
      score: p.score,
      ...p.pillars,
      formula_version: CURRENT_FORMULA,
      score_low: null,
      score_high: null,
      grade: p.grade,
      crisis: crisisColumn(p.crisis),
      baseline_version: baseline,
      drivers: null,
    });
  }
  const last = rows.at(-1);
  if (last && options.lastInterval !== false) {
    const scored = scoreCurrent({
      snapshots,
      platforms: [],
      asOf: last.day,
      lookbackDays: DAILY_WINDOW_DAYS,
      industry: options.industry ?? null,
    });
    last.score_low = scored.scoreInterval.low;
    last.score_high = scored.scoreInterval.high;
    // Its drivers too: what the next score.changed explains its change from.
    last.drivers = JSON.stringify(scored.drivers);
  }
  return [...rows, ...indexRows(workspaceId, snapshots, from, to, options.previousIndexGrade ?? null)];
}

/** The index formula's daily rows for [from, to] (no intervals: nothing compares them). */
export function indexRows(
  workspaceId: string,
  snapshots: readonly DailySnapshot[],
  from: string,
  to: string,
  previousGrade: CompositeGrade | null,
): DailyScoreRow[] {
  const rows: DailyScoreRow[] = [];
  const points = dailyScoreSeriesV2({
    snapshots,
    platforms: [],
    from,
    to,
    windowDays: DAILY_WINDOW_DAYS,
    previousGrade,
    intervals: false,
  });
  for (const p of points) {
    if (!(p.coverage > 0)) continue;
    rows.push({
      workspace_id: workspaceId,
      day: p.day,
      score: p.score,
      ...p.pillars,
      formula_version: INDEX_FORMULA,
      score_low: null,
      score_high: null,
      grade: p.grade,
      crisis: null,
      baseline_version: null,
      drivers: null,
    });
  }
  return rows;
}

/**
 * The stored daily row of a score already computed with the daily definition (a 90-day window over every
 * platform with data, as of its day): the same row computeDailyScores gives for that day, without
 * scoring the day again (an audit with default options).
 */
export function dailyRowOf(
  workspaceId: string,
  scored: CurrentScore,
  previousGrade: CompositeGrade | null,
): DailyScoreRow {
  return {
    workspace_id: workspaceId,
    day: scored.asOf,
    score: scored.score,
    ...scored.pillars,
    formula_version: CURRENT_FORMULA,
    score_low: scored.scoreInterval.low,
    score_high: scored.scoreInterval.high,
    grade: gradeWithHysteresis(scored.score, previousGrade),
    crisis: crisisColumn(scored.crisis),
    baseline_version: scored.baselineVersion,
    drivers: JSON.stringify(scored.drivers),
  };
}

/** Inserts or replaces daily scores (of their own formula) in multi-row batches. */
export async function writeDailyScores(db: Kysely<DB>, rows: readonly DailyScoreRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += DAILY_SCORE_BATCH) {
    await upsertDailyScoresQuery(db, rows.slice(i, i + DAILY_SCORE_BATCH)).execute();
  }
}

/**
 * One multi-row upsert of daily scores (at most DAILY_SCORE_BATCH rows), as a query builder.
 */
export function upsertDailyScoresQuery(db: QueryCreator<DB>, rows: readonly DailyScoreRow[]) {
  if (rows.length > DAILY_SCORE_BATCH)
    throw new Error(`at most ${DAILY_SCORE_BATCH} daily scores per statement`);
  return db
    .insertInto('daily_scores')
    .values([...rows])
    .onConflict((oc) =>
      oc.columns(['workspace_id', 'formula_version', 'day']).doUpdateSet({
        score: sql`excluded.score`,
        presence: sql`excluded.presence`,
        reach: sql`excluded.reach`,
        impact: sql`excluded.impact`,
        sentiment: sql`excluded.sentiment`,
        momentum: sql`excluded.momentum`,
        score_low: sql`excluded.score_low`,
        score_high: sql`excluded.score_high`,
        grade: sql`excluded.grade`,
        crisis: sql`excluded.crisis`,
        baseline_version: sql`excluded.baseline_version`,
        drivers: sql`excluded.drivers`,
      }),
    );
}

export interface RecomputeOptions {
  /**
   * The first day whose score can have moved (e.g. the first day whose snapshot changed, as
   * upsertSnapshots reports it): the days of [from, to] before it are left as stored, and null
   * means nothing moved (nothing is read or written). Default: all of [from, to].
   */
  fromDay?: string | null;
}

/** The stored grade (of `formula`, default the current one) of the workspace's latest day before `day` (hysteresis carry-over). */
export async function storedGradeBefore(
  db: Kysely<DB>,
  workspaceId: string,
  day: string,
  formula: StoredFormula = CURRENT_FORMULA,
): Promise<CompositeGrade | null> {
  const row = await db
    .selectFrom('daily_scores')
    .select('grade')
    .where('workspace_id', '=', workspaceId)
    .where('formula_version', '=', formula)
    .where('day', '<', day)
    .orderBy('day', 'desc')
    .limit(1)
    .executeTakeFirst();
  return (row?.grade as CompositeGrade | null | undefined) ?? null;
}

/** Both stored formulas' grades before `day`, as computeDailyScores takes them. */
export async function storedGradesBefore(
  db: Kysely<DB>,
  workspaceId: string,
  day: string,
): Promise<Pick<ComputeDailyOptions, 'previousGrade' | 'previousIndexGrade'>> {
  const [previousGrade, previousIndexGrade] = await Promise.all([
    storedGradeBefore(db, workspaceId, day),
    storedGradeBefore(db, workspaceId, day, INDEX_FORMULA),
  ]);
  return { previousGrade, previousIndexGrade };
}

/** A stored daily score as score.changed compares it (its day beside it). */
export interface StoredDailyScore extends ComparableScore {
  day: string;
  grade: CompositeGrade | null;
}

/** The workspace's latest stored current-formula daily score on or before `day` (what /v1/score/history ends with). */
export async function latestDailyScore(
  db: Kysely<DB>,
  workspaceId: string,
  day: string,
): Promise<StoredDailyScore | null> {
  const row = await db
    .selectFrom('daily_scores')
    .select(['day', 'score', 'grade', 'score_low', 'score_high', 'crisis', 'drivers'])
    .where('workspace_id', '=', workspaceId)
    .where('formula_version', '=', CURRENT_FORMULA)
    .where('day', '<=', day)
    .orderBy('day', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (!row) return null;
  return {
    day: String(row.day),
    score: row.score,
    grade: row.grade as CompositeGrade | null,
    formulaVersion: CURRENT_FORMULA,
    interval:
      row.score_low != null && row.score_high != null ? { low: row.score_low, high: row.score_high } : null,
    crisis: (row.crisis as CrisisSignal | null) ?? null,
    drivers: storedDrivers(row.drivers),
  };
}

/**
 * Recomputes and stores a workspace's daily scores for [from, to], after its snapshots changed.
 * A snapshot on day d moves the scores of d .. lastDayMovedBy(d), so callers pass that span.
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
  const [snapshots, grades, industry] = await Promise.all([
    loadSnapshots(db, workspaceId, { from: scoreInputFrom(from), to }),
    storedGradesBefore(db, workspaceId, from),
    benchmarkIndustryOf(db, workspaceId),
  ]);
  const rows = computeDailyScores(workspaceId, snapshots, from, to, { ...grades, industry });
  await writeDailyScores(db, rows);
  return currentRows(rows);
}

/** How many of `rows` are days of the current formula (what a recompute reports as days scored). */
export function currentRows(rows: readonly DailyScoreRow[]): number {
  let n = 0;
  for (const r of rows) if (r.formula_version === CURRENT_FORMULA) n++;
  return n;
}

/** Rows per bulk INSERT ... SELECT unnest(...) (one array parameter per column, so no parameter limit). */
export const DAILY_SCORE_BULK = 5000;

/** Bulk insert of daily scores that are not stored yet (sandbox, backfills): existing days are kept. */
export async function insertDailyScoresBulk(db: Kysely<DB>, rows: readonly DailyScoreRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += DAILY_SCORE_BULK) {
    const chunk = rows.slice(i, i + DAILY_SCORE_BULK);
    const col = <K extends keyof DailyScoreRow>(k: K) => chunk.map((r) => r[k] ?? null);
    await sql`
      INSERT INTO daily_scores (workspace_id, day, score, presence, reach, impact, sentiment, momentum,
                                formula_version, score_low, score_high, grade, crisis, baseline_version,
                                drivers)
      SELECT * FROM unnest(
        ${col('workspace_id')}::text[], ${col('day')}::date[], ${col('score')}::real[], ${col('presence')}::real[],
        ${col('reach')}::real[], ${col('impact')}::real[], ${col('sentiment')}::real[], ${col('momentum')}::real[],
        ${col('formula_version')}::text[], ${col('score_low')}::real[], ${col('score_high')}::real[],
        ${col('grade')}::text[], ${col('crisis')}::jsonb[], ${col('baseline_version')}::text[],
        ${col('drivers')}::jsonb[])
      ON CONFLICT (workspace_id, formula_version, day) DO NOTHING`.execute(db);
  }
}

/** A stored daily score with its pillars, as alert conditions look back over days. */
export interface DailyScorePoint {
  day: string;
  score: number;
  grade: CompositeGrade | null;
  pillars: PillarScores;
}

/** The workspace's current-formula daily scores in [from, to], oldest first. */
export async function dailyScoreWindow(
  db: Kysely<DB>,
  workspaceId: string,
  from: string,
  to: string,
): Promise<DailyScorePoint[]> {
  const rows = await db
    .selectFrom('daily_scores')
    .select(['day', 'score', 'grade', 'presence', 'reach', 'impact', 'sentiment', 'momentum'])
    .where('workspace_id', '=', workspaceId)
    .where('formula_version', '=', CURRENT_FORMULA)
    .where('day', '>=', from)
    .where('day', '<=', to)
    .orderBy('day')
    .execute();
  return rows.map((r) => ({
    day: String(r.day),
    score: Number(r.score),
    grade: r.grade as CompositeGrade | null,
    pillars: pillarScoresOf(r),
  }));
}
