import type { Kysely } from 'kysely';
import { runStatements } from '../statements.ts';

/**
 * Drops workspaces.sync_version: a sync serialises on a plain row lock of the workspace and reads
 * what it rescores from under that lock, so no counter tells it whether a read taken earlier still
 * holds (docs/ingestion.md "Scheduled sync").
 */
export async function up(db: Kysely<any>): Promise<void> {
  await runStatements(db, `ALTER TABLE workspaces DROP COLUMN sync_version;`);
}

export async function down(db: Kysely<any>): Promise<void> {
  await runStatements(db, `ALTER TABLE workspaces ADD COLUMN sync_version bigint NOT NULL DEFAULT 0;`);
}
