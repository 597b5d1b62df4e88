import type { Kysely } from 'kysely';
import { runStatements } from '../statements.ts';

/**
 * Formula v2 in the service (docs/scoring.md "Formula v2 in the API"). A workspace's day can hold one
 * stored score per formula, so a v2 recompute never overwrites the v1 row TACSI's tacsi-m1 reads
 * (the key gains formula_version). v2 rows carry the composite's 90% interval and the grade with
 * hysteresis where they were computed; audits keep the v2 extension fields they were answered with.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await runStatements(
    db,
    `
    ALTER TABLE daily_scores DROP CONSTRAINT daily_scores_pkey;
    ALTER TABLE daily_scores ADD CONSTRAINT daily_scores_formula_ck CHECK (formula_version IN ('v1', 'v2'));
    ALTER TABLE daily_scores ADD PRIMARY KEY (workspace_id, formula_version, day);
    ALTER TABLE daily_scores ADD COLUMN score_low real;
    ALTER TABLE daily_scores ADD COLUMN score_high real;
    ALTER TABLE daily_scores ADD COLUMN grade text
      CHECK (grade IN ('elite', 'strong', 'moderate', 'weak', 'critical'));
    ALTER TABLE daily_scores ADD CONSTRAINT daily_scores_interval_ck CHECK (
      (score_low IS NULL) = (score_high IS NULL)
      AND (score_low IS NULL OR (0 <= score_low AND score_low <= score AND score <= score_high AND score_high <= 100)));
    ALTER TABLE audits ADD COLUMN score_low real;
    ALTER TABLE audits ADD COLUMN score_high real;
    ALTER TABLE audits ADD COLUMN stale boolean;
    ALTER TABLE audits ADD COLUMN latest_data_day date;
    ALTER TABLE audits ADD COLUMN authenticity_flags jsonb;
    ALTER TABLE audits ADD CONSTRAINT audits_interval_ck CHECK (
      (score_low IS NULL) = (score_high IS NULL)
      AND (score_low IS NULL OR (score_low <= score AND score <= score_high)));
    -- Progress of "brandhealth scores recompute" (docs/operations.md): one row per run and workspace,
    -- moved in the transaction that writes each batch, so an interrupted run resumes where it stopped.
    CREATE TABLE daily_score_recomputes (
      run_key         text NOT NULL CHECK (run_key <> ''),
      workspace_id    text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
      done_through    date NOT NULL,
      updated_at      timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (run_key, workspace_id)
    );
    `,
  );
}

/**
 * Back to one row per (workspace, day): where a day holds both formulas the v1 row stays (the code
 * being rolled back to computes v1); a day holding only v2 keeps it.
 */
export async function down(db: Kysely<any>): Promise<void> {
  await runStatements(
    db,
    `
    DROP TABLE daily_score_recomputes;
    ALTER TABLE audits DROP CONSTRAINT audits_interval_ck;
    ALTER TABLE audits DROP COLUMN authenticity_flags;
    ALTER TABLE audits DROP COLUMN latest_data_day;
    ALTER TABLE audits DROP COLUMN stale;
    ALTER TABLE audits DROP COLUMN score_high;
    ALTER TABLE audits DROP COLUMN score_low;
    DELETE FROM daily_scores v WHERE v.formula_version <> 'v1'
      AND EXISTS (SELECT 1 FROM daily_scores o WHERE o.workspace_id = v.workspace_id AND o.day = v.day
                  AND o.formula_version = 'v1');
    ALTER TABLE daily_scores DROP CONSTRAINT daily_scores_interval_ck;
    ALTER TABLE daily_scores DROP COLUMN grade;
    ALTER TABLE daily_scores DROP COLUMN score_high;
    ALTER TABLE daily_scores DROP COLUMN score_low;
    ALTER TABLE daily_scores DROP CONSTRAINT daily_scores_pkey;
    ALTER TABLE daily_scores DROP CONSTRAINT daily_scores_formula_ck;
    ALTER TABLE daily_scores ADD PRIMARY KEY (workspace_id, day);
    `,
  );
}
