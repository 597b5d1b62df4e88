import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import type { AppContext } from '../context.ts';
import { lastDayMovedBy, recomputeDailyScores } from '../scoring/daily-scores.ts';
import { SentimentTally } from '../scoring/engine/index.ts';
import { upsertSnapshots, type SnapshotRow } from './store.ts';
import { isCalendarDay, utcDay } from '../core/days.ts';
import { type Platform, PLATFORMS } from '../core/catalog.ts';
import { DomainError } from '../core/errors.ts';
import {
  METRIC_COLUMNS,
  METRIC_FIELDS,
  SENTIMENT_COLUMNS,
  type MetricSqlType,
} from '../core/metric-snapshot.ts';

export type ImportFormat = 'csv' | 'jsonl';

export interface ImportOptions {
  /** Default: from the file extension (.csv; .jsonl, .ndjson). */
  format?: ImportFormat;
  /** Import the valid rows even when some are rejected (default: reject the whole file). */
  skipInvalid?: boolean;
  /** Validate and report only; write nothing. */
  dryRun?: boolean;
}

export interface Rejection {
  /** 1-based line of the file (for CSV the line on which the row ends). */
  line: number;
  reason: string;
}

export interface ImportReport {
  format: ImportFormat;
  /** Data rows read (header and blank lines excluded). */
  rows: number;
  /** Snapshot rows written (0 when nothing was committed). */
  imported: number;
  rejected: Rejection[];
  /** True when the valid rows were written; false when the import was refused or a dry run. */
  committed: boolean;
  workspaces: number;
  /** Stored daily scores recomputed: from each workspace's first changed snapshot day. */
  dailyScores: number;
}

/** A file that cannot be imported at all (as opposed to rejected rows): the argument at fault is the file. */
export function invalidFile(detail: string): DomainError<'invalid_parameter'> {
  return new DomainError('invalid_parameter', detail, { parameter: 'file', message: detail });
}

const COLUMNS = new Set<string>(['workspace_id', 'platform', 'day', ...METRIC_COLUMNS, 'text', 'texts']);
/** The largest whole number each integer column type holds (bigint: as far as JS numbers are exact). */
const INTEGER_MAX: Record<Exclude<MetricSqlType, 'real' | 'text'>, number> = {
  integer: 2_147_483_647,
  bigint: Number.MAX_SAFE_INTEGER,
};
export const MAX_TEXTS_PER_ROW = 10_000;
export const MAX_TEXT_LENGTH = 10_000;

interface RawRecord {
  line: number;
  values: Record<string, unknown>;
}

function parseCsv(text: string): { records: RawRecord[]; rejected: Rejection[] } {
  let rows: Array<{ record: string[]; info: { lines: number } }>;
  try {
    rows = parse(text, {
      bom: true,
      info: true,
      skip_empty_lines: true,
      relax_column_count: true,
      trim: true,
    }) as never;
  } catch (error) {
    const e = error as { lines?: number; message: string };
    throw invalidFile(`line ${e.lines ?? 1}: the CSV cannot be read: ${e.message}`);
  }
  const [header, ...data] = rows;
  if (!header) return { records: [], rejected: [] };
  const columns = header.record.map((c) => c.toLowerCase());
  const unknown = columns.filter((c) => !COLUMNS.has(c));
  if (unknown.length) {
    throw invalidFile(
      `line ${header.info.lines}: unknown column${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')} ` +
        `(known: ${[...COLUMNS].join(', ')})`,
    );
  }
  const duplicated = columns.filter((c, i) => columns.indexOf(c) !== i);
  if (duplicated.length)
    throw invalidFile(`line ${header.info.lines}: column ${duplicated[0]} appears twice`);
  const records: RawRecord[] = [];
  const rejected: Rejection[] = [];
  for (const { record, info } of data) {
    if (record.length !== columns.length) {
      rejected.push({
        line: info.lines,
        reason: `has ${record.length} fields, the header has ${columns.length}`,
      });
      continue;
    }
    const values: Record<string, unknown> = {};
    columns.forEach((c, i) => {
      if (record[i] !== '') values[c] = record[i];
    });
    // A CSV cell holds one text in `text`, or a JSON array of texts in `texts`.
    if (typeof values.texts === 'string') {
      try {
        values.texts = JSON.parse(values.texts);
      } catch {
        rejected.push({ line: info.lines, reason: 'texts must be a JSON array of strings' });
        continue;
      }
    }
    records.push({ line: info.lines, values });
  }
  return { records, rejected };
}

