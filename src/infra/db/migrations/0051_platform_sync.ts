import type { Kysely } from 'kysely';
import { runStatements } from '../statements.ts';

/**
 * Scheduled sync and connection health (docs/ingestion.md "Scheduled sync"): when each live
 * connection is due, whether a sync is running, the last failure's class and time, and the
 * failure streak that raises platform.connection_failed. Two event types join the catalog.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await runStatements(
    db,
    `
    ALTER TABLE platform_connections ADD COLUMN next_sync_at timestamptz;
    ALTER TABLE platform_connections ADD COLUMN sync_started_at timestamptz;
    ALTER TABLE platform_connections ADD COLUMN last_error_class text
      CHECK (last_error_class IN ('rate_limited', 'platform_unavailable', 'platform_error', 'reauth_required', 'invalid_response'));
    ALTER TABLE platform_connections ADD COLUMN last_error_at timestamptz;
    ALTER TABLE platform_connections ADD COLUMN consecutive_failures integer NOT NULL DEFAULT 0
      CHECK (consecutive_failures >= 0);
    ALTER TABLE platform_connections ADD COLUMN manual_sync_at timestamptz;
    ALTER TABLE platform_connections ADD CONSTRAINT platform_connections_error_ck
      CHECK ((last_error_class IS NULL) = (last_error_at IS NULL));
    -- The round tick claims due connections by next_sync_at.
    CREATE INDEX platform_connections_due_idx ON platform_connections (next_sync_at) WHERE status = 'connected';
    ALTER TABLE events DROP CONSTRAINT events_type_check;
    ALTER TABLE events ADD CONSTRAINT events_type_check CHECK (type IN ('audit.completed', 'score.changed',
      'campaign.phase_changed', 'platform.connection_failed', 'platform.reauth_required'));
    ALTER TABLE webhooks DROP CONSTRAINT webhooks_events_check;
    ALTER TABLE webhooks ADD CONSTRAINT webhooks_events_check CHECK (cardinality(events) >= 1 AND
      events <@ ARRAY['audit.completed', 'score.changed', 'campaign.phase_changed',
                      'platform.connection_failed', 'platform.reauth_required']::text[]);
    `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runStatements(
    db,
    `
    DELETE FROM events WHERE type IN ('platform.connection_failed', 'platform.reauth_required');
    UPDATE webhooks SET events = array_remove(array_remove(events, 'platform.connection_failed'), 'platform.reauth_required');
    DELETE FROM webhooks WHERE cardinality(events) = 0;
    ALTER TABLE webhooks DROP CONSTRAINT webhooks_events_check;
    ALTER TABLE webhooks ADD CONSTRAINT webhooks_events_check CHECK (cardinality(events) >= 1 AND
      events <@ ARRAY['audit.completed', 'score.changed', 'campaign.phase_changed']::text[]);
    ALTER TABLE events DROP CONSTRAINT events_type_check;
    ALTER TABLE events ADD CONSTRAINT events_type_check CHECK (type IN ('audit.completed', 'score.changed',
      'campaign.phase_changed'));
    DROP INDEX platform_connections_due_idx;
    ALTER TABLE platform_connections DROP CONSTRAINT platform_connections_error_ck;
    ALTER TABLE platform_connections DROP COLUMN manual_sync_at;
    ALTER TABLE platform_connections DROP COLUMN consecutive_failures;
    ALTER TABLE platform_connections DROP COLUMN last_error_at;
    ALTER TABLE platform_connections DROP COLUMN last_error_class;
    ALTER TABLE platform_connections DROP COLUMN sync_started_at;
    ALTER TABLE platform_connections DROP COLUMN next_sync_at;
    `,
  );
}
