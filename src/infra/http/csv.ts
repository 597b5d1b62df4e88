import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type, type Static, type TSchema } from 'typebox';

/**
 * CSV representations (`Accept: text/csv`) of list endpoints. A CSV row is a row of the JSON answer's
 * list, its nested objects flattened into dotted columns (`pillars.reach`); the columns come from the
 * row's TypeBox schema, so CSV and JSON cannot drift apart. RFC 4180: a header row, CRLF line ends,
 * fields quoted when they hold a quote, comma, semicolon, pipe, tab, CR or LF (quotes doubled). Text
 * that a spreadsheet would run as a formula is defused (OWASP CSV injection): see csvCell. This is
 * the one CSV writer of the service.
 */

export const CSV_CONTENT_TYPE = 'text/csv; charset=utf-8; header=present';

/** Rows per chunk written to the socket: big enough to be cheap, small enough to keep memory flat. */
const ROWS_PER_CHUNK = 200;

/** A cell's first character that makes Excel, LibreOffice or Google Sheets read it as a formula. */
const FORMULA_START = /^[=+\-@\t\r]/;
/**
 * The same character right after a character a spreadsheet may split a line on: a comma; a
 * semicolon, the list separator of locales with a decimal comma (de, fr, nl...), where Excel splits
 * `x;=1+1;y` into three cells whatever the quotes of the comma-separated file; a pipe or a tab; a
 * line break.
 */
const FORMULA_AFTER_SEPARATOR = /([,;|\t\r\n])(?=[=+\-@])/g;
/** Characters that make a text cell quoted (RFC 4180's, plus the other separators above). */
const NEEDS_QUOTES = /[",;|\t\r\n]/;

type Json = Record<string, unknown>;

/**
 * One CSV field of a JSON value: null/absent empty, numbers and booleans as JSON writes them. Text
 * that would start a formula, at the start of the cell or after any separator a spreadsheet may
 * split on, gets a `'` before it (the OWASP CSV-injection defence; a spreadsheet shows the quote
 * and keeps the cell as text), and the cell is quoted.
 */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  let text = String(value);
  // Only text is defused: a number (a negative delta) is data the spreadsheet must keep numeric, and
  // cannot carry a formula.
  const formula = FORMULA_START.test(text);
  if (formula) text = `'${text}`;
  text = text.replace(FORMULA_AFTER_SEPARATOR, "$1'");
  if (formula || NEEDS_QUOTES.test(text)) return `"${text.replaceAll('"', '""')}"`;
  return text;
}

/** The leaf paths of an object schema, in its property order; nested objects become dotted columns. */
function columnsOf(schema: TSchema, prefix: string[] = []): string[][] {
  const properties = (schema as { properties?: Record<string, TSchema> }).properties;
  if (!properties) return [prefix];
  return Object.entries(properties).flatMap(([name, property]) => columnsOf(property, [...prefix, name]));
}

export interface CsvTable<Row> {
  /** The header row's names, e.g. `pillars.reach`. */
  readonly columns: readonly string[];
  /** The whole document as text (used for the OpenAPI example). */
  text(rows: readonly Row[]): string;
  /** The document as a stream: the header, then the rows in chunks as the socket drains. */
  stream(rows: Iterable<Row>): Readable;
}

/** The CSV table of a row schema (an object schema; nested object schemas are flattened). */
export function csvTable<T extends TSchema>(rowSchema: T): CsvTable<Static<T>> {
  const paths = columnsOf(rowSchema);
  const columns = paths.map((path) => path.join('.'));
  const header = `${columns.map(csvCell).join(',')}\r\n`;
  const line = (row: unknown) => {
    const cells = paths.map((path) =>
      csvCell(path.reduce<unknown>((node, key) => (node as Json)?.[key], row)),
    );
    return `${cells.join(',')}\r\n`;
  };
  return {
    columns,
    text: (rows) => header + rows.map(line).join(''),
    stream(rows) {
      function* chunks() {
        yield header;
        let chunk = '';
        let count = 0;
        for (const row of rows) {
          chunk += line(row);
          if (++count % ROWS_PER_CHUNK === 0) {
            yield chunk;
            chunk = '';
          }
        }
        if (chunk) yield chunk;
      }
      return Readable.from(chunks(), { objectMode: false });
    },
  };
}

/** The quality (q) an Accept header gives a media type: the most specific range that matches it. */
function quality(ranges: { type: string; q: number }[], mediaType: string): number {
  const [major] = mediaType.split('/');
  let best: { specificity: number; q: number } = { specificity: -1, q: 0 };
  for (const range of ranges) {
    const specificity =
      range.type === mediaType ? 2 : range.type === `${major}/*` ? 1 : range.type === '*/*' ? 0 : -1;
    if (specificity > best.specificity) best = { specificity, q: range.q };
  }
  return best.q;
}

/**
 * Whether the client prefers CSV to JSON (RFC 9110 content negotiation over the two). JSON stays the
 * answer without an Accept header, for `*\/*`, on a tie, and for an Accept naming neither (the API
 * answered JSON to any Accept before CSV existed, so no client that worked gets a 406 now).
 */
export function prefersCsv(accept: string | undefined): boolean {
  if (!accept) return false;
  const ranges = accept.split(',').map((part) => {
    const [type = '', ...parameters] = part.split(';').map((s) => s.trim().toLowerCase());
    const q = parameters.find((p) => p.startsWith('q='));
    const value = q === undefined ? 1 : Number(q.slice(2));
    return { type, q: Number.isFinite(value) ? Math.min(Math.max(value, 0), 1) : 0 };
  });
  const csv = quality(ranges, 'text/csv');
  return csv > 0 && csv > quality(ranges, 'application/json');
}

/**
 * Negotiates the representation of a route that has both: sets `Vary: Accept` (a shared cache must
 * not hand the CSV to a JSON client) and tells whether to answer CSV.
 */
export function negotiateCsv(request: FastifyRequest, reply: FastifyReply): boolean {
  reply.header('Vary', 'Accept');
  return prefersCsv(request.headers.accept);
}

/** Sends a CSV stream; the route has already checked everything (errors go out as problem+json). */
export function sendCsv<Row>(reply: FastifyReply, table: CsvTable<Row>, rows: Iterable<Row>): FastifyReply {
  return reply.type(CSV_CONTENT_TYPE).send(table.stream(rows));
}

/**
 * A 200 answered as JSON or, with `Accept: text/csv`, as CSV: the JSON schema and example, and the
 * CSV document of the example's rows (`rowsOf` picks the list from the JSON example).
 */
export function jsonOrCsv<T extends TSchema, Row>(
  schema: T,
  description: string,
  example: Static<T>,
  csv: { table: CsvTable<Row>; rows: (example: Static<T>) => Row[]; description: string },
) {
  return {
    description,
    content: {
      'application/json': { schema, example },
      'text/csv': {
        schema: Type.String({ description: `RFC 4180 CSV with a header row: ${csv.description}` }),
        example: csv.table.text(csv.rows(example)),
      },
    },
  };
}
