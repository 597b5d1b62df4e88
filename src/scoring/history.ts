import { sql, type Kysely } from 'kysely';
import type { WorkspacePrincipal } from '../infra/auth/principal.ts';
import type { DB } from '../infra/db/types.ts';
import { DomainError, invalidParameter } from '../core/errors.ts';
import { signedDelta } from './engine/index.ts';
import { addDays, dayStart, parseIsoInstant, utcDay } from '../core/days.ts';
import { PILLARS, pillarScoresOf, type PillarScores } from '../core/catalog.ts';
import { resolveWorkspace } from '../workspaces/tenancy.ts';
import { CURRENT_FORMULA, type StoredFormula } from './daily-scores.ts';
import type { Timeline, TimelineEntry } from '../annotations/timeline-types.ts';
import { GRANULARITIES } from './schemas.ts';

export type Granularity = (typeof GRANULARITIES)[number];

export const DEFAULT_HISTORY_DAYS = 90;

/**
 * An ISO 8601 date or date-time parameter as an instant and its UTC day (parseIsoInstant's rule). A
 * date means midnight UTC; a date-time without an offset is read as UTC.
 */
export function parseDateParam(name: string, value: string): { at: number; day: string } {
  const parsed = parseIsoInstant(value);
  if (parsed) return { at: parsed.instant.getTime(), day: utcDay(parsed.instant) };
  throw invalidParameter(
    name,
    'must be an ISO 8601 date (YYYY-MM-DD, year 0001-9999) or date-time (e.g. 2025-01-31T12:00:00Z)',
  );
}

export interface HistoryPoint {
  date: string;
  score: number;
  pillars: PillarScores;
}

export interface HistoryView {
  workspace_id: string;
  granularity: Granularity;
  formula_version: StoredFormula;
  data: HistoryPoint[];
  delta: { score: string; period: string };
  annotations: TimelineEntry[];
}

interface Row {
  day: string;
  score: number;
  presence: number;
  reach: number;
  impact: number;
  sentiment: number;
  momentum: number;
}

/**
 * Stored daily scores of one formula in [from, to]. Weekly and monthly points are the last stored
 * day of each ISO week (Monday-Sunday) or calendar month: the score as it stood when the period
 * closed, dated by that day. Never recomputed per request; formulas are never mixed in one series.
 * The workspace is the caller's to check (scoreHistory resolves it; a report's schedule was checked).
 */
export async function storedHistoryPoints(
  db: Kysely<DB>,
  workspaceId: string,
  from: string,
  to: string,
  granularity: Granularity,
  formula: StoredFormula,
) {
  const base = db
    .selectFrom('daily_scores')
    .select(['day', 'score', ...PILLARS])
    .where('workspace_id', '=', workspaceId)
    .where('formula_version', '=', formula)
    .where('day', '>=', from)
    .where('day', '<=', to);
  if (granularity === 'daily') return (await base.orderBy('day').execute()) as Row[];
  const unit = granularity === 'weekly' ? 'week' : 'month';
  const bucket = sql`date_trunc(${sql.lit(unit)}, day::timestamp)`;
  const result = await sql<Row>`
    SELECT * FROM (
      SELECT DISTINCT ON (${bucket}) day, score, presence, reach, impact, sentiment, momentum
      FROM daily_scores
      WHERE workspace_id = ${workspaceId} AND formula_version = ${formula} AND day >= ${from} AND day <= ${to}
      ORDER BY ${bucket}, day DESC
    ) closing ORDER BY day
  `.execute(db);
  return result.rows;
}

export async function scoreHistory(
  db: Kysely<DB>,
  timeline: Timeline,
  principal: WorkspacePrincipal,
  query: {
    workspace_id?: string;
    start_date?: string;
    end_date?: string;
    granularity: Granularity;
    formula_version?: StoredFormula;
  },
  now: Date,
): Promise<HistoryView> {
  const end =
    query.end_date !== undefined
      ? parseDateParam('end_date', query.end_date)
      : { at: now.getTime(), day: utcDay(now) };
  const start =
    query.start_date !== undefined
      ? parseDateParam('start_date', query.start_date)
      : (() => {
          // Counted back from the end of the range, which may be a past end_date.
          const day = addDays(end.day, -DEFAULT_HISTORY_DAYS);
          return { at: dayStart(day).getTime(), day };
        })();
  if (!(start.at < end.at)) {
    throw new DomainError(
      'invalid_date_range',
      `start_date (${start.day}) must be before end_date (${end.day}).`,
      { parameter: 'start_date', message: 'must be before end_date' },
    );
  }
  const ws = await resolveWorkspace(db, principal, query.workspace_id);
  const formula = query.formula_version ?? CURRENT_FORMULA;
  const rows = await storedHistoryPoints(db, ws.id, start.day, end.day, query.granularity, formula);
  if (rows.length === 0) {
    throw new DomainError(
      'no_data',
      `Workspace ${ws.id} has no formula ${formula} score data from ${start.day} to ${end.day}.`,
    );
  }
  const data = rows.map((r) => ({
    date: r.day,
    score: Number(r.score),
    pillars: pillarScoresOf(r),
  }));
  const first = data[0]!;
  const last = data[data.length - 1]!;
  return {
    workspace_id: ws.id,
    granularity: query.granularity,
    formula_version: formula,
    data,
    delta: { score: signedDelta(last.score, first.score), period: `${first.date} to ${last.date}` },
    annotations: await timeline(db, ws.id, start.day, end.day),
  };
}
