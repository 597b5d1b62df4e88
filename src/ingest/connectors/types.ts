import type { ApiClient, PartialFailure, PlatformAnswer, PlatformFault } from './http.ts';
export type { PartialFailure } from './http.ts';
import type { Platform } from '../../core/catalog.ts';
import type { DailySnapshot } from '../../core/metric-snapshot.ts';

/** One post's lifetime comment count as a sync read it, and who wrote its comments when the platform says. */
export interface PostComments {
  id: string;
  day: string;
  comments: number;
  /** Comments read with their author and time (Instagram), and of those... */
  attributed?: number;
  /** ...by an account that commented on at least REPEAT_COMMENTER_POSTS (core/metric-snapshot.ts) of the posts of the 30 days up to this one's... */
  repeat?: number;
  /** ...and written within EARLY_COMMENT_MINUTES of the post. */
  early?: number;
}

/** Inclusive UTC day range, YYYY-MM-DD. */
export interface DayRange {
  since: string;
  until: string;
}

export interface ConnectorAccount {
  /** The connection's handle without a leading '@': the account identifier sent to the platform. */
  handle: string;
  /**
   * The platform's own id of the account, stored at connect from the identity lookup (Instagram:
   * the business account id, which is what its Graph API addresses); null for connections made
   * before ids were stored, or by handle alone.
   */
  accountId?: string | null;
}

/**
 * One adapter per platform: reads the platform's public API (field names as the real API
 * returns them) and maps it to one daily snapshot per day of the range.
 */
export interface PlatformConnector {
  platform: Platform;
  /** Base URL of each API the adapter calls, keyed by API name (the real public endpoints). */
  defaultBaseUrls: Record<string, string>;
  /** Request headers carrying an access token, the way this platform expects it. */
  authHeaders(token: string): Record<string, string>;
  fetchSnapshots(api: ApiClient, account: ConnectorAccount, range: DayRange): Promise<ConnectorResult>;
  /**
   * Reads one answer as this platform's error, if it is one, from the platform's own signals (error
   * codes in the body, a 200 envelope, reset headers); null leaves it to `httpFault`.
   */
  readFault?(answer: PlatformAnswer): PlatformFault | null;
}

export interface ConnectorResult {
  snapshots: DailySnapshot[];
  /** Audience size now, as the platform reports it (platform_connections.followers). */
  followers: number;
  /** The platform's id of the account when the connector had to look it up (stored on the connection). */
  accountId?: string;
  /**
   * The latest day whose `followers` the connector carried from a later day's count rather than read
   * (DayBook.followersEstimatedThrough): a stored row keeps its own audience for it and every earlier day.
   */
  followersEstimatedThrough?: string | null;
  /**
   * The calls that failed while the others succeeded (a permission not granted, a metric refused):
   * what succeeded is stored, these are recorded on the connection and tried again next sync.
   */
  failures?: PartialFailure[];
  /**
   * Each post's lifetime comment count as read (platforms that report one per post), so a fall between
   * syncs is booked as comments deleted (src/ingest/post-comments.ts).
   */
  postComments?: PostComments[];
}
