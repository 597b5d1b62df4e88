import type { Kysely } from 'kysely';
import { runStatements } from '../statements.ts';

/**
 * The audit log of security-relevant actions: who (a person or a key), from which address, when,
 * what and on what. Rows are only inserted (and deleted by retention), never updated: a trigger
 * refuses UPDATE (docs/security.md "Audit log").
 */
export async function up(db: Kysely<any>): Promise<void> {
  await runStatements(
    db,
    `CREATE TABLE audit_log (
       id text PRIMARY KEY,
       at timestamptz NOT NULL,
       workspace_id text,
       actor_person_id text,
       actor_key_id text,
       action text NOT NULL,
       target text,
       address text
     );
     CREATE INDEX audit_log_workspace_at ON audit_log (workspace_id, at DESC, id DESC);
     CREATE INDEX audit_log_at ON audit_log (at);
     CREATE FUNCTION audit_log_no_update() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'audit_log rows are never updated'; END $$;
     CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log
       FOR EACH ROW EXECUTE FUNCTION audit_log_no_update();`,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runStatements(
    db,
    `DROP TABLE audit_log;
     DROP FUNCTION audit_log_no_update();`,
  );
}
