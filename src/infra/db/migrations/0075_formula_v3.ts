import type { Kysely } from 'kysely';
import { runStatements } from '../statements.ts';

/**
 * Formula v3 in the service (docs/scoring.md "Formula v3 in the API"). A day can hold a v3 row beside
 * its v1 and v2 rows (other formulas' rows are never rewritten). A v3 daily row carries the crisis
 * signal while one is active (null otherwise, so a calm history costs nothing) and the version of the
 * baselines it was scored against; audits keep both as they were answered.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await runStatements(
    db,
    `
    ALTER TABLE daily_scores DROP CONSTRAINT daily_scores_formula_ck;
    ALTER TABLE daily_scores ADD CONSTRAINT daily_scores_formula_ck CHECK (formula_version IN ('v1', 'v2', 'v3'));
    ALTER TABLE daily_scores ADD COLUMN crisis jsonb CHECK (crisis IS NULL OR jsonb_typeof(crisis) = 'object');
    ALTER TABLE daily_scores ADD COLUMN baseline_version text CHECK (length(baseline_version) BETWEEN 1 AND 32);
    ALTER TABLE audits ADD COLUMN crisis jsonb CHECK (crisis IS NULL OR jsonb_typeof(crisis) = 'object');
    ALTER TABLE audits ADD COLUMN baseline_version text CHECK (length(baseline_version) BETWEEN 1 AND 32);
    `,
  );
}

/** Back to v1 and v2 only: the v3 rows go (the code being rolled back to cannot read them). */
export async function down(db: Kysely<any>): Promise<void> {
  await runStatements(
    db,
    `
    ALTER TABLE audits DROP COLUMN baseline_version;
    ALTER TABLE audits DROP COLUMN crisis;
    ALTER TABLE daily_scores DROP COLUMN baseline_version;
    ALTER TABLE daily_scores DROP COLUMN crisis;
    DELETE FROM daily_scores WHERE formula_version = 'v3';
    ALTER TABLE daily_scores DROP CONSTRAINT daily_scores_formula_ck;
    ALTER TABLE daily_scores ADD CONSTRAINT daily_scores_formula_ck CHECK (formula_version IN ('v1', 'v2'));
    `,
  );
}
