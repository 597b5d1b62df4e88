import type { Kysely } from 'kysely';
import { runStatements } from '../statements.ts';

/**
 * A counter every sync bumps in the statement that takes its workspace lock (src/ingest/sync.ts).
 * A sync reads the score before and the scoring window with its claim, outside the transaction, and
 * keeps them only when the lock finds the counter where the claim saw it (no other sync of the
 * workspace committed in between: a waiting UPDATE sees the latest row, unlike the rest of its
 * statement) and the rows read unchanged (their xmins); otherwise it reads them again under the lock.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await runStatements(db, `ALTER TABLE workspaces ADD COLUMN sync_version bigint NOT NULL DEFAULT 0;`);
}

export async function down(db: Kysely<any>): Promise<void> {
  await runStatements(db, `ALTER TABLE workspaces DROP COLUMN sync_version;`);
}
