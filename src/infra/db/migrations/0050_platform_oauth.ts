import type { Kysely } from 'kysely';
import { runStatements } from '../statements.ts';

/**
 * Platform connections made through OAuth. A connection whose refresh was refused waits in
 * `reauth_required`: it is still the workspace's one connection for that platform (the live index
 * covers it) until it is re-authorised (updated in place) or disconnected. Tokens are sealed with the
 * key ring (src/infra/crypto, purpose `platform-token`), the key id beside each. `oauth_states` holds
 * pending authorisations: the state is stored only as its SHA-256 (it travels in URLs), the PKCE
 * verifier sealed; a state is used once (used_at) and expires after 10 minutes.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await runStatements(
    db,
    `
    ALTER TABLE platform_connections DROP CONSTRAINT platform_connections_status_check;
    ALTER TABLE platform_connections ADD CONSTRAINT platform_connections_status_check
      CHECK (status IN ('connected', 'reauth_required', 'disconnected'));
    DROP INDEX platform_connections_live_uq;
    CREATE UNIQUE INDEX platform_connections_live_uq
      ON platform_connections (workspace_id, platform) WHERE status <> 'disconnected';
    ALTER TABLE platform_connections ADD COLUMN account_id text;
    ALTER TABLE platform_connections ADD COLUMN access_token text;
    ALTER TABLE platform_connections ADD COLUMN access_token_key_id text;
    ALTER TABLE platform_connections ADD COLUMN refresh_token text;
    ALTER TABLE platform_connections ADD COLUMN refresh_token_key_id text;
    ALTER TABLE platform_connections ADD COLUMN token_expires_at timestamptz;
    ALTER TABLE platform_connections ADD COLUMN scopes text;
    ALTER TABLE platform_connections ADD COLUMN reauth_at timestamptz;
    ALTER TABLE platform_connections ADD CONSTRAINT platform_connections_tokens_ck CHECK (
      (access_token IS NULL) = (access_token_key_id IS NULL)
      AND (refresh_token IS NULL) = (refresh_token_key_id IS NULL)
      AND ((status = 'reauth_required') = (reauth_at IS NOT NULL)));
    CREATE INDEX platform_connections_access_key_idx ON platform_connections (access_token_key_id)
      WHERE access_token_key_id IS NOT NULL;
    CREATE INDEX platform_connections_refresh_key_idx ON platform_connections (refresh_token_key_id)
      WHERE refresh_token_key_id IS NOT NULL;

    CREATE TABLE oauth_states (
      state_hash       text PRIMARY KEY,
      workspace_id     text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
      platform         text NOT NULL CHECK (platform IN ('instagram', 'tiktok', 'youtube', 'twitter', 'facebook')),
      owner_key_id     text NOT NULL,
      code_verifier    text NOT NULL,
      code_verifier_key_id text NOT NULL,
      redirect_uri     text NOT NULL,
      created_at       timestamptz NOT NULL,
      expires_at       timestamptz NOT NULL,
      used_at          timestamptz,
      outcome          text CHECK (outcome IN ('connected', 'denied', 'failed')),
      error            text CHECK (length(error) <= 300),
      CHECK ((used_at IS NULL) = (outcome IS NULL))
    );
    CREATE INDEX oauth_states_workspace_idx ON oauth_states (workspace_id, platform, created_at DESC);
  `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runStatements(
    db,
    `
    DROP TABLE oauth_states;
    DROP INDEX platform_connections_refresh_key_idx;
    DROP INDEX platform_connections_access_key_idx;
    ALTER TABLE platform_connections DROP CONSTRAINT platform_connections_tokens_ck;
    ALTER TABLE platform_connections DROP COLUMN reauth_at;
    ALTER TABLE platform_connections DROP COLUMN scopes;
    ALTER TABLE platform_connections DROP COLUMN token_expires_at;
    ALTER TABLE platform_connections DROP COLUMN refresh_token_key_id;
    ALTER TABLE platform_connections DROP COLUMN refresh_token;
    ALTER TABLE platform_connections DROP COLUMN access_token_key_id;
    ALTER TABLE platform_connections DROP COLUMN access_token;
    ALTER TABLE platform_connections DROP COLUMN account_id;
    UPDATE platform_connections SET status = 'disconnected', disconnected_at = now()
      WHERE status = 'reauth_required';
    DROP INDEX platform_connections_live_uq;
    CREATE UNIQUE INDEX platform_connections_live_uq
      ON platform_connections (workspace_id, platform) WHERE status = 'connected';
    ALTER TABLE platform_connections DROP CONSTRAINT platform_connections_status_check;
    ALTER TABLE platform_connections ADD CONSTRAINT platform_connections_status_check
      CHECK (status IN ('connected', 'disconnected'));
  `,
  );
}
