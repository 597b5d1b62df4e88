import type { Kysely } from 'kysely';
import { runStatements } from '../statements.ts';

/**
 * Passkeys (docs/security.md, "Passkeys"): a person's WebAuthn credentials (the public key and the
 * authenticator's signature counter, never a secret) and the pending WebAuthn challenges. A challenge
 * is kept server-side, used once, and lives a few minutes: a registration challenge belongs to the
 * session that asked for it (it goes when the session does), a sign-in challenge to the random id
 * handed out with it (its SHA-256 is the key, like session ids).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await runStatements(
    db,
    `CREATE TABLE passkeys (
       id text PRIMARY KEY,
       person_id text NOT NULL REFERENCES people(id) ON DELETE CASCADE,
       credential_id text NOT NULL UNIQUE CHECK (length(credential_id) BETWEEN 1 AND 1366),
       public_key bytea NOT NULL,
       counter bigint NOT NULL DEFAULT 0 CHECK (counter >= 0),
       transports text[] NOT NULL DEFAULT '{}',
       aaguid text,
       name text NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
       created_at timestamptz NOT NULL DEFAULT now(),
       last_used_at timestamptz
     );
     CREATE INDEX passkeys_person ON passkeys (person_id, created_at);
     CREATE TABLE webauthn_challenges (
       id_hash bytea PRIMARY KEY,
       purpose text NOT NULL CHECK (purpose IN ('register', 'sign_in')),
       challenge text NOT NULL,
       session_hash bytea REFERENCES sessions(id_hash) ON DELETE CASCADE,
       rp_id text NOT NULL,
       origin text NOT NULL,
       expires_at timestamptz NOT NULL,
       created_at timestamptz NOT NULL DEFAULT now(),
       CHECK ((purpose = 'register') = (session_hash IS NOT NULL))
     );
     CREATE INDEX webauthn_challenges_session ON webauthn_challenges (session_hash);
     CREATE INDEX webauthn_challenges_expiry ON webauthn_challenges (expires_at);`,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runStatements(
    db,
    `DROP TABLE webauthn_challenges;
     DROP TABLE passkeys;`,
  );
}
