import type { Kysely } from 'kysely';
import { runStatements } from '../statements.ts';

const EVENTS_BEFORE = `'audit.completed', 'score.changed', 'campaign.phase_changed', 'platform.connection_failed', 'platform.reauth_required'`;
const EVENTS_AFTER = `${EVENTS_BEFORE}, 'platform.token_expiring', 'platform.connection_degraded'`;

/**
 * Connection health as a resource (docs/ingestion.md "Connection health"): why a connection needs
 * the brand or is degraded (health_reason, and the scope a permission error named), the calls of its
 * last sync that failed while the rest were stored (sync_failures), and the expiry a token that cannot be refreshed was last
 * warned about (platform.token_expiring fires once per token). Two event types join the catalog.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await runStatements(
    db,
    `
    ALTER TABLE platform_connections ADD COLUMN health_reason text
      CHECK (health_reason IN ('throttled', 'quota_exhausted', 'platform_unavailable', 'token_refresh_failed',
        'token_refused', 'refresh_refused', 'permission_missing', 'account_gone', 'platform_refused',
        'invalid_response', 'sync_failed'));
    ALTER TABLE platform_connections ADD COLUMN health_scope text CHECK (length(health_scope) <= 200);
    ALTER TABLE platform_connections ADD COLUMN sync_failures jsonb NOT NULL DEFAULT '[]'
      CHECK (jsonb_typeof(sync_failures) = 'array');
    ALTER TABLE platform_connections ADD COLUMN token_warned_for timestamptz;
    -- The sync tick looks for tokens that cannot be refreshed and expire soon.
    CREATE INDEX platform_connections_expiring_idx ON platform_connections (token_expires_at)
      WHERE status = 'connected' AND refresh_token IS NULL AND token_expires_at IS NOT NULL;
    ALTER TABLE events DROP CONSTRAINT events_type_check;
    ALTER TABLE events ADD CONSTRAINT events_type_check CHECK (type IN (${EVENTS_AFTER}));
    ALTER TABLE webhooks DROP CONSTRAINT webhooks_events_check;
    ALTER TABLE webhooks ADD CONSTRAINT webhooks_events_check CHECK (cardinality(events) >= 1 AND
      events <@ ARRAY[${EVENTS_AFTER}]::text[]);
    `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runStatements(
    db,
    `
    DELETE FROM events WHERE type IN ('platform.token_expiring', 'platform.connection_degraded');
    UPDATE webhooks SET events = array_remove(array_remove(events, 'platform.token_expiring'), 'platform.connection_degraded');
    DELETE FROM webhooks WHERE cardinality(events) = 0;
    ALTER TABLE webhooks DROP CONSTRAINT webhooks_events_check;
    ALTER TABLE webhooks ADD CONSTRAINT webhooks_events_check CHECK (cardinality(events) >= 1 AND
      events <@ ARRAY[${EVENTS_BEFORE}]::text[]);
    ALTER TABLE events DROP CONSTRAINT events_type_check;
    ALTER TABLE events ADD CONSTRAINT events_type_check CHECK (type IN (${EVENTS_BEFORE}));
    DROP INDEX platform_connections_expiring_idx;
    ALTER TABLE platform_connections DROP COLUMN token_warned_for;
    ALTER TABLE platform_connections DROP COLUMN sync_failures;
    ALTER TABLE platform_connections DROP COLUMN health_scope;
    ALTER TABLE platform_connections DROP COLUMN health_reason;
    `,
  );
}
