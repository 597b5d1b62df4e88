import { addDays } from '../../core/days.ts';
import { EARLY_COMMENT_MINUTES, REPEAT_COMMENTER_POSTS } from '../../core/metric-snapshot.ts';
import { COMMENT_WINDOW_DAYS, platformInstant } from './daybook.ts';
import type { PostComments } from './types.ts';

/**
 * Who wrote a post's comments and when, for engagement pods (docs/scoring.md, "Formula v3:
 * authenticity"). A pod's members comment on every post of each other's accounts, within minutes of
 * it going up, to lift it in the feed: the share of a post's comments by the same few accounts and
 * the share written in its first hour rise against the account's own history. The commenters' ids are
 * only compared here, in memory, and never stored.
 */

export interface AuthoredComment {
  /** The platform's id of the commenter (Instagram: `from.id`); null when not given or the account's own. */
  author: string | null;
  /** The comment's timestamp as the platform wrote it. */
  timestamp: unknown;
}

export interface AuthoredPost {
  id: string;
  /** UTC day of the post. */
  day: string;
  /** The post's timestamp as the platform wrote it. */
  timestamp: unknown;
  comments: readonly AuthoredComment[];
}

type Authors = Required<Pick<PostComments, 'attributed' | 'repeat' | 'early'>>;

/**
 * For each post of day `from` or later: its comments with an author and a readable time (`attributed`),
 * of those the ones whose author commented on at least REPEAT_COMMENTER_POSTS of the posts of the
 * COMMENT_WINDOW_DAYS days up to the post's day (itself included), and the ones written within
 * EARLY_COMMENT_MINUTES of it. `posts` must hold every post of the COMMENT_WINDOW_DAYS - 1 days before
 * `from` too (a sync reads them for their comments), so every post's window is whole and a figure means
 * the same whichever sync wrote it. Earlier posts get none: their stored figures stand.
 */
export function commentAuthors(posts: readonly AuthoredPost[], from: string): Map<string, Authors> {
  const readable = posts.map((p) => ({
    p,
    comments: p.comments.filter(
      (c): c is { author: string; timestamp: unknown } =>
        typeof c.author === 'string' && c.author !== '' && platformInstant(c.timestamp) !== null,
    ),
  }));
  // Each commenter's posts, by day.
  const daysBy = new Map<string, Map<string, string>>();
  for (const { p, comments } of readable)
    for (const c of comments) {
      const seen = daysBy.get(c.author) ?? new Map<string, string>();
      seen.set(p.id, p.day);
      daysBy.set(c.author, seen);
    }
  const out = new Map<string, Authors>();
  for (const { p, comments } of readable) {
    if (p.day < from) continue;
    const windowStart = addDays(p.day, -(COMMENT_WINDOW_DAYS - 1));
    const at = platformInstant(p.timestamp)?.getTime() ?? null;
    let repeat = 0;
    let early = 0;
    for (const c of comments) {
      let posts = 0;
      for (const day of daysBy.get(c.author)!.values()) if (day >= windowStart && day <= p.day) posts++;
      if (posts >= REPEAT_COMMENTER_POSTS) repeat++;
      const written = platformInstant(c.timestamp)!.getTime();
      if (at !== null && written >= at && written - at <= EARLY_COMMENT_MINUTES * 60_000) early++;
    }
    out.set(p.id, { attributed: comments.length, repeat, early });
  }
  return out;
}
