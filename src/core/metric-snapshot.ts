/**
 * The daily metric snapshot (one workspace, one platform, one day): its measured fields, defined
 * once. Every reader and writer derives from METRIC_FIELDS: the engine's DailySnapshot, the
 * metric_snapshots table type, the scoring reads (row and packed JSON), the bulk COPY, ingestion,
 * the CSV/JSONL import and the sandbox generator. Adding a metric is one entry here plus a
 * migration adding its column.
 */
import type { Platform } from './catalog.ts';

/** The PostgreSQL type of a metric column: it bounds what the import accepts and casts bulk inserts. */
export type MetricSqlType = 'integer' | 'bigint' | 'real' | 'text';

interface MetricFieldSpec {
  /** camelCase name in DailySnapshot. */
  readonly key: string;
  /** Column of metric_snapshots; the CSV/JSONL import's field name. */
  readonly column: string;
  readonly sqlType: MetricSqlType;
  /** True when every writer must give it (no column default). No metric is nullable. */
  readonly required: boolean;
  /** Bounds of a `real` metric; integer metrics are whole numbers >= 0 within their SQL type. */
  readonly range?: readonly [number, number];
  /** Values a `text` field may hold, so every codec (COPY CSV included) passes them unquoted. */
  readonly pattern?: RegExp;
  /** The `pattern` in words, for the import's rejections. */
  readonly patternText?: string;
  /**
   * The value when a snapshot leaves the field out: such a field is optional in DailySnapshot, so
   * code that builds snapshots without classifying anything (the engine's tests, simulators,
   * connectors that are given counts) need not know it. The row codecs always fill it.
   */
  readonly fallback?: number | string;
  /** A column this one can never exceed (a part of it): the import refuses a row that breaks it, as does the table. */
  readonly atMost?: string;
  /** What it counts, for readers of the code and docs. */
  readonly meaning: string;
}

/** `comments_repeat`: by an account that commented on at least this many of the posts of the 30 days up to the post's. */
export const REPEAT_COMMENTER_POSTS = 3;
/** `comments_early`: written within this many minutes of the post. */
export const EARLY_COMMENT_MINUTES = 60;

export const METRIC_FIELDS = [
  {
    key: 'followers',
    column: 'followers',
    sqlType: 'bigint',
    required: true,
    meaning: 'audience size (subscribers on youtube)',
  },
  { key: 'posts', column: 'posts', sqlType: 'integer', required: false, meaning: 'posts published that day' },
  {
    key: 'impressions',
    column: 'impressions',
    sqlType: 'bigint',
    required: false,
    meaning: 'impressions or views',
  },
  { key: 'likes', column: 'likes', sqlType: 'bigint', required: false, meaning: 'likes received that day' },
  {
    key: 'comments',
    column: 'comments',
    sqlType: 'bigint',
    required: false,
    meaning: 'comments received that day',
  },
  {
    key: 'commentsDeleted',
    column: 'comments_deleted',
    sqlType: 'bigint',
    required: false,
    fallback: 0,
    meaning:
      "comments deleted from the day's posts: the fall of each post's comment count below the highest count seen for it between syncs",
  },
  // Who wrote the comments and when, for engagement pods (docs/scoring.md, "Formula v3: authenticity"):
  // counts over the comments of the day's posts whose author and time the platform gave.
  {
    key: 'commentsAttributed',
    column: 'comments_attributed',
    sqlType: 'bigint',
    required: false,
    fallback: 0,
    meaning:
      "comments on the day's posts whose author and time were read (Instagram), the base of the two counts below",
  },
  {
    key: 'commentsRepeat',
    column: 'comments_repeat',
    sqlType: 'bigint',
    required: false,
    fallback: 0,
    atMost: 'comments_attributed',
    meaning: `of those, comments by an account that commented on at least ${REPEAT_COMMENTER_POSTS} of the account's posts of the 30 days up to the post's`,
  },
  {
    key: 'commentsEarly',
    column: 'comments_early',
    sqlType: 'bigint',
    required: false,
    fallback: 0,
    atMost: 'comments_attributed',
    meaning: `of those, comments written within ${EARLY_COMMENT_MINUTES} minutes of their post`,
  },
  { key: 'shares', column: 'shares', sqlType: 'bigint', required: false, meaning: 'shares that day' },
  { key: 'saves', column: 'saves', sqlType: 'bigint', required: false, meaning: 'saves that day' },
  {
    key: 'mentions',
    column: 'mentions',
    sqlType: 'bigint',
    required: false,
    meaning: 'mentions of the brand',
  },
  {
    key: 'sentimentPositive',
    column: 'sentiment_positive',
    sqlType: 'integer',
    required: false,
    meaning: 'comments and mentions classified positive',
  },
  {
    key: 'sentimentNeutral',
    column: 'sentiment_neutral',
    sqlType: 'integer',
    required: false,
    meaning: 'comments and mentions classified neutral',
  },
  {
    key: 'sentimentNegative',
    column: 'sentiment_negative',
    sqlType: 'integer',
    required: false,
    meaning: 'comments and mentions classified negative',
  },
  // Provenance of the counts above, so stored comments can be re-scored when the model changes.
  // Counts given directly (import, sandbox) carry model '' and confidence 0.
  {
    key: 'sentimentMixed',
    column: 'sentiment_mixed',
    sqlType: 'integer',
    required: false,
    fallback: 0,
    meaning: 'comments and mentions classified mixed (praise and complaint together)',
  },
  {
    key: 'sentimentUnscored',
    column: 'sentiment_unscored',
    sqlType: 'integer',
    required: false,
    fallback: 0,
    meaning: 'comments and mentions not classified: a language no configured model covers',
  },
  {
    key: 'sentimentConfidence',
    column: 'sentiment_confidence',
    sqlType: 'real',
    required: false,
    fallback: 0,
    range: [0, 1],
    meaning:
      "the model's mean confidence over the classified comments and mentions, 0..1 (0: none classified)",
  },
  {
    key: 'sentimentModel',
    column: 'sentiment_model',
    sqlType: 'text',
    required: false,
    fallback: '',
    pattern: /^[A-Za-z0-9._:@+/-]{0,100}$/u,
    patternText: 'at most 100 letters, digits and . _ : @ + / -',
    meaning: "id@version of the model that classified the counts ('' when the counts were given)",
  },
  {
    key: 'engagementDating',
    column: 'engagement_dating',
    sqlType: 'text',
    required: false,
    fallback: 'day',
    pattern: /^(day|post)$/u,
    patternText: 'day or post',
    meaning:
      "'post' when likes, comments, shares, saves and mentions are each post's lifetime totals booked on its publication day while views are counted by day (the Instagram and Facebook connectors); 'day' when they are counted on the day they happen, or dated like the views (X's per-post metrics)",
  },
  {
    key: 'profileCompleteness',
    column: 'profile_completeness',
    sqlType: 'real',
    required: false,
    range: [0, 1],
    meaning: 'share of the profile filled in, 0..1',
  },
] as const satisfies readonly MetricFieldSpec[];

