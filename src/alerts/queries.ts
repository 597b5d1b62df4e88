import { sql, type Kysely, type Transaction } from 'kysely';
import type { AlertCondition, DB } from '../infra/db/types.ts';
import type { TimedEntry, TimelineSource } from '../annotations/timeline-types.ts';
import { serviceEntry, type TimelineEntry } from '../annotations/timeline.ts';
import { utcDay } from '../core/days.ts';

type Db = Kysely<DB> | Transaction<DB>;

const RULE_COLUMNS = [
  'id',
  'workspace_id',
  'name',
  'condition',
  'params',
  'email',
  'webhook',
  'slack_url',
  'cooldown_minutes',
  'enabled',
  'created_at',
] as const;

export type RuleRow = Awaited<ReturnType<typeof insertRule>>;

export async function insertRule(
  db: Db,
  row: {
    id: string;
    workspaceId: string;
    name: string;
    condition: AlertCondition;
    params: object;
    email: string[];
    webhook: boolean;
    slackUrl: string | null;
    cooldownMinutes: number;
    createdAt: Date;
  },
) {
  return db
    .insertInto('alert_rules')
    .values({
      id: row.id,
      workspace_id: row.workspaceId,
      name: row.name,
      condition: row.condition,
      params: JSON.stringify(row.params),
      email: row.email,
      webhook: row.webhook,
      slack_url: row.slackUrl,
      cooldown_minutes: row.cooldownMinutes,
      created_at: row.createdAt,
    })
    .returning(RULE_COLUMNS)
    .executeTakeFirstOrThrow();
}

