import type { Kysely } from 'kysely';
import { runStatements } from '../statements.ts';

/** Recent completed audits by completion time: the sample audit estimates are measured from. */
export async function up(db: Kysely<any>): Promise<void> {
  await runStatements(
    db,
    `CREATE INDEX audits_recent_completed_idx ON audits (completed_at DESC) WHERE status = 'completed';`,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runStatements(db, `DROP INDEX audits_recent_completed_idx;`);
}
