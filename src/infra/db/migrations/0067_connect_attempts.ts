import type { Kysely } from 'kysely';
import { runStatements } from '../statements.ts';

/**
 * OAuth connect attempts (docs/ingestion.md "Connecting an account"). An `oauth_states` row is the
 * attempt: it gets an id the API names it by, the SHA-256 of the browser-binding nonce set as a
 * cookie when it started (`binding_hash`), and, while the brand picks one of several accounts the
 * login gave (`pending_selection`), the candidates and the user's token (sealed, purpose
 * `platform-token`). `granted_scopes` on both tables is the set the platform granted, as read at
 * the callback (NULL: not known, e.g. a connection made before, or by handle for the CLI).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await runStatements(
    db,
    `
    ALTER TABLE oauth_states ADD COLUMN id text;
    UPDATE oauth_states SET id = 'oc_' || substr(state_hash, 1, 26) WHERE id IS NULL;
    ALTER TABLE oauth_states ALTER COLUMN id SET NOT NULL;
    CREATE UNIQUE INDEX oauth_states_id_uq ON oauth_states (id);
    ALTER TABLE oauth_states ADD COLUMN binding_hash text;
    ALTER TABLE oauth_states ADD COLUMN candidates jsonb;
    ALTER TABLE oauth_states ADD COLUMN access_token text;
    ALTER TABLE oauth_states ADD COLUMN access_token_key_id text;
    ALTER TABLE oauth_states ADD COLUMN refresh_token text;
    ALTER TABLE oauth_states ADD COLUMN refresh_token_key_id text;
    ALTER TABLE oauth_states ADD COLUMN token_expires_at timestamptz;
    ALTER TABLE oauth_states ADD COLUMN granted_scopes text[];
    ALTER TABLE oauth_states ADD COLUMN connection_id text;
    ALTER TABLE oauth_states DROP CONSTRAINT oauth_states_outcome_check;
    ALTER TABLE oauth_states ADD CONSTRAINT oauth_states_outcome_check
      CHECK (outcome IN ('connected', 'denied', 'failed', 'pending_selection'));
    ALTER TABLE oauth_states ADD CONSTRAINT oauth_states_tokens_ck CHECK (
      (access_token IS NULL) = (access_token_key_id IS NULL)
      AND (refresh_token IS NULL) = (refresh_token_key_id IS NULL)
      AND (access_token IS NULL OR outcome = 'pending_selection'));
    CREATE INDEX oauth_states_pending_idx ON oauth_states (expires_at) WHERE outcome = 'pending_selection';
    ALTER TABLE platform_connections ADD COLUMN granted_scopes text[];
  `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runStatements(
    db,
    `
    ALTER TABLE platform_connections DROP COLUMN granted_scopes;
    DROP INDEX oauth_states_pending_idx;
    DELETE FROM oauth_states WHERE outcome = 'pending_selection';
    ALTER TABLE oauth_states DROP CONSTRAINT oauth_states_tokens_ck;
    ALTER TABLE oauth_states DROP CONSTRAINT oauth_states_outcome_check;
    ALTER TABLE oauth_states ADD CONSTRAINT oauth_states_outcome_check
      CHECK (outcome IN ('connected', 'denied', 'failed'));
    ALTER TABLE oauth_states DROP COLUMN connection_id;
    ALTER TABLE oauth_states DROP COLUMN granted_scopes;
    ALTER TABLE oauth_states DROP COLUMN token_expires_at;
    ALTER TABLE oauth_states DROP COLUMN refresh_token_key_id;
    ALTER TABLE oauth_states DROP COLUMN refresh_token;
    ALTER TABLE oauth_states DROP COLUMN access_token_key_id;
    ALTER TABLE oauth_states DROP COLUMN access_token;
    ALTER TABLE oauth_states DROP COLUMN candidates;
    ALTER TABLE oauth_states DROP COLUMN binding_hash;
    DROP INDEX oauth_states_id_uq;
    ALTER TABLE oauth_states DROP COLUMN id;
  `,
  );
}
