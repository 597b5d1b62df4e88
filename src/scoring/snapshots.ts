import type { Kysely, Selectable } from 'kysely';
import { PLATFORMS, type DB, type MetricSnapshotsTable, type Platform } from '../infra/db/types.ts';
import type { DailySnapshot } from './engine/index.ts';

type SnapshotRow = Pick<
  Selectable<MetricSnapshotsTable>,
  | 'platform'
  | 'day'
  | 'followers'
  | 'posts'
  | 'impressions'
  | 'likes'
  | 'comments'
  | 'shares'
  | 'saves'
  | 'mentions'
  | 'sentiment_positive'
  | 'sentiment_neutral'
  | 'sentiment_negative'
  | 'profile_completeness'
>;

const COLUMNS = [
  'platform',
  'day',
  'followers',
  'posts',
  'impressions',
  'likes',
  'comments',
  'shares',
  'saves',
  'mentions',
  'sentiment_positive',
  'sentiment_neutral',
  'sentiment_negative',
  'profile_completeness',
] as const;

/** A stored snapshot row in the engine's shape. */
export function toDailySnapshot(row: SnapshotRow): DailySnapshot {
  return {
    platform: row.platform,
    day: row.day,
    followers: Number(row.followers),
    posts: Number(row.posts),
    impressions: Number(row.impressions),
    likes: Number(row.likes),
    comments: Number(row.comments),
    shares: Number(row.shares),
    saves: Number(row.saves),
    mentions: Number(row.mentions),
    sentimentPositive: Number(row.sentiment_positive),
    sentimentNeutral: Number(row.sentiment_neutral),
    sentimentNegative: Number(row.sentiment_negative),
    profileCompleteness: Number(row.profile_completeness),
  };
}

/**
 * A workspace's snapshots, oldest first, optionally limited to some platforms and to days in
 * [from, to]. Served by the (workspace_id, platform, day) primary key.
 */
export async function loadSnapshots(
  db: Kysely<DB>,
  workspaceId: string,
  options: { platforms?: readonly Platform[]; from?: string; to?: string } = {},
): Promise<DailySnapshot[]> {
  let q = db.selectFrom('metric_snapshots').select(COLUMNS).where('workspace_id', '=', workspaceId);
  if (options.platforms) {
    if (options.platforms.length === 0) return [];
    q = q.where('platform', 'in', [...options.platforms]);
  }
  if (options.from) q = q.where('day', '>=', options.from);
  if (options.to) q = q.where('day', '<=', options.to);
  const rows = await q.orderBy('day').orderBy('platform').execute();
  return rows.map(toDailySnapshot);
}

/** Platforms with a live connection, in canonical order. */
export async function connectedPlatforms(db: Kysely<DB>, workspaceId: string): Promise<Platform[]> {
  const rows = await db
    .selectFrom('platform_connections')
    .select('platform')
    .where('workspace_id', '=', workspaceId)
    .where('status', '=', 'connected')
    .execute();
  const live = new Set(rows.map((r) => r.platform));
  return PLATFORMS.filter((p) => live.has(p));
}
