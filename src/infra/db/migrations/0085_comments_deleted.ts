import type { Kysely } from 'kysely';
import { runStatements } from '../statements.ts';

/**
 * Comments deleted from a day's posts (docs/scoring.md, "Formula v3: authenticity"): the fall of a
 * post's comment count below the highest count seen for it, booked on the post's day. Existing rows
 * saw no deletion: 0.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await runStatements(
    db,
    `ALTER TABLE metric_snapshots
       ADD COLUMN comments_deleted bigint NOT NULL DEFAULT 0 CHECK (comments_deleted >= 0);`,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runStatements(db, `ALTER TABLE metric_snapshots DROP COLUMN comments_deleted;`);
}
