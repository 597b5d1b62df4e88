import type { Kysely } from 'kysely';
import { runStatements } from '../statements.ts';

/**
 * People (one account per email address), their browser sessions and the single-use email tokens
 * (address verification, password reset). Session ids and tokens are stored only as SHA-256
 * hashes: a database leak yields no usable cookie or link (docs/security.md).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await runStatements(
    db,
    `CREATE TABLE people (
       id text PRIMARY KEY,
       email text NOT NULL,
       name text NOT NULL,
       password_hash text,
       email_verified_at timestamptz,
       created_at timestamptz NOT NULL DEFAULT now()
     );
     CREATE UNIQUE INDEX people_email_unique ON people (lower(email));
     CREATE TABLE sessions (
       id_hash bytea PRIMARY KEY,
       person_id text NOT NULL REFERENCES people(id) ON DELETE CASCADE,
       csrf_token text NOT NULL,
       created_at timestamptz NOT NULL DEFAULT now(),
       last_seen_at timestamptz NOT NULL,
       expires_at timestamptz NOT NULL,
       address text NOT NULL
     );
     CREATE INDEX sessions_person ON sessions (person_id);
     CREATE TABLE person_tokens (
       token_hash bytea PRIMARY KEY,
       person_id text NOT NULL REFERENCES people(id) ON DELETE CASCADE,
       purpose text NOT NULL CHECK (purpose IN ('verify_email', 'reset_password')),
       expires_at timestamptz NOT NULL,
       used_at timestamptz,
       created_at timestamptz NOT NULL DEFAULT now()
     );
     CREATE INDEX person_tokens_person ON person_tokens (person_id, purpose);`,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runStatements(
    db,
    `DROP TABLE person_tokens;
     DROP TABLE sessions;
     DROP TABLE people;`,
  );
}