export async function countRules(db: Db, workspaceId: string): Promise<number> {
  const row = await db
    .selectFrom('alert_rules')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function hasRules(db: Db, workspaceId: string): Promise<boolean> {
  const row = await db
    .selectFrom('alert_rules')
    .select('id')
    .where('workspace_id', '=', workspaceId)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** The workspace's rules, oldest first. */
export async function listRules(db: Db, workspaceId: string) {
  return db
    .selectFrom('alert_rules')
    .select(RULE_COLUMNS)
    .where('workspace_id', '=', workspaceId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export async function findRule(db: Db, workspaceId: string, id: string) {
  return db
    .selectFrom('alert_rules')
    .select(RULE_COLUMNS)
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** The rule, locked until the transaction ends: evaluations of one rule take turns. */
export async function lockRule(trx: Transaction<DB>, workspaceId: string, id: string) {
  return trx
    .selectFrom('alert_rules')
    .select(RULE_COLUMNS)
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
}

/** Sets the given fields of the workspace's rule; undefined when it is not the workspace's. */
export async function updateRule(
  db: Db,
  workspaceId: string,
  id: string,
  change: {
    name?: string;
    params?: object;
    email?: string[];
    webhook?: boolean;
    slackUrl?: string | null;
    cooldownMinutes?: number;
    enabled?: boolean;
  },
) {
  return db
    .updateTable('alert_rules')
    .set({
      ...(change.name !== undefined ? { name: change.name } : {}),
      ...(change.params !== undefined ? { params: JSON.stringify(change.params) } : {}),
      ...(change.email !== undefined ? { email: change.email } : {}),
      ...(change.webhook !== undefined ? { webhook: change.webhook } : {}),
      ...(change.slackUrl !== undefined ? { slack_url: change.slackUrl } : {}),
      ...(change.cooldownMinutes !== undefined ? { cooldown_minutes: change.cooldownMinutes } : {}),
      ...(change.enabled !== undefined ? { enabled: change.enabled } : {}),
    })
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .returning(RULE_COLUMNS)
    .executeTakeFirst();
}

export async function deleteRule(db: Db, workspaceId: string, id: string): Promise<boolean> {
  const r = await db
    .deleteFrom('alert_rules')
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

const EPISODE_COLUMNS = [
  'id',
  'rule_id',
  'workspace_id',
  'status',
  'summary',
  'drivers',
  'triggered_at',
  'resolved_at',
  'resolution',
] as const;

export async function openEpisode(db: Db, ruleId: string) {
  return db
    .selectFrom('alert_episodes')
    .select(EPISODE_COLUMNS)
    .where('rule_id', '=', ruleId)
    .where('status', '=', 'firing')
    .executeTakeFirst();
}

export async function lastResolvedAt(db: Db, ruleId: string): Promise<Date | null> {
  const row = await db
    .selectFrom('alert_episodes')
    .select((eb) => eb.fn.max('resolved_at').as('at'))
    .where('rule_id', '=', ruleId)
    .executeTakeFirst();
  return row?.at ? new Date(row.at as Date) : null;
}

/** Opens an episode; null when the rule already has an open one (another evaluation won). */
export async function insertEpisode(
  db: Db,
  row: { id: string; ruleId: string; workspaceId: string; summary: string; drivers: object; at: Date },
) {
  return db
    .insertInto('alert_episodes')
    .values({
      id: row.id,
      rule_id: row.ruleId,
      workspace_id: row.workspaceId,
      status: 'firing',
      summary: row.summary,
      drivers: JSON.stringify(row.drivers),
      triggered_at: row.at,
    })
    .onConflict((oc) => oc.column('rule_id').where('status', '=', 'firing').doNothing())
    .returning(EPISODE_COLUMNS)
    .executeTakeFirst();
}

/** Resolves the open episode; null when it was resolved already. */
export async function resolveEpisode(
  db: Db,
  id: string,
  resolution: { summary: string; drivers: object },
  at: Date,
) {
  return db
    .updateTable('alert_episodes')
    .set({ status: 'resolved', resolved_at: at, resolution: JSON.stringify(resolution) })
    .where('id', '=', id)
    .where('status', '=', 'firing')
    .returning(EPISODE_COLUMNS)
    .executeTakeFirst();
}

/** A rule's episodes, newest first, with their notifications. */
export async function listEpisodes(db: Db, ruleId: string, limit: number, offset: number) {
  const [rows, total] = await Promise.all([
    db
      .selectFrom('alert_episodes')
      .select(EPISODE_COLUMNS)
      .where('rule_id', '=', ruleId)
      .orderBy('triggered_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .offset(offset)
      .execute(),
    db
      .selectFrom('alert_episodes')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('rule_id', '=', ruleId)
      .executeTakeFirstOrThrow(),
  ]);
  const ids = rows.map((r) => r.id);
  const notifications = ids.length
    ? await db
        .selectFrom('alert_notifications')
        .selectAll()
        .where('episode_id', 'in', ids)
        .orderBy('phase', 'desc')
        .orderBy('channel')
        .execute()
    : [];
  return { rows, notifications, total: Number(total.n) };
}

/**
 * The episodes of the workspace's crisis rules that started or ended in [from, to), oldest first: when
 * the scoring engine's crisis signal came on and went off, as the alerts saw it.
 */
export async function crisisEpisodesBetween(db: Db, workspaceId: string, from: Date, to: Date) {
  return db
    .selectFrom('alert_episodes')
    .innerJoin('alert_rules', 'alert_rules.id', 'alert_episodes.rule_id')
    .select([
      'alert_episodes.id',
      'alert_episodes.summary',
      'alert_episodes.triggered_at',
      'alert_episodes.resolved_at',
    ])
    .where('alert_episodes.workspace_id', '=', workspaceId)
    .where('alert_rules.condition', '=', 'crisis')
    .where((eb) =>
      eb.or([
        eb.and([eb('alert_episodes.triggered_at', '>=', from), eb('alert_episodes.triggered_at', '<', to)]),
        eb.and([eb('alert_episodes.resolved_at', '>=', from), eb('alert_episodes.resolved_at', '<', to)]),
      ]),
    )
    .orderBy('alert_episodes.triggered_at')
    .orderBy('alert_episodes.id')
    .execute();
}

/** The latest episode of each of the workspace's rules (for the list's status). */
export async function latestEpisodes(db: Db, workspaceId: string) {
  return db
    .selectFrom('alert_episodes')
    .distinctOn('rule_id')
    .select(['rule_id', 'status', 'triggered_at'])
    .where('workspace_id', '=', workspaceId)
    .orderBy('rule_id')
    .orderBy('triggered_at', 'desc')
    .execute();
}

export async function insertNotifications(
  db: Db,
  rows: Array<{ episodeId: string; phase: 'triggered' | 'resolved'; channel: 'email' | 'slack' }>,
) {
  if (rows.length === 0) return;
  await db
    .insertInto('alert_notifications')
    .values(rows.map((r) => ({ episode_id: r.episodeId, phase: r.phase, channel: r.channel })))
    .onConflict((oc) => oc.doNothing())
    .execute();
}

/** A notification with its episode and rule, for sending; undefined once the rule is deleted. */
export async function loadNotification(
  db: Db,
  key: { episodeId: string; phase: 'triggered' | 'resolved'; channel: 'email' | 'slack' },
) {
  return db
    .selectFrom('alert_notifications as n')
    .innerJoin('alert_episodes as e', 'e.id', 'n.episode_id')
    .innerJoin('alert_rules as r', 'r.id', 'e.rule_id')
    .select([
      'n.status',
      'n.attempts',
      'e.id as episode_id',
      'e.summary',
      'e.drivers',
      'e.resolution',
      'e.triggered_at',
      'e.resolved_at',
      'e.workspace_id',
      'r.id as rule_id',
      'r.name',
      'r.condition',
      'r.email',
      'r.slack_url',
    ])
    .where('n.episode_id', '=', key.episodeId)
    .where('n.phase', '=', key.phase)
    .where('n.channel', '=', key.channel)
    .executeTakeFirst();
}

export async function recordNotification(
  db: Db,
  key: { episodeId: string; phase: 'triggered' | 'resolved'; channel: 'email' | 'slack' },
  outcome: { status: 'pending' | 'sent' | 'failed'; error: string | null; at: Date },
): Promise<boolean> {
  const r = await db
    .updateTable('alert_notifications')
    .set({
      status: outcome.status,
      attempts: sql<number>`attempts + 1`,
      last_error: outcome.error,
      ...(outcome.status === 'sent' ? { sent_at: outcome.at } : {}),
    })
    .where('episode_id', '=', key.episodeId)
    .where('phase', '=', key.phase)
    .where('channel', '=', key.channel)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/**
 * The alerts domain's timeline entries: crises as the workspace's crisis rules saw them, started and
 * ended. Several crisis rules open episodes on one crisis: one entry per day and kind.
 */
export const crisesOnTimeline: TimelineSource = async (db, workspaceId, range) => {
  const out: TimedEntry[] = [];
  const seen = new Set<string>();
  const add = (at: Date, entry: Omit<TimelineEntry, 'day' | 'author' | 'source' | 'category'>) => {
    const key = `${entry.kind} ${utcDay(at)}`;
    if (seen.has(key)) return;
    const timed = serviceEntry(range, at, { ...entry, category: 'crisis' });
    if (!timed) return;
    seen.add(key);
    out.push(timed);
  };
  for (const e of await crisisEpisodesBetween(db, workspaceId, range.from, range.to)) {
    add(e.triggered_at, { text: `Crisis started: ${e.summary}`, kind: 'crisis_started', ref: e.id });
    if (e.resolved_at) add(e.resolved_at, { text: 'Crisis ended', kind: 'crisis_ended', ref: e.id });
  }
  return out;
};
