// The timeline beside a score history: the workspace's notes and the events the service knows of
// (completed audits, campaign phases begun, platform connections made and ended, crises the alerts
// saw), each read through the query functions of the domain that owns it.
import type { Kysely } from 'kysely';
import type { Static } from 'typebox';
import type { DB } from '../infra/db/types.ts';
import { dayStart, utcDay } from '../core/days.ts';
import { completedAuditsBetween } from '../audits/read.ts';
import { connectionChangesBetween } from '../platforms/queries.ts';
import { crisisEpisodesBetween } from '../alerts/queries.ts';
import { phaseStartsBetween } from '../campaigns/queries.ts';
import * as q from './queries.ts';
import type { ANNOTATION_CATEGORIES, TimelineAnnotation } from './schemas.ts';

export type TimelineEntry = Static<typeof TimelineAnnotation>;
type Category = (typeof ANNOTATION_CATEGORIES)[number];

/** Most completed audits one timeline shows (the oldest first). */
export const MAX_TIMELINE_AUDITS = 1000;

/**
 * The timeline of one workspace between two days (inclusive), by day, then by when it happened. The
 * caller has checked the workspace is the key's to read (scoreHistory resolves it).
 */
export async function timelineBetween(
  db: Kysely<DB>,
  workspaceId: string,
  fromDay: string,
  toDay: string,
): Promise<TimelineEntry[]> {
  const from = dayStart(fromDay);
  const to = dayStart(toDay, 1);
  const [notes, audits, phases, connections, crises] = await Promise.all([
    q.listAnnotations(db, workspaceId, fromDay, toDay),
    completedAuditsBetween(db, workspaceId, from, to, MAX_TIMELINE_AUDITS),
    phaseStartsBetween(db, workspaceId, fromDay, toDay),
    connectionChangesBetween(db, workspaceId, from, to),
    crisisEpisodesBetween(db, workspaceId, from, to),
  ]);
  const timed: Array<{ at: number; entry: TimelineEntry }> = [];
  const service = (at: Date, entry: Omit<TimelineEntry, 'day' | 'author' | 'source'>) => {
    if (at >= from && at < to) {
      timed.push({ at: at.getTime(), entry: { day: utcDay(at), ...entry, author: null, source: 'service' } });
    }
  };
  for (const n of notes) {
    timed.push({
      at: n.created_at.getTime(),
      entry: {
        day: n.day,
        text: n.text,
        category: n.category as Category,
        author: n.author,
        source: 'user',
        kind: 'note',
        ref: n.id,
      },
    });
  }
  for (const a of audits) {
    const grade = a.grade ? ` (${a.grade})` : '';
    service(new Date(a.completed_at), {
      text: `Audit completed: score ${a.score.toFixed(1)}${grade}`,
      category: 'other',
      kind: 'audit_completed',
      ref: a.audit_id,
    });
  }
  for (const p of phases) {
    service(dayStart(p.day), {
      text: `Campaign "${p.campaignName}": ${p.phaseName} phase began`,
      category: 'campaign',
      kind: 'campaign_phase_started',
      ref: p.campaignId,
    });
  }
  for (const c of connections) {
    const what = { category: 'other' as const, ref: null };
    service(c.connected_at, {
      text: `${c.platform} connected (${c.handle})`,
      kind: 'platform_connected',
      ...what,
    });
    if (c.disconnected_at) {
      service(c.disconnected_at, {
        text: `${c.platform} disconnected (${c.handle})`,
        kind: 'platform_disconnected',
        ...what,
      });
    }
  }
  // Several crisis rules open episodes on one crisis: one entry per day and kind.
  const seen = new Set<string>();
  const crisis = (at: Date, entry: Omit<TimelineEntry, 'day' | 'author' | 'source' | 'category'>) => {
    const key = `${entry.kind} ${utcDay(at)}`;
    if (seen.has(key)) return;
    seen.add(key);
    service(at, { ...entry, category: 'crisis' });
  };
  for (const e of crises) {
    crisis(e.triggered_at, { text: `Crisis started: ${e.summary}`, kind: 'crisis_started', ref: e.id });
    if (e.resolved_at) crisis(e.resolved_at, { text: 'Crisis ended', kind: 'crisis_ended', ref: e.id });
  }
  return timed
    .sort((a, b) => (a.entry.day < b.entry.day ? -1 : a.entry.day > b.entry.day ? 1 : a.at - b.at))
    .map((t) => t.entry);
}
