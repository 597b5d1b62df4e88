import type { Kysely } from 'kysely';
import { runStatements } from '../statements.ts';

/**
 * Campaign lifecycle invariants: a cancelled campaign records when (its progress is frozen
 * there), a campaign runs at most one phase at a time, phase names are unique ignoring case
 * (they are reported lower-cased), and the scheduled lifecycle run finds its candidates by index.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await runStatements(
    db,
    `
    ALTER TABLE campaigns ADD COLUMN cancelled_at timestamptz;
    ALTER TABLE campaigns ADD CONSTRAINT campaigns_cancelled_at_ck CHECK ((status = 'cancelled') = (cancelled_at IS NOT NULL));
    CREATE UNIQUE INDEX campaign_phases_one_active_uq ON campaign_phases (campaign_id) WHERE status = 'active';
    CREATE UNIQUE INDEX campaign_phases_name_uq ON campaign_phases (campaign_id, lower(name));
    CREATE INDEX campaigns_lifecycle_idx ON campaigns (status, start_date, id) WHERE status IN ('draft', 'active');
  `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runStatements(
    db,
    `
    DROP INDEX campaigns_lifecycle_idx;
    DROP INDEX campaign_phases_name_uq;
    DROP INDEX campaign_phases_one_active_uq;
    ALTER TABLE campaigns DROP CONSTRAINT campaigns_cancelled_at_ck;
    ALTER TABLE campaigns DROP COLUMN cancelled_at;
  `,
  );
}
