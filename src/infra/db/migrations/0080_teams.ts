import type { Kysely } from 'kysely';
import { runStatements } from '../statements.ts';

/**
 * Teams (docs/security.md, "Teams and invitations"; docs/adr/0182-teams-roles-one-permission-check.md):
 * a person's role in a workspace (`memberships`), invitations to join one by email (the token kept
 * only as its SHA-256), and the person who created an API key. A workspace's team size is counted
 * from its memberships, so the typed-in `workspaces.team_members` goes. A person reaches an agency's client
 * workspaces through the agency membership, so client workspaces carry no memberships of their own.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await runStatements(
    db,
    `CREATE TABLE memberships (
       workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
       person_id text NOT NULL REFERENCES people(id) ON DELETE CASCADE,
       role text NOT NULL CHECK (role IN ('owner', 'admin', 'member', 'viewer')),
       created_at timestamptz NOT NULL DEFAULT now(),
       PRIMARY KEY (workspace_id, person_id)
     );
     CREATE INDEX memberships_person ON memberships (person_id);
     CREATE TABLE invitations (
       id text PRIMARY KEY,
       workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
       email text NOT NULL CHECK (length(email) BETWEEN 3 AND 254),
       role text NOT NULL CHECK (role IN ('owner', 'admin', 'member', 'viewer')),
       token_hash bytea NOT NULL UNIQUE,
       invited_by text REFERENCES people(id) ON DELETE SET NULL,
       expires_at timestamptz NOT NULL,
       accepted_at timestamptz,
       accepted_by text REFERENCES people(id) ON DELETE SET NULL,
       revoked_at timestamptz,
       created_at timestamptz NOT NULL DEFAULT now(),
       CHECK (accepted_at IS NULL OR revoked_at IS NULL)
     );
     CREATE INDEX invitations_workspace ON invitations (workspace_id, created_at DESC);
     ALTER TABLE api_keys ADD COLUMN created_by_person_id text REFERENCES people(id) ON DELETE SET NULL;
     ALTER TABLE workspaces DROP COLUMN team_members;`,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runStatements(
    db,
    `ALTER TABLE workspaces ADD COLUMN team_members integer NOT NULL DEFAULT 1 CHECK (team_members >= 0);
     ALTER TABLE api_keys DROP COLUMN created_by_person_id;
     DROP TABLE invitations;
     DROP TABLE memberships;`,
  );
}
