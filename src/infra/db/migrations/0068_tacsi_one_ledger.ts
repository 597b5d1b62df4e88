import type { Kysely } from 'kysely';
import { runStatements } from '../statements.ts';

/**
 * TACSI: one ledger for every release, a fixed cut-over, and no raw-score benchmark (docs/privacy.md):
 * - `tacsi_notices`: methodology notices, announced ahead of the day they take effect;
 * - `tacsi_cutover`: the tacsi-m2 cut-over, stored at the first publication and never changed after
 *   (a different TACSI_M2_FROM is refused), so no configuration change can route a period back to
 *   tacsi-m1;
 * - `tacsi_rho_ledger` now holds the releases of every methodology: the tacsi-m1 archive is entered
 *   at its zCDP equivalent (epsilon^2 / 12 for its six statistics at epsilon / 6 each: rho 3 a cell);
 * - `tacsi_entity_charges`: who was charged each release, one row per entity and release, written in
 *   the release's transaction. It is the record the cap reads for entities that changed sector, so
 *   later edits of the membership history cannot rewrite what an entity was charged. Existing tacsi-m2
 *   releases get the members whose membership overlapped the period (an over-count, never an
 *   under-count); the tacsi-m1 archive keeps its per-release rows only (its loss is stated whole);
 * - audit benchmarks stored before they were derived from published statistics (computed from raw
 *   peer scores) are withdrawn: their average and percentile become null with status
 *   `legacy_withdrawn`; stored `exclusive_sector` answers become `not_published`, so no audit tells
 *   whether a sector is licensed exclusively.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await runStatements(
    db,
    `
    CREATE TABLE tacsi_cutover (
      methodology_version        text PRIMARY KEY,
      periods_ending_on_or_after date NOT NULL,
      fixed_at                   timestamptz NOT NULL DEFAULT now()
    );

    -- Methodology notices, announced before the day they take effect (GET /v1/tacsi/notices).
    CREATE TABLE tacsi_notices (
      id                  text PRIMARY KEY,
      title               text NOT NULL CHECK (length(title) BETWEEN 1 AND 200),
      detail              text NOT NULL CHECK (length(detail) BETWEEN 1 AND 4000),
      methodology_version text,
      announced_at        timestamptz NOT NULL,
      effective_on        date NOT NULL
    );

    CREATE TABLE tacsi_entity_charges (
      ledger_id    bigint NOT NULL REFERENCES tacsi_rho_ledger(id) ON DELETE RESTRICT,
      workspace_id text NOT NULL,
      PRIMARY KEY (workspace_id, ledger_id)
    );
    CREATE INDEX tacsi_entity_charges_ledger_idx ON tacsi_entity_charges (ledger_id);

    INSERT INTO tacsi_rho_ledger (scope, kind, period_start, period_end, methodology_version, rho_units, rho, cell_id)
      SELECT p.sector, p.cadence,
             CASE WHEN p.cadence = 'weekly' THEN p.period_end - 6 ELSE p.period_end END,
             p.period_end, p.methodology_version,
             ceil(p.epsilon * p.epsilon / 12 * 1e9)::bigint, p.epsilon * p.epsilon / 12, p.cell_id
        FROM tacsi_privacy_ledger p
      ON CONFLICT DO NOTHING;

    INSERT INTO tacsi_entity_charges (ledger_id, workspace_id)
      SELECT l.id, h.workspace_id
        FROM tacsi_rho_ledger l
        JOIN workspace_sector_history h
          ON h.sector_slug = l.scope AND h.valid_from <= l.period_end
         AND (h.valid_until IS NULL OR h.valid_until > l.period_start)
        JOIN workspaces w ON w.id = h.workspace_id AND w.account_type = 'brand'
       WHERE l.methodology_version <> 'tacsi-m1'
      ON CONFLICT DO NOTHING;

    UPDATE audits
       SET industry_benchmark = jsonb_build_object(
             'your_score', industry_benchmark -> 'your_score',
             'industry_average', NULL,
             'percentile', NULL,
             'basis', jsonb_build_object(
               'status', 'legacy_withdrawn',
               'reason', 'This benchmark was computed before benchmarks came only from published TACSI statistics; it is withdrawn.',
               'sector', NULL, 'period_end', NULL, 'methodology_version', NULL, 'cohort_band', NULL,
               'margin_of_error', NULL, 'distribution_period_end', NULL, 'percentile_interval', NULL,
               'percentile_granularity', 5))
     WHERE industry_benchmark IS NOT NULL AND NOT (industry_benchmark ? 'basis');

    UPDATE audits
       SET industry_benchmark = jsonb_set(jsonb_set(industry_benchmark, '{basis,status}', '"not_published"'),
             '{basis,reason}',
             to_jsonb('No sector statistic can be shown: none has been published recently (sectors with fewer than 50 brands are never published), or it is not shown outside its licence.'::text))
     WHERE industry_benchmark #>> '{basis,status}' = 'exclusive_sector';
  `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runStatements(
    db,
    `
    DROP TABLE tacsi_entity_charges, tacsi_cutover, tacsi_notices;
    DELETE FROM tacsi_rho_ledger WHERE methodology_version = 'tacsi-m1';
  `,
  );
}
