// The timeline beside a score history and in reports: the workspace's notes and the events the service
// knows of. Each domain puts its own entries on it from its own tables (DomainModule.timeline: audits
// completed, campaign phases begun, platform connections made and ended, crises the alerts saw); this
// module puts them together and adds the notes, the annotations domain's own.
import type { Timeline, TimedEntry, TimelineRange, TimelineSource } from './timeline-types.ts';
import { dayStart, utcDay } from '../core/days.ts';
import * as q from './queries.ts';
import type { ANNOTATION_CATEGORIES, TimelineEntry } from './schemas.ts';

export type { Timeline, TimelineEntry };
type Category = (typeof ANNOTATION_CATEGORIES)[number];

/** The timeline of the given sources (every domain's, from the DOMAINS registry: service.ts). */
export function timelineOf(sources: readonly TimelineSource[]): Timeline {
  return async (db, workspaceId, fromDay, toDay) => {
    const range: TimelineRange = { fromDay, toDay, from: dayStart(fromDay), to: dayStart(toDay, 1) };
    const timed = (await Promise.all(sources.map((source) => source(db, workspaceId, range)))).flat();
    return timed
      .sort((a, b) =>
        a.entry.day < b.entry.day ? -1 : a.entry.day > b.entry.day ? 1 : a.at.getTime() - b.at.getTime(),
      )
      .map((t) => t.entry);
  };
}

/**
 * An event the service knows of, dated by the UTC day it happened; null when it happened outside the
 * range (a source may read a little wider than the range, as a connection's two instants do).
 */
export function serviceEntry(
  range: TimelineRange,
  at: Date,
  entry: Omit<TimelineEntry, 'day' | 'author' | 'source'>,
): TimedEntry | null {
  if (at < range.from || at >= range.to) return null;
  return { at, entry: { day: utcDay(at), ...entry, author: null, source: 'service' } };
}

/** The annotations domain's entries: the workspace's notes in the range, each on its own day. */
export const notesOnTimeline: TimelineSource = async (db, workspaceId, range) =>
  (await q.listAnnotations(db, workspaceId, range.fromDay, range.toDay)).map((n) => ({
    at: n.created_at,
    entry: {
      day: n.day,
      text: n.text,
      category: n.category as Category,
      author: n.author,
      source: 'user',
      kind: 'note',
      ref: n.id,
    },
  }));