export type MetricField = (typeof METRIC_FIELDS)[number];
export type MetricKey = MetricField['key'];
export type MetricColumn = MetricField['column'];
/** Metric columns without a default: a row cannot be written without them. */
export type RequiredMetricColumn = Extract<MetricField, { required: true }>['column'];

/** The metric columns of metric_snapshots, in METRIC_FIELDS order. */
export const METRIC_COLUMNS: readonly MetricColumn[] = METRIC_FIELDS.map((f) => f.column);

/** The sentiment counts and their provenance, which the import may instead derive by classifying texts. */
export const SENTIMENT_COLUMNS = [
  'sentiment_positive',
  'sentiment_neutral',
  'sentiment_negative',
  'sentiment_mixed',
  'sentiment_unscored',
  'sentiment_confidence',
  'sentiment_model',
] as const satisfies readonly MetricColumn[];

/** Where a stored snapshot came from (metric_snapshots.source). */
export const SNAPSHOT_SOURCES = ['connector', 'import', 'sandbox'] as const;
export type SnapshotSource = (typeof SNAPSHOT_SOURCES)[number];

/** The JavaScript type of a field: text fields are strings, every other metric a number. */
type ValueOf<F> = F extends { sqlType: 'text' } ? string : number;
type WithFallback = Extract<MetricField, { fallback: number | string }>;
export type MetricValues = { [F in Exclude<MetricField, WithFallback> as F['key']]: ValueOf<F> } & {
  [F in WithFallback as F['key']]?: ValueOf<F>;
};
export type MetricRow = { [F in MetricField as F['column']]: ValueOf<F> };
/** Metric columns holding text (sentiment_model). */
export type TextMetricColumn = Extract<MetricField, { sqlType: 'text' }>['column'];

/** One snapshot in the scoring engine's shape. */
export interface DailySnapshot extends MetricValues {
  platform: Platform;
  /** YYYY-MM-DD (UTC calendar day). */
  day: string;
}

// The codecs below run per row on the hot scoring read (1,825 rows per audit), so each is compiled
// once from METRIC_FIELDS into a plain object literal: a loop assigning computed keys was 5x slower.
// Only the identifiers of METRIC_FIELDS, constants above, enter the generated source.
const decode = (f: MetricField, value: string) =>
  f.sqlType === 'text' ? `String(${value} ?? '')` : `Number(${value})`;
const valuesSource = METRIC_FIELDS.map((f, i) => `${f.key}: ${decode(f, `v[o + ${i}]`)}`).join(', ');
const rowToSnapshotSource = METRIC_FIELDS.map((f) => `${f.key}: ${decode(f, `r.${f.column}`)}`).join(', ');
const snapshotToRowSource = METRIC_FIELDS.map((f) =>
  'fallback' in f ? `${f.column}: s.${f.key} ?? ${JSON.stringify(f.fallback)}` : `${f.column}: s.${f.key}`,
).join(', ');

/** A snapshot as the columns of metric_snapshots (besides workspace_id and source). */
export const snapshotToRow = new Function(
  's',
  `return { platform: s.platform, day: s.day, ${snapshotToRowSource} };`,
) as (s: DailySnapshot) => { platform: Platform; day: string } & MetricRow;

/** A stored row (numbers possibly as strings, as some drivers return bigint) in the engine's shape. */
export const snapshotFromRow = new Function(
  'r',
  `return { platform: r.platform, day: r.day, ${rowToSnapshotSource} };`,
) as (row: { platform: Platform; day: string } & Record<MetricColumn, unknown>) => DailySnapshot;

/**
 * A snapshot from its metric values listed in METRIC_FIELDS order starting at `offset` (a packed
 * JSON array, the fields of a COPY line).
 */
export const snapshotFromValues = new Function(
  'platform',
  'day',
  'v',
  'o',
  `return { platform, day, ${valuesSource} };`,
) as (platform: Platform, day: string, values: ArrayLike<unknown>, offset: number) => DailySnapshot;
