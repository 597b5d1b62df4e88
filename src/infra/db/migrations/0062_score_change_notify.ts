import { sql, type Kysely } from 'kysely';
import { runStatements } from '../statements.ts';

/**
 * NOTIFY score_changed, <workspace id> from triggers on every table GET /v1/score reads, so each
 * service instance can drop its in-memory answers (src/scoring/score-cache.ts). A trigger sends it
 * in the transaction that writes the change, whoever writes it (audit completion, sync, import,
 * recompute, a workspace move or plan change, an operator's SQL): a committed change always
 * notifies, a rolled-back one never does. PostgreSQL folds identical notifications of one
 * transaction into one. The bulk tables notify once per statement from the transition table; a
 * statement touching more than 100 workspaces sends '*' (drop everything) instead of a flood.
 */
export async function up(db: Kysely<any>): Promise<void> {
  // Each function is one statement with inner semicolons, so it is sent whole.
  await sql
    .raw(
      `CREATE FUNCTION score_changed_row() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  -- TG_ARGV[0]: the column holding the workspace id (id on workspaces, workspace_id elsewhere).
  IF TG_OP <> 'DELETE' THEN
    PERFORM pg_notify('score_changed', to_jsonb(NEW) ->> TG_ARGV[0]);
  END IF;
  IF TG_OP <> 'INSERT' THEN
    PERFORM pg_notify('score_changed', to_jsonb(OLD) ->> TG_ARGV[0]);
  END IF;
  RETURN NULL;
END
$fn$`,
    )
    .execute(db);
  await sql
    .raw(
      `CREATE FUNCTION score_changed_rows() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE
  touched integer;
BEGIN
  SELECT count(DISTINCT workspace_id) INTO touched FROM changed_rows;
  IF touched > 100 THEN
    PERFORM pg_notify('score_changed', '*');
  ELSE
    PERFORM pg_notify('score_changed', w) FROM (SELECT DISTINCT workspace_id AS w FROM changed_rows) d;
  END IF;
  RETURN NULL;
END
$fn$`,
    )
    .execute(db);
  await runStatements(
    db,
    `
    CREATE TRIGGER score_changed_insert AFTER INSERT ON metric_snapshots
      REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION score_changed_rows();
    CREATE TRIGGER score_changed_update AFTER UPDATE ON metric_snapshots
      REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION score_changed_rows();
    CREATE TRIGGER score_changed_delete AFTER DELETE ON metric_snapshots
      REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION score_changed_rows();
    CREATE TRIGGER score_changed_insert AFTER INSERT ON daily_scores
      REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION score_changed_rows();
    CREATE TRIGGER score_changed_update AFTER UPDATE ON daily_scores
      REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION score_changed_rows();
    CREATE TRIGGER score_changed_delete AFTER DELETE ON daily_scores
      REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION score_changed_rows();
    -- Only completed audits are answered; an audit queued or running changes nothing.
    CREATE TRIGGER score_changed_insert AFTER INSERT ON audits
      FOR EACH ROW WHEN (NEW.status = 'completed') EXECUTE FUNCTION score_changed_row('workspace_id');
    CREATE TRIGGER score_changed_update AFTER UPDATE ON audits
      FOR EACH ROW WHEN (NEW.status = 'completed' OR OLD.status = 'completed')
      EXECUTE FUNCTION score_changed_row('workspace_id');
    CREATE TRIGGER score_changed_delete AFTER DELETE ON audits
      FOR EACH ROW WHEN (OLD.status = 'completed') EXECUTE FUNCTION score_changed_row('workspace_id');
    -- Which platforms are connected decides the real-time score; sync bookkeeping does not.
    CREATE TRIGGER score_changed_connect AFTER INSERT OR DELETE ON platform_connections
      FOR EACH ROW EXECUTE FUNCTION score_changed_row('workspace_id');
    CREATE TRIGGER score_changed_status AFTER UPDATE OF status ON platform_connections
      FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status)
      EXECUTE FUNCTION score_changed_row('workspace_id');
    -- Plan (tier), real-time scoring, the parent (who may see it) and deletion.
    CREATE TRIGGER score_changed_update AFTER UPDATE OF plan, realtime_scoring, parent_id ON workspaces
      FOR EACH ROW WHEN (OLD.plan IS DISTINCT FROM NEW.plan
        OR OLD.realtime_scoring IS DISTINCT FROM NEW.realtime_scoring
        OR OLD.parent_id IS DISTINCT FROM NEW.parent_id)
      EXECUTE FUNCTION score_changed_row('id');
    CREATE TRIGGER score_changed_delete AFTER DELETE ON workspaces
      FOR EACH ROW EXECUTE FUNCTION score_changed_row('id');
  `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runStatements(
    db,
    `
    DROP TRIGGER score_changed_delete ON workspaces;
    DROP TRIGGER score_changed_update ON workspaces;
    DROP TRIGGER score_changed_status ON platform_connections;
    DROP TRIGGER score_changed_connect ON platform_connections;
    DROP TRIGGER score_changed_delete ON audits;
    DROP TRIGGER score_changed_update ON audits;
    DROP TRIGGER score_changed_insert ON audits;
    DROP TRIGGER score_changed_delete ON daily_scores;
    DROP TRIGGER score_changed_update ON daily_scores;
    DROP TRIGGER score_changed_insert ON daily_scores;
    DROP TRIGGER score_changed_delete ON metric_snapshots;
    DROP TRIGGER score_changed_update ON metric_snapshots;
    DROP TRIGGER score_changed_insert ON metric_snapshots;
    DROP FUNCTION score_changed_rows();
    DROP FUNCTION score_changed_row();
  `,
  );
}
