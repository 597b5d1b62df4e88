import { sql, type Transaction } from 'kysely';
import type { Platform } from '../core/catalog.ts';
import type { DB } from '../infra/db/types.ts';
import type { PostComments } from './connectors/types.ts';
import type { SnapshotRow } from './store.ts';

/** Posts per upsert statement (7 parameters a post, far below PostgreSQL's 65,535). */
const BATCH = 1000;

/**
 * What the posts' comments say beyond their texts (docs/scoring.md, "Formula v3: authenticity"), set on
 * the days of the posts a sync read:
 * - Comments deleted. Each post's lifetime comment count is kept as the highest seen and the latest
 *   (post_comment_counts); a post whose count is now below its highest has had comments deleted, and
 *   the day's `comments_deleted` is the sum over the day's posts read by this sync of (highest - latest).
 *   Recomputed on every sync, not added up: the same deletion is booked once however many syncs see it,
 *   and comments written again after it cancel it.
 * - Who wrote them and when (`comments_attributed`, `comments_repeat`, `comments_early`): the sums over
 *   the day's posts of what the connector counted (comment-authors.ts), on days whose posts it gave
 *   them for; recomputed on every sync like the deletions (a post's comments keep coming).
 * Sets the figures on `rows` (the sync's snapshot rows) for their days, and on the stored rows of
 * earlier post days the sync read posts of (their comments lowered by what is newly deleted; a post is
 * read for its comments for COMMENT_WINDOW_DAYS); returns the stored days whose figures changed, to be
 * rescored.
 */
export async function bookPostComments(
  trx: Transaction<DB>,
  workspaceId: string,
  platform: Platform,
  posts: readonly PostComments[],
  rows: SnapshotRow[],
  now: Date,
): Promise<string[]> {
  const latest = new Map<string, PostComments>();
  for (const p of posts) latest.set(p.id, p);
  if (latest.size === 0) return [];
  const deleted = new Map<string, number>();
  const all = [...latest.values()];
  for (let i = 0; i < all.length; i += BATCH) {
    const stored = await trx
      .insertInto('post_comment_counts')
      .values(
        all.slice(i, i + BATCH).map((p) => ({
          workspace_id: workspaceId,
          platform,
          post_id: p.id,
          post_day: p.day,
          max_seen: p.comments,
          last_seen: p.comments,
          updated_at: now,
        })),
      )
      .onConflict((oc) =>
        oc.columns(['workspace_id', 'platform', 'post_id']).doUpdateSet((eb) => ({
          max_seen: sql<number>`GREATEST(post_comment_counts.max_seen, excluded.max_seen)`,
          last_seen: eb.ref('excluded.last_seen'),
          post_day: eb.ref('excluded.post_day'),
          updated_at: eb.ref('excluded.updated_at'),
        })),
      )
      .returning(['post_day', 'max_seen', 'last_seen'])
      .execute();
    for (const s of stored) {
      const gone = Number(s.max_seen) - Number(s.last_seen);
      if (gone > 0) deleted.set(String(s.post_day), (deleted.get(String(s.post_day)) ?? 0) + gone);
    }
  }
  const authored = new Map<string, { attributed: number; repeat: number; early: number }>();
  for (const p of all) {
    if (p.attributed === undefined) continue;
    const a = authored.get(p.day) ?? { attributed: 0, repeat: 0, early: 0 };
    a.attributed += p.attributed;
    a.repeat += p.repeat ?? 0;
    a.early += p.early ?? 0;
    authored.set(p.day, a);
  }
  const inRows = new Set<string>();
  for (const row of rows) {
    const day = String(row.day);
    inRows.add(day);
    row.comments_deleted = deleted.get(day) ?? 0;
    const a = authored.get(day);
    if (a) {
      row.comments_attributed = a.attributed;
      row.comments_repeat = a.repeat;
      row.comments_early = a.early;
    }
  }
  // Earlier post days: their stored rows take the figures (only where they change), in one statement.
  const earlier = [...new Set(all.map((p) => p.day))].filter((d) => !inRows.has(d));
  if (earlier.length === 0) return [];
  const figures = sql.join(
    earlier.map((day) => {
      const a = authored.get(day);
      return sql`(${day}::date, ${deleted.get(day) ?? 0}::bigint, ${a !== undefined}::boolean,
        ${a?.attributed ?? 0}::bigint, ${a?.repeat ?? 0}::bigint, ${a?.early ?? 0}::bigint)`;
    }),
  );
  // The stored count was read before the deletion: it falls by what is newly deleted, so the day's
  // comments plus deleted stay the comments it had (as on a day read again). Authors are set where
  // this sync read them.
  const updated = await sql<{ day: string }>`
    UPDATE metric_snapshots AS s
       SET comments = GREATEST(0, s.comments - (f.figure - s.comments_deleted)), comments_deleted = f.figure,
           comments_attributed = CASE WHEN f.authored THEN f.attributed ELSE s.comments_attributed END,
           comments_repeat = CASE WHEN f.authored THEN f.repeat ELSE s.comments_repeat END,
           comments_early = CASE WHEN f.authored THEN f.early ELSE s.comments_early END
      FROM (VALUES ${figures}) AS f(day, figure, authored, attributed, repeat, early)
     WHERE s.workspace_id = ${workspaceId} AND s.platform = ${platform} AND s.day = f.day
       AND (s.comments_deleted <> f.figure
            OR (f.authored AND (s.comments_attributed, s.comments_repeat, s.comments_early)
                               IS DISTINCT FROM (f.attributed, f.repeat, f.early)))
    RETURNING s.day::text AS day`.execute(trx);
  return updated.rows.map((r) => r.day);
}
