import type { Kysely } from 'kysely';
import { runStatements } from '../statements.ts';

/**
 * TACSI vintages (docs/tacsi.md "Vintages and corrections"): a published cell is never updated in
 * place. A correction stores a new vintage of the cell (vintage 2, 3, ...) with its reason and its own
 * `published_at`; every feed serves, per period, the latest vintage published at or before the read
 * instant. Each vintage that was noised has its own release in `tacsi_rho_ledger`, numbered alike.
 * Existing cells and releases are vintage 1.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await runStatements(
    db,
    `
    ALTER TABLE tacsi_cells ADD COLUMN vintage integer NOT NULL DEFAULT 1 CHECK (vintage >= 1);
    ALTER TABLE tacsi_cells ADD COLUMN correction_reason text
      CHECK (correction_reason IS NULL OR length(correction_reason) BETWEEN 1 AND 500);
    -- The first vintage is a publication, every later one a correction with its reason.
    ALTER TABLE tacsi_cells ADD CONSTRAINT tacsi_cells_vintage_reason_ck
      CHECK ((vintage = 1) = (correction_reason IS NULL));
    ALTER TABLE tacsi_cells DROP CONSTRAINT tacsi_cells_sector_cadence_period_end_methodology_version_key;
    ALTER TABLE tacsi_cells ADD CONSTRAINT tacsi_cells_vintage_uq
      UNIQUE (sector, cadence, period_end, methodology_version, vintage);
    DROP INDEX tacsi_cells_feed_idx;
    CREATE INDEX tacsi_cells_feed_idx ON tacsi_cells (sector, cadence, period_end DESC, vintage DESC);
    -- The corrections feed: a sector's later vintages, newest first.
    CREATE INDEX tacsi_cells_corrections_idx ON tacsi_cells (sector, published_at DESC) WHERE vintage > 1;

    ALTER TABLE tacsi_rho_ledger ADD COLUMN vintage integer NOT NULL DEFAULT 1 CHECK (vintage >= 1);
    ALTER TABLE tacsi_rho_ledger DROP CONSTRAINT tacsi_rho_ledger_scope_kind_period_end_methodology_version_key;
    ALTER TABLE tacsi_rho_ledger ADD CONSTRAINT tacsi_rho_ledger_vintage_uq
      UNIQUE (scope, kind, period_end, methodology_version, vintage);
  `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runStatements(
    db,
    `
    DELETE FROM tacsi_entity_charges
     WHERE ledger_id IN (SELECT id FROM tacsi_rho_ledger WHERE vintage > 1);
    DELETE FROM tacsi_rho_ledger WHERE vintage > 1;
    DELETE FROM tacsi_cells WHERE vintage > 1;
    ALTER TABLE tacsi_rho_ledger DROP CONSTRAINT tacsi_rho_ledger_vintage_uq;
    ALTER TABLE tacsi_rho_ledger ADD UNIQUE (scope, kind, period_end, methodology_version);
    ALTER TABLE tacsi_rho_ledger DROP COLUMN vintage;
    DROP INDEX tacsi_cells_corrections_idx;
    DROP INDEX tacsi_cells_feed_idx;
    CREATE INDEX tacsi_cells_feed_idx ON tacsi_cells (sector, cadence, period_end DESC);
    ALTER TABLE tacsi_cells DROP CONSTRAINT tacsi_cells_vintage_uq;
    ALTER TABLE tacsi_cells ADD UNIQUE (sector, cadence, period_end, methodology_version);
    ALTER TABLE tacsi_cells DROP CONSTRAINT tacsi_cells_vintage_reason_ck;
    ALTER TABLE tacsi_cells DROP COLUMN correction_reason, DROP COLUMN vintage;
  `,
  );
}
