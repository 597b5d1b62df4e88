import type { Kysely } from 'kysely';
import { runStatements } from '../statements.ts';

/**
 * Who made a campaign or started an audit (the key owner's workspace): an agency's work on a client
 * stays the agency's when the client moves to another agency
 * (docs/adr/0002-agency-moves-whose-work-is-what.md).
 * NULL means the workspace's own (rows made by the system, such as the sandbox seed). Rows from
 * before this migration are attributed to the client's agency at the time, when it has one: the
 * reading that leaks nothing to a later agency.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await runStatements(
    db,
    `
    ALTER TABLE campaigns ADD COLUMN created_by text REFERENCES workspaces(id) ON DELETE CASCADE;
    ALTER TABLE audits ADD COLUMN created_by text REFERENCES workspaces(id) ON DELETE CASCADE;
    UPDATE campaigns c SET created_by = w.parent_id FROM workspaces w WHERE w.id = c.workspace_id AND w.parent_id IS NOT NULL;
    UPDATE audits a SET created_by = w.parent_id FROM workspaces w WHERE w.id = a.workspace_id AND w.parent_id IS NOT NULL;
    CREATE INDEX campaigns_created_by_idx ON campaigns (created_by) WHERE created_by IS NOT NULL;
    CREATE INDEX audits_created_by_idx ON audits (created_by) WHERE created_by IS NOT NULL;
  `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runStatements(
    db,
    `
    DROP INDEX audits_created_by_idx;
    DROP INDEX campaigns_created_by_idx;
    ALTER TABLE audits DROP COLUMN created_by;
    ALTER TABLE campaigns DROP COLUMN created_by;
  `,
  );
}
