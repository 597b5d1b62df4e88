import { sql, type Kysely } from 'kysely';
import { runStatements } from '../statements.ts';

/**
 * TACSI methodology tacsi-m2 (docs/privacy.md):
 * - every m2 cell stores its 95% margins and the band floor its noise was calibrated to, and how it
 *   was made (noised, derived from the week's daily cells, or derived from sector cells: the headline);
 * - the sector peer-distribution histogram (one release a month per sector, for the audit benchmark);
 * - a zCDP ledger: one row per charged release (rho in exact integer units), written in the same
 *   statement as the release;
 * - each workspace's sector membership history, kept by triggers so no write path can change a
 *   sector without it: an entity that changes sector is charged both sectors' releases.
 * tacsi-m1 rows are untouched (their new columns stay NULL; their margin is the methodology's).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await runStatements(
    db,
    `
    ALTER TABLE tacsi_cells ADD COLUMN band_floor integer CHECK (band_floor >= 50);
    ALTER TABLE tacsi_cells ADD COLUMN derivation text CHECK (derivation IN ('noised', 'daily', 'sectors'));
    ALTER TABLE tacsi_cells ADD COLUMN moe_index_value double precision CHECK (moe_index_value >= 0);
    -- Every pillar of a cell has the same noise law, hence one margin.
    ALTER TABLE tacsi_cells ADD COLUMN moe_pillars double precision CHECK (moe_pillars >= 0);
    -- The pillar noise as weighted independent discrete Gaussians (exact rationals): what later
    -- post-processing (the headline) needs to state its own margin.
    ALTER TABLE tacsi_cells ADD COLUMN noise jsonb;
    -- tacsi-m1 cells have none of the m2 fields; every tacsi-m2 cell has all of them.
    ALTER TABLE tacsi_cells ADD CONSTRAINT tacsi_cells_m2_fields_ck CHECK (
      (band_floor IS NULL AND derivation IS NULL AND moe_index_value IS NULL AND moe_pillars IS NULL AND noise IS NULL)
      OR (methodology_version <> 'tacsi-m1' AND band_floor IS NOT NULL AND derivation IS NOT NULL
          AND moe_index_value IS NOT NULL AND moe_pillars IS NOT NULL AND noise IS NOT NULL));

    CREATE TABLE tacsi_histograms (
      id                  bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      sector              text NOT NULL CHECK (sector ~ '^[a-z0-9]+(-[a-z0-9]+)*$' AND sector <> 'headline'),
      period_end          date NOT NULL,
      methodology_version text NOT NULL,
      edges               double precision[] NOT NULL,
      shares              double precision[] NOT NULL,
      cohort_band         text NOT NULL,
      band_floor          integer NOT NULL CHECK (band_floor >= 50),
      published_at        timestamptz NOT NULL DEFAULT now(),
      CHECK (cardinality(edges) = cardinality(shares) + 1),
      -- Released once: re-running a publication can never re-noise it.
      UNIQUE (sector, period_end, methodology_version)
    );
    CREATE INDEX tacsi_histograms_latest_idx ON tacsi_histograms (sector, period_end DESC);

    CREATE TABLE tacsi_rho_ledger (
      id                  bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      scope               text NOT NULL,
      kind                text NOT NULL CHECK (kind IN ('daily', 'weekly', 'histogram')),
      period_start        date NOT NULL,
      period_end          date NOT NULL CHECK (period_end >= period_start),
      methodology_version text NOT NULL,
      rho_units           bigint NOT NULL CHECK (rho_units > 0),
      rho                 double precision NOT NULL CHECK (rho > 0),
      cell_id             bigint UNIQUE REFERENCES tacsi_cells(id) ON DELETE RESTRICT,
      histogram_id        bigint UNIQUE REFERENCES tacsi_histograms(id) ON DELETE RESTRICT,
      created_at          timestamptz NOT NULL DEFAULT now(),
      CHECK ((cell_id IS NULL) <> (histogram_id IS NULL)),
      CHECK ((kind = 'histogram') = (histogram_id IS NOT NULL)),
      UNIQUE (scope, kind, period_end, methodology_version)
    );
    CREATE INDEX tacsi_rho_ledger_period_idx ON tacsi_rho_ledger (period_end);

    -- valid_from is inclusive, valid_until exclusive (the change day); the first membership of a
    -- workspace has no start, so history scored before the table existed keeps its sector.
    CREATE TABLE workspace_sector_history (
      workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
      sector_slug  text NOT NULL REFERENCES sectors(slug) ON DELETE RESTRICT,
      valid_from   date NOT NULL,
      valid_until  date,
      PRIMARY KEY (workspace_id, valid_from),
      CHECK (valid_until IS NULL OR valid_until > valid_from)
    );
    CREATE UNIQUE INDEX workspace_sector_history_open_uq ON workspace_sector_history (workspace_id)
      WHERE valid_until IS NULL;
    CREATE INDEX workspace_sector_history_sector_idx ON workspace_sector_history (sector_slug);
    INSERT INTO workspace_sector_history (workspace_id, sector_slug, valid_from)
      SELECT id, sector_slug, '-infinity'::date FROM workspaces WHERE sector_slug IS NOT NULL;
  `,
  );
  // The trigger function is one statement with inner semicolons, so it is sent whole.
  await sql
    .raw(
      `CREATE FUNCTION workspace_sector_history_track() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE
  change_day date := coalesce(nullif(current_setting('brand_health.sector_change_day', true), '')::date, current_date);
BEGIN
  IF TG_OP = 'INSERT' THEN
    IF NEW.sector_slug IS NOT NULL THEN
      INSERT INTO workspace_sector_history (workspace_id, sector_slug, valid_from)
        VALUES (NEW.id, NEW.sector_slug, '-infinity'::date);
    END IF;
    RETURN NEW;
  END IF;
  IF NEW.sector_slug IS DISTINCT FROM OLD.sector_slug THEN
    -- A second change on the same day replaces the first one's membership.
    DELETE FROM workspace_sector_history
     WHERE workspace_id = NEW.id AND valid_until IS NULL AND valid_from >= change_day;
    UPDATE workspace_sector_history SET valid_until = change_day
     WHERE workspace_id = NEW.id AND valid_until IS NULL;
    IF NEW.sector_slug IS NOT NULL THEN
      INSERT INTO workspace_sector_history (workspace_id, sector_slug, valid_from)
        VALUES (NEW.id, NEW.sector_slug, change_day);
    END IF;
  END IF;
  RETURN NEW;
END
$fn$`,
    )
    .execute(db);
  await runStatements(
    db,
    `
    CREATE TRIGGER workspace_sector_history_insert AFTER INSERT ON workspaces
      FOR EACH ROW EXECUTE FUNCTION workspace_sector_history_track();
    CREATE TRIGGER workspace_sector_history_update AFTER UPDATE OF sector_slug ON workspaces
      FOR EACH ROW EXECUTE FUNCTION workspace_sector_history_track();
  `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runStatements(
    db,
    `
    DROP TRIGGER workspace_sector_history_update ON workspaces;
    DROP TRIGGER workspace_sector_history_insert ON workspaces;
    DROP FUNCTION workspace_sector_history_track();
    DROP TABLE workspace_sector_history, tacsi_rho_ledger, tacsi_histograms;
    ALTER TABLE tacsi_cells DROP CONSTRAINT tacsi_cells_m2_fields_ck;
    ALTER TABLE tacsi_cells DROP COLUMN band_floor, DROP COLUMN derivation, DROP COLUMN moe_index_value,
      DROP COLUMN moe_pillars, DROP COLUMN noise;
  `,
  );
}