function parseJsonLines(text: string): { records: RawRecord[]; rejected: Rejection[] } {
  const records: RawRecord[] = [];
  const rejected: Rejection[] = [];
  text
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/)
    .forEach((raw, i) => {
      const line = i + 1;
      if (raw.trim() === '') return;
      let value: unknown;
      try {
        value = JSON.parse(raw);
      } catch {
        rejected.push({ line, reason: 'not valid JSON' });
        return;
      }
      if (!value || typeof value !== 'object' || Array.isArray(value)) {
        rejected.push({ line, reason: 'must be a JSON object' });
        return;
      }
      const unknown = Object.keys(value).filter((k) => !COLUMNS.has(k));
      if (unknown.length) {
        rejected.push({
          line,
          reason: `unknown field${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}`,
        });
        return;
      }
      const values: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) if (v !== null && v !== '') values[k] = v;
      records.push({ line, values });
    });
  return { records, rejected };
}

/** A non-negative whole number from a CSV string or a JSON number. */
function wholeNumber(value: unknown, max: number): number | null {
  if (typeof value === 'string' && /^\d{1,16}$/.test(value)) value = Number(value);
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= max ? value : null;
}

/** Checks one record; returns the snapshot row or why it is rejected. */
export function validateRecord(values: Record<string, unknown>, today: string): SnapshotRow | string {
  const id = values.workspace_id;
  if (typeof id !== 'string' || !id.trim()) return 'workspace_id is required';
  if (id.length > 64) return 'workspace_id is longer than 64 characters';
  if (!PLATFORMS.includes(values.platform as Platform)) {
    return `platform must be one of ${PLATFORMS.join(', ')}${values.platform === undefined ? '' : `, got ${JSON.stringify(values.platform)}`}`;
  }
  const day = values.day;
  if (typeof day !== 'string' || !isCalendarDay(day)) return 'day must be a YYYY-MM-DD date';
  if (day > today) return `day ${day} is in the future`;
  for (const f of METRIC_FIELDS)
    if (f.required && values[f.column] === undefined) return `${f.column} is required`;

  const row = {
    workspace_id: id.trim(),
    platform: values.platform as Platform,
    day,
    source: 'import',
  } as SnapshotRow;
  for (const f of METRIC_FIELDS) {
    const value = values[f.column];
    if (value === undefined) continue;
    if (f.sqlType === 'text') {
      if (typeof value !== 'string' || !f.pattern.test(value))
        return `${f.column} must be ${f.patternText}, got ${JSON.stringify(value)}`;
      row[f.column] = value;
    } else if (f.sqlType === 'real') {
      const [min, max] = f.range;
      const c = Number(value);
      if (typeof value === 'boolean' || !Number.isFinite(c) || c < min || c > max) {
        return `${f.column} must be a number from ${min} to ${max}`;
      }
      row[f.column] = c;
    } else {
      const n = wholeNumber(value, INTEGER_MAX[f.sqlType]);
      if (n === null) return `${f.column} must be a whole number >= 0, got ${JSON.stringify(value)}`;
      row[f.column] = n;
    }
  }

  for (const f of METRIC_FIELDS)
    if ('atMost' in f && Number(row[f.column] ?? 0) > Number(row[f.atMost] ?? 0))
      return `${f.column} cannot exceed ${f.atMost} (it counts a part of them)`;

  const texts: unknown[] =
    values.texts !== undefined
      ? Array.isArray(values.texts)
        ? values.texts
        : [values.texts]
      : values.text !== undefined
        ? [values.text]
        : [];
  if (values.text !== undefined && values.texts !== undefined) return 'give text or texts, not both';
  if (texts.length) {
    if (SENTIMENT_COLUMNS.some((c) => values[c] !== undefined))
      return 'give sentiment counts or texts to classify, not both';
    if (!Array.isArray(values.texts) && values.texts !== undefined)
      return 'texts must be an array of strings';
    if (texts.length > MAX_TEXTS_PER_ROW) return `at most ${MAX_TEXTS_PER_ROW} texts per row`;
    const tally = new SentimentTally();
    for (const t of texts) {
      if (typeof t !== 'string') return 'texts must be strings';
      if (t.length > MAX_TEXT_LENGTH) return `a text is longer than ${MAX_TEXT_LENGTH} characters`;
      // Text in a language no model covers is counted as unscored (not silently neutral).
      tally.add(t);
    }
    const f = tally.fields();
    Object.assign(row, {
      sentiment_positive: f.sentimentPositive,
      sentiment_neutral: f.sentimentNeutral,
      sentiment_negative: f.sentimentNegative,
      sentiment_mixed: f.sentimentMixed,
      sentiment_unscored: f.sentimentUnscored,
      sentiment_confidence: f.sentimentConfidence,
      sentiment_model: f.sentimentModel,
    } satisfies Partial<SnapshotRow>);
  }
  return row;
}

