import type { Kysely } from 'kysely';
import { runStatements } from '../statements.ts';

/**
 * What each snapshot's sentiment counts rest on, so comments can be re-scored when the model
 * changes: mixed and unscored counts kept apart, the model's mean confidence
 * and which model (id@version) classified them. Existing rows were given counts or classified
 * before this was kept: no mixed, no unscored, confidence 0, model ''.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await runStatements(
    db,
    `ALTER TABLE metric_snapshots
       ADD COLUMN sentiment_mixed integer NOT NULL DEFAULT 0 CHECK (sentiment_mixed >= 0),
       ADD COLUMN sentiment_unscored integer NOT NULL DEFAULT 0 CHECK (sentiment_unscored >= 0),
       ADD COLUMN sentiment_confidence real NOT NULL DEFAULT 0 CHECK (sentiment_confidence BETWEEN 0 AND 1),
       ADD COLUMN sentiment_model text NOT NULL DEFAULT ''
         CHECK (sentiment_model ~ '^[A-Za-z0-9._:@+/-]{0,100}$');`,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runStatements(
    db,
    `ALTER TABLE metric_snapshots
       DROP COLUMN sentiment_model,
       DROP COLUMN sentiment_confidence,
       DROP COLUMN sentiment_unscored,
       DROP COLUMN sentiment_mixed;`,
  );
}
