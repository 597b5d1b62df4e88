import { sql, type Kysely } from 'kysely';

/**
 * Runs a block of DDL one statement at a time. PGlite's query() uses the extended protocol,
 * which accepts a single statement, so migrations cannot send a whole block at once.
 * Statements are split on a semicolon at the end of a line; keep one statement per such end.
 */
export async function runStatements(db: Kysely<any>, block: string): Promise<void> {
  const statements = block
    .split(/;\s*$/m)
    .map((s) => s.replace(/^\s*--.*$/gm, '').trim())
    .filter(Boolean);
  for (const statement of statements) await sql.raw(statement).execute(db);
}
