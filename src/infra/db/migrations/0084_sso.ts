import type { Kysely } from 'kysely';
import { runStatements } from '../statements.ts';

/**
 * Single sign-on through OpenID Connect (docs/security.md, "Single sign-on"; docs/adr/0192-oidc-single-sign-on.md):
 * a workspace's identity provider (`sso_settings`, the client secret sealed by the key ring, bound to
 * its row), the sign-in attempts in flight (`sso_attempts`: state and browser binding kept as their
 * SHA-256, the PKCE verifier sealed, single use, ten minutes), and which provider identity (issuer and
 * subject) is which person (`sso_identities`), so an identity provider can only ever sign in the people
 * it created or that linked themselves to it while signed in.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await runStatements(
    db,
    `CREATE TABLE sso_settings (
       workspace_id text PRIMARY KEY REFERENCES workspaces(id) ON DELETE CASCADE,
       issuer text NOT NULL CHECK (length(issuer) BETWEEN 8 AND 500),
       client_id text NOT NULL CHECK (length(client_id) BETWEEN 1 AND 500),
       client_secret text NOT NULL,
       client_secret_key_id text NOT NULL,
       allowed_domains text[] NOT NULL,
       default_role text NOT NULL CHECK (default_role IN ('admin', 'member', 'viewer')),
       enabled boolean NOT NULL DEFAULT true,
       updated_at timestamptz NOT NULL DEFAULT now()
     );
     CREATE TABLE sso_attempts (
       state_hash text PRIMARY KEY,
       binding_hash text NOT NULL,
       workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
       nonce text NOT NULL,
       code_verifier text NOT NULL,
       code_verifier_key_id text NOT NULL,
       redirect_uri text NOT NULL,
       return_path text NOT NULL,
       link_person_id text REFERENCES people(id) ON DELETE CASCADE,
       created_at timestamptz NOT NULL,
       expires_at timestamptz NOT NULL,
       used_at timestamptz
     );
     CREATE INDEX sso_attempts_expiry ON sso_attempts (expires_at);
     CREATE TABLE sso_identities (
       issuer text NOT NULL,
       subject text NOT NULL,
       person_id text NOT NULL REFERENCES people(id) ON DELETE CASCADE,
       workspace_id text REFERENCES workspaces(id) ON DELETE SET NULL,
       created_at timestamptz NOT NULL DEFAULT now(),
       PRIMARY KEY (issuer, subject)
     );
     CREATE INDEX sso_identities_person ON sso_identities (person_id);`,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runStatements(
    db,
    `DROP TABLE sso_identities;
     DROP TABLE sso_attempts;
     DROP TABLE sso_settings;`,
  );
}
