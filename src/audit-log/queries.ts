import { sql, type Kysely } from 'kysely';
import type { DB } from '../infra/db/types.ts';
import { parseIsoInstant } from '../core/days.ts';
import { keyPrefix } from '../infra/auth/api-keys.ts';

/** The entry a page continues after: the last entry of the previous page (newest first). */
export interface AuditCursor {
  at: Date;
  id: string;
}

export function encodeCursor(c: AuditCursor): string {
  return Buffer.from(JSON.stringify([c.at.toISOString(), c.id])).toString('base64url');
}

/** The cursor of a `next_cursor`, or null when the text is not one. */
export function decodeCursor(raw: string): AuditCursor | null {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(raw)) return null;
  try {
    const v: unknown = JSON.parse(Buffer.from(raw, 'base64url').toString());
    if (!Array.isArray(v) || v.length !== 2) return null;
    const [at, id] = v as unknown[];
    const parsed = typeof at === 'string' ? parseIsoInstant(at) : null;
    if (parsed === null || typeof id !== 'string' || !/^alog_[0-9A-Z]{1,40}$/.test(id)) return null;
    return { at: parsed.instant, id };
  } catch {
    return null;
  }
}

export interface AuditFilter {
  /** The workspace whose log is read: the tenant boundary of every query here. */
  workspaceId: string;
  actions?: readonly string[];
  /** A person id or an API key id. */
  actor?: string;
  target?: string;
  /** Entries at or after. */
  since?: Date;
  /** Entries strictly before. */
  before?: Date;
}

export interface AuditRow {
  id: string;
  at: Date;
  action: string;
  actor_person_id: string | null;
  actor_key_id: string | null;
  actor_email: string | null;
  actor_key_name: string | null;
  actor_key_prefix: string | null;
  target: string | null;
  detail: string | null;
  address: string | null;
}

/**
 * One page of a workspace's audit log, newest first (at, then id, descending: a stable order, so a
 * page continues exactly where the last ended even when entries share an instant). `limit + 1` rows
 * are read to tell whether there is more.
 */
export async function auditPage(
  db: Kysely<DB>,
  filter: AuditFilter,
  page: { limit: number; after?: AuditCursor },
): Promise<{ rows: AuditRow[]; hasMore: boolean }> {
  let q = db
    .selectFrom('audit_log as l')
    .leftJoin('people as p', 'p.id', 'l.actor_person_id')
    .leftJoin('api_keys as k', 'k.id', 'l.actor_key_id')
    .select([
      'l.id',
      'l.at',
      'l.action',
      'l.actor_person_id',
      'l.actor_key_id',
      'p.email as actor_email',
      'k.name as actor_key_name',
      'k.id as actor_key_row',
      'k.mode as actor_key_mode',
      'l.target',
      'l.detail',
      'l.address',
    ])
    .where('l.workspace_id', '=', filter.workspaceId);
  if (filter.actions && filter.actions.length > 0) q = q.where('l.action', 'in', [...filter.actions]);
  if (filter.actor !== undefined) {
    const actor = filter.actor;
    q = q.where((eb) => eb.or([eb('l.actor_person_id', '=', actor), eb('l.actor_key_id', '=', actor)]));
  }
  if (filter.target !== undefined) q = q.where('l.target', '=', filter.target);
  if (filter.since) q = q.where('l.at', '>=', filter.since);
  if (filter.before) q = q.where('l.at', '<', filter.before);
  const after = page.after;
  if (after) q = q.where(sql<boolean>`(l.at, l.id) < (${after.at}::timestamptz, ${after.id})`);
  const rows = await q
    .orderBy('l.at', 'desc')
    .orderBy('l.id', 'desc')
    .limit(page.limit + 1)
    .execute();
  return {
    hasMore: rows.length > page.limit,
    rows: rows.slice(0, page.limit).map((r) => ({
      id: r.id,
      at: new Date(r.at),
      action: r.action,
      actor_person_id: r.actor_person_id,
      actor_key_id: r.actor_key_id,
      actor_email: r.actor_email,
      actor_key_name: r.actor_key_name,
      actor_key_prefix: r.actor_key_row ? keyPrefix(r.actor_key_row, r.actor_key_mode ?? 'live') : null,
      target: r.target,
      detail: r.detail,
      address: r.address,
    })),
  };
}

/** Deletes audit-log entries older than `days` days (AUDIT_LOG_RETENTION_DAYS); returns how many. */
export async function purgeAuditLog(db: Kysely<DB>, now: Date, days: number): Promise<number> {
  const result = await db
    .deleteFrom('audit_log')
    .where('at', '<', new Date(now.getTime() - days * 86_400_000))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
