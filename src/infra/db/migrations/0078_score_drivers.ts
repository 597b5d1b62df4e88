import type { Kysely } from 'kysely';
import { runStatements } from '../statements.ts';

/**
 * A score's drivers (docs/scoring.md "Why the score is what it is"): a v3 audit keeps the readings it
 * was scored from, and a v3 daily row keeps them where its interval was computed (the last day of a
 * recompute, what the next sync's score.changed compares against), so `score.changed` explains a
 * change from the stored drivers of the previous score rather than by scoring its old inputs again.
 * Null on v1 and v2 rows and on v3 rows stored without them.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await runStatements(
    db,
    `
    ALTER TABLE audits ADD COLUMN drivers jsonb CHECK (drivers IS NULL OR jsonb_typeof(drivers) = 'array');
    ALTER TABLE daily_scores ADD COLUMN drivers jsonb CHECK (drivers IS NULL OR jsonb_typeof(drivers) = 'array');
    `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runStatements(
    db,
    `
    ALTER TABLE daily_scores DROP COLUMN drivers;
    ALTER TABLE audits DROP COLUMN drivers;
    `,
  );
}
