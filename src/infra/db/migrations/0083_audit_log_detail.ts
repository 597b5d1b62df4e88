import type { Kysely } from 'kysely';
import { runStatements } from '../statements.ts';

/**
 * The audit log's `detail`: what an entry says beyond its target (`member -> admin`, `as viewer`, the
 * reason a sign-in failed), so `target` holds only the id of what the action was done to and can be
 * filtered on (docs/security.md "Audit log").
 */
export async function up(db: Kysely<any>): Promise<void> {
  await runStatements(db, `ALTER TABLE audit_log ADD COLUMN detail text;`);
}

export async function down(db: Kysely<any>): Promise<void> {
  await runStatements(db, `ALTER TABLE audit_log DROP COLUMN detail;`);
}
