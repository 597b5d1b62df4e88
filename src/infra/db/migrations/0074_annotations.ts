import type { Kysely } from 'kysely';
import { runStatements } from '../statements.ts';

/** Notes on a workspace's timeline (docs/annotations in docs/api.md): one day, a text, a category, an author. */
export async function up(db: Kysely<any>): Promise<void> {
  await runStatements(
    db,
    `CREATE TABLE annotations (
       id text PRIMARY KEY,
       workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
       day date NOT NULL,
       text text NOT NULL CHECK (length(text) BETWEEN 1 AND 500),
       category text NOT NULL CHECK (category IN ('note', 'launch', 'campaign', 'crisis', 'press', 'other')),
       author text,
       created_at timestamptz NOT NULL DEFAULT now()
     );
     CREATE INDEX annotations_workspace_day ON annotations (workspace_id, day);`,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runStatements(db, `DROP TABLE annotations;`);
}