export function formatOf(file: string, given?: ImportFormat): ImportFormat {
  if (given) return given;
  const ext = path.extname(file).toLowerCase();
  if (ext === '.csv') return 'csv';
  if (ext === '.jsonl' || ext === '.ndjson') return 'jsonl';
  throw invalidFile(
    `cannot tell the format of ${path.basename(file)}: name it .csv or .jsonl, or pass --format`,
  );
}

/**
 * Validates every row, then writes the valid ones in ONE transaction (snapshots upserted by
 * workspace, platform and day, then the affected stored daily scores recomputed). Any rejected
 * row refuses the whole import unless skipInvalid is set; a database error rolls all of it back.
 */
export async function importMetrics(
  ctx: AppContext,
  content: string,
  format: ImportFormat,
  options: Omit<ImportOptions, 'format'> = {},
): Promise<ImportReport> {
  const parsed = format === 'csv' ? parseCsv(content) : parseJsonLines(content);
  const rejected = [...parsed.rejected];
  const today = utcDay(ctx.now());
  const valid: Array<{ line: number; row: SnapshotRow }> = [];
  const seen = new Map<string, number>();
  for (const { line, values } of parsed.records) {
    const result = validateRecord(values, today);
    if (typeof result === 'string') {
      rejected.push({ line, reason: result });
      continue;
    }
    const key = `${result.workspace_id}\u0000${result.platform}\u0000${result.day}`;
    const first = seen.get(key);
    if (first !== undefined) {
      rejected.push({ line, reason: `duplicates line ${first} (same workspace_id, platform and day)` });
      continue;
    }
    seen.set(key, line);
    valid.push({ line, row: result });
  }

  const ids = [...new Set(valid.map((v) => v.row.workspace_id))];
  const existing = new Set<string>();
  for (let i = 0; i < ids.length; i += 1000) {
    const rows = await ctx.db
      .selectFrom('workspaces')
      .select('id')
      .where('id', 'in', ids.slice(i, i + 1000))
      .execute();
    for (const r of rows) existing.add(r.id);
  }
  const accepted = valid.filter((v) => {
    if (existing.has(v.row.workspace_id)) return true;
    rejected.push({ line: v.line, reason: `workspace ${v.row.workspace_id} does not exist` });
    return false;
  });
  rejected.sort((a, b) => a.line - b.line);

  const rowsRead = parsed.records.length + parsed.rejected.length;
  const workspaces = new Map<string, { from: string; to: string }>();
  for (const { row } of accepted) {
    const span = workspaces.get(row.workspace_id);
    if (!span) workspaces.set(row.workspace_id, { from: row.day, to: row.day });
    else {
      if (row.day < span.from) span.from = row.day;
      if (row.day > span.to) span.to = row.day;
    }
  }
  const report: ImportReport = {
    format,
    rows: rowsRead,
    imported: 0,
    rejected,
    committed: false,
    workspaces: workspaces.size,
    dailyScores: 0,
  };
  if ((rejected.length && !options.skipInvalid) || options.dryRun) return report;

  await ctx.db.transaction().execute(async (trx) => {
    const changed = await upsertSnapshots(
      trx,
      accepted.map((a) => a.row),
    );
    for (const [id, span] of workspaces) {
      // A snapshot on day d feeds the scores of d .. d + window - 1; only days from the workspace's
      // first changed snapshot can have moved (none when every row was already stored as is).
      const last = lastDayMovedBy(span.to);
      report.dailyScores += await recomputeDailyScores(trx, id, span.from, last < today ? last : today, {
        fromDay: changed.get(id) ?? null,
      });
    }
  });
  report.imported = accepted.length;
  report.committed = true;
  return report;
}

/** `brandhealth metrics import FILE`: reads the file and imports it. */
export async function importMetricsFile(
  ctx: AppContext,
  file: string,
  options: ImportOptions = {},
): Promise<ImportReport> {
  const format = formatOf(file, options.format);
  const content = await readFile(file, 'utf8');
  return importMetrics(ctx, content, format, options);
}
