// The types of a workspace's timeline, shared by the domains that put entries on it
// (DomainModule.timeline), the context that carries it and src/annotations/timeline.ts that assembles it.
import type { Kysely } from 'kysely';
import type { DB } from '../infra/db/types.ts';
import type { TimelineEntry } from './schemas.ts';

export type { TimelineEntry };

/** The days a timeline covers: [fromDay, toDay] inclusive, as instants [from, to). */
export interface TimelineRange {
  fromDay: string;
  toDay: string;
  from: Date;
  to: Date;
}

/** A timeline entry and when it happened (entries on one day are ordered by it). */
export interface TimedEntry {
  at: Date;
  entry: TimelineEntry;
}

/**
 * What a domain puts on a workspace's timeline (src/annotations/timeline.ts: notes, audits, campaign
 * phases, connections, crises), read from its own tables. The caller has checked the workspace is the
 * reader's; the source applies its own visibility rules (an audit whose creator no longer manages it).
 */
export type TimelineSource = (
  db: Kysely<DB>,
  workspaceId: string,
  range: TimelineRange,
) => Promise<TimedEntry[]>;

/** A workspace's timeline between two days (inclusive), by day, then by when each entry happened. */
export type Timeline = (
  db: Kysely<DB>,
  workspaceId: string,
  fromDay: string,
  toDay: string,
) => Promise<TimelineEntry[]>;
