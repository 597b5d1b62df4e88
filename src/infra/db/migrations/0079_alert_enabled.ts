import type { Kysely } from 'kysely';
import { runStatements } from '../statements.ts';

/** An alert rule can be switched off without losing it or its history (docs/alerts.md "Editing"). */
export async function up(db: Kysely<any>): Promise<void> {
  await runStatements(db, `ALTER TABLE alert_rules ADD COLUMN enabled boolean NOT NULL DEFAULT true;`);
}

export async function down(db: Kysely<any>): Promise<void> {
  await runStatements(db, `ALTER TABLE alert_rules DROP COLUMN enabled;`);
}
