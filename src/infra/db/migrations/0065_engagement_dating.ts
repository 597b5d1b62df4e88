import type { Kysely } from 'kysely';
import { runStatements } from '../statements.ts';

/**
 * How a snapshot dates its engagement: 'day' when counted on the day it happens, 'post' when each
 * post's lifetime totals are booked on its publication day, as the Instagram and Facebook
 * connectors must (the Graph API gives a post's totals, not its days). Formula v2 spreads post-dated
 * engagement over each post's interval and does not run its pod regression on it
 * (docs/scoring.md, "Engagement dated on the post day"). Existing rows those connectors wrote are
 * post-dated; every other row was counted by day.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await runStatements(
    db,
    `ALTER TABLE metric_snapshots
       ADD COLUMN engagement_dating text NOT NULL DEFAULT 'day'
         CHECK (engagement_dating IN ('day', 'post'));
     UPDATE metric_snapshots SET engagement_dating = 'post'
       WHERE source = 'connector' AND platform IN ('instagram', 'facebook');`,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runStatements(db, `ALTER TABLE metric_snapshots DROP COLUMN engagement_dating;`);
}
