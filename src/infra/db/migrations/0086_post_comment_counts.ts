import type { Kysely } from 'kysely';
import { runStatements } from '../statements.ts';

/**
 * Each post's comment count as the syncs read it (docs/scoring.md, "Formula v3: authenticity"): the
 * highest count seen and the latest, so a fall between syncs (comments deleted) can be booked on the
 * post's day as `metric_snapshots.comments_deleted`. Only counts: no comment, text or commenter.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await runStatements(
    db,
    `CREATE TABLE post_comment_counts (
       workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
       platform text NOT NULL,
       post_id text NOT NULL CHECK (length(post_id) BETWEEN 1 AND 200),
       post_day date NOT NULL,
       max_seen bigint NOT NULL CHECK (max_seen >= 0),
       last_seen bigint NOT NULL CHECK (last_seen >= 0 AND last_seen <= max_seen),
       updated_at timestamptz NOT NULL,
       PRIMARY KEY (workspace_id, platform, post_id)
     );
     CREATE INDEX post_comment_counts_day ON post_comment_counts (workspace_id, platform, post_day);`,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runStatements(db, `DROP TABLE post_comment_counts;`);
}
