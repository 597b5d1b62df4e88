import { sql, type Kysely } from 'kysely';

/** One column of a bulk insert: its name, the PostgreSQL type of its array, and one value per row. */
export type Column = readonly [name: string, type: string, values: readonly unknown[]];

/**
 * Inserts rows given as parallel column arrays with one `INSERT ... SELECT FROM unnest(...)` per
 * chunk: a handful of parameters per statement whatever the row count, on PostgreSQL and PGlite.
 * `expressions` may rewrite a column on the way in (e.g. `decode(t.secret_hash, 'hex')`); `constants`
 * adds columns whose SQL expression is the same for every row.
 */
export async function insertColumns(
  db: Kysely<any>,
  table: string,
  columns: readonly Column[],
  options: { chunk?: number; expressions?: Record<string, string>; constants?: Record<string, string> } = {},
): Promise<number> {
  const rows = columns[0]?.[2].length ?? 0;
  for (const [name, , values] of columns) {
    if (values.length !== rows) throw new Error(`${table}.${name}: ${values.length} values for ${rows} rows`);
  }
  const chunk = options.chunk ?? 20_000;
  const constants = Object.entries(options.constants ?? {});
  const names = [...columns.map(([name]) => name), ...constants.map(([name]) => name)].map((n) => sql.ref(n));
  const select = [
    ...columns.map(([name]) => sql.raw(options.expressions?.[name] ?? `t.${name}`)),
    ...constants.map(([, expression]) => sql.raw(expression)),
  ];
  const aliases = sql.raw(columns.map(([name]) => name).join(', '));
  for (let start = 0; start < rows; start += chunk) {
    const arrays = columns.map(
      ([, type, values]) => sql`${values.slice(start, start + chunk)}::${sql.raw(type)}[]`,
    );
    await sql`
      INSERT INTO ${sql.table(table)} (${sql.join(names)})
      SELECT ${sql.join(select)} FROM unnest(${sql.join(arrays)}) AS t(${aliases})
    `.execute(db);
  }
  return rows;
}

/**
 * A deterministic uniform number in [0, 1) from SQL text expressions: the same seed and inputs give
 * the same value on every run (hashtext is PostgreSQL's own stable string hash).
 */
export function sqlUniform(seed: string, ...parts: string[]): string {
  const input = [`'${seed.replace(/'/g, "''")}'`, ...parts].join(` || ':' || `);
  return `((hashtext(${input})::bigint & 2147483647)::float8 / 2147483648.0)`;
}
