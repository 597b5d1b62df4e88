import { sql, type Kysely } from 'kysely';
import { runStatements } from '../statements.ts';

/**
 * NOTIFY export_changed, <workspace id> for every write GET /v1/export/scores reads, so each service
 * instance can drop its cached pages (src/exports/export-cache.ts). A page belongs to a key owner and
 * covers the owner and its clients (parent_id = owner): a change to workspace W notifies W and W's
 * parent, the two owners whose pages can show it. Sent in the writing transaction, whoever writes (as
 * migration 0062 does for the score): score_log rows, and a workspace's name, parent (who is a client,
 * hence clientCount), creation under a parent and deletion. A statement touching more than 100
 * workspaces' score logs sends '*' (drop everything) instead of a flood.
 */
export async function up(db: Kysely<any>): Promise<void> {
  // Each function is one statement with inner semicolons, so it is sent whole.
  await sql
    .raw(
      `CREATE FUNCTION export_changed_rows() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE
  touched integer;
BEGIN
  SELECT count(DISTINCT workspace_id) INTO touched FROM changed_rows;
  IF touched > 100 THEN
    PERFORM pg_notify('export_changed', '*');
  ELSE
    -- A deleted workspace's rows go with it (ON DELETE CASCADE): its parent is notified by the
    -- workspace's own trigger.
    PERFORM pg_notify('export_changed', o) FROM (
      SELECT workspace_id AS o FROM changed_rows
      UNION
      SELECT w.parent_id FROM workspaces w
      WHERE w.id IN (SELECT workspace_id FROM changed_rows) AND w.parent_id IS NOT NULL
    ) owners;
  END IF;
  RETURN NULL;
END
$fn$`,
    )
    .execute(db);
  await sql
    .raw(
      `CREATE FUNCTION export_changed_workspace() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_OP <> 'DELETE' THEN
    PERFORM pg_notify('export_changed', NEW.id);
    IF NEW.parent_id IS NOT NULL THEN
      PERFORM pg_notify('export_changed', NEW.parent_id);
    END IF;
  END IF;
  IF TG_OP <> 'INSERT' THEN
    PERFORM pg_notify('export_changed', OLD.id);
    IF OLD.parent_id IS NOT NULL THEN
      PERFORM pg_notify('export_changed', OLD.parent_id);
    END IF;
  END IF;
  RETURN NULL;
END
$fn$`,
    )
    .execute(db);
  await runStatements(
    db,
    `
    CREATE TRIGGER export_changed_insert AFTER INSERT ON score_log
      REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION export_changed_rows();
    CREATE TRIGGER export_changed_update AFTER UPDATE ON score_log
      REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION export_changed_rows();
    CREATE TRIGGER export_changed_delete AFTER DELETE ON score_log
      REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION export_changed_rows();
    -- A workspace without a parent has no page yet (its own is a 404 until it exists): only clients.
    CREATE TRIGGER export_changed_insert AFTER INSERT ON workspaces
      FOR EACH ROW WHEN (NEW.parent_id IS NOT NULL) EXECUTE FUNCTION export_changed_workspace();
    CREATE TRIGGER export_changed_update AFTER UPDATE OF name, parent_id ON workspaces
      FOR EACH ROW WHEN (OLD.name IS DISTINCT FROM NEW.name OR OLD.parent_id IS DISTINCT FROM NEW.parent_id)
      EXECUTE FUNCTION export_changed_workspace();
    CREATE TRIGGER export_changed_delete AFTER DELETE ON workspaces
      FOR EACH ROW EXECUTE FUNCTION export_changed_workspace();
  `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runStatements(
    db,
    `
    DROP TRIGGER export_changed_delete ON workspaces;
    DROP TRIGGER export_changed_update ON workspaces;
    DROP TRIGGER export_changed_insert ON workspaces;
    DROP TRIGGER export_changed_delete ON score_log;
    DROP TRIGGER export_changed_update ON score_log;
    DROP TRIGGER export_changed_insert ON score_log;
    DROP FUNCTION export_changed_workspace();
    DROP FUNCTION export_changed_rows();
  `,
  );
}
