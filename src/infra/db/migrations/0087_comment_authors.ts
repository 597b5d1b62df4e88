import type { Kysely } from 'kysely';
import { runStatements } from '../statements.ts';

/**
 * Who wrote a day's post comments and when (docs/scoring.md, "Formula v3: authenticity"): of the
 * comments whose author and time were read, those by an account that comments on many of the
 * account's posts and those written within an hour of their post. Counts only: no commenter is
 * stored. Existing rows read none: 0.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await runStatements(
    db,
    `ALTER TABLE metric_snapshots
       ADD COLUMN comments_attributed bigint NOT NULL DEFAULT 0 CHECK (comments_attributed >= 0),
       ADD COLUMN comments_repeat bigint NOT NULL DEFAULT 0 CHECK (comments_repeat >= 0),
       ADD COLUMN comments_early bigint NOT NULL DEFAULT 0 CHECK (comments_early >= 0),
       ADD CONSTRAINT metric_snapshots_comment_authors
         CHECK (comments_repeat <= comments_attributed AND comments_early <= comments_attributed);`,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runStatements(
    db,
    `ALTER TABLE metric_snapshots
       DROP CONSTRAINT metric_snapshots_comment_authors,
       DROP COLUMN comments_attributed,
       DROP COLUMN comments_repeat,
       DROP COLUMN comments_early;`,
  );
}
