import { PILLARS, type Pillar, type Platform } from '../core/catalog.ts';
import type { HealthReason, StoredSyncFailure } from '../infra/db/types.ts';

/**
 * Connection health as a resource (docs/ingestion.md "Connection health"): what a connection's
 * state means for the brand (healthy, degraded, needs_reauth, unsupported, with a reason code), and
 * what of each pillar its platform gives the score.
 */

export const HEALTH_STATUSES = ['healthy', 'degraded', 'needs_reauth', 'unsupported'] as const;
export type HealthStatus = (typeof HEALTH_STATUSES)[number];

/** Reason codes, each under the one status it explains. */
export const HEALTH_REASONS = {
  degraded: [
    'partial_failure',
    'scope_not_granted',
    'throttled',
    'quota_exhausted',
    'platform_unavailable',
    'token_refresh_failed',
    'token_refused',
    'platform_refused',
    'invalid_response',
    'sync_failed',
  ],
  needs_reauth: ['refresh_refused', 'token_refused', 'permission_missing'],
  unsupported: ['account_gone'],
} as const;
export type HealthReasonCode =
  | (typeof HEALTH_REASONS)['degraded'][number]
  | (typeof HEALTH_REASONS)['needs_reauth'][number]
  | (typeof HEALTH_REASONS)['unsupported'][number];

/** The data the pillars are computed from (docs/scoring.md "Pillars"). */
export const COVERAGE_DATA = [
  'posts',
  'profile',
  'audience',
  'audience_history',
  'views',
  'engagement',
  'comments',
] as const;
export type CoverageData = (typeof COVERAGE_DATA)[number];

/** What each pillar is computed from (docs/scoring.md "Pillars (per platform)"). */
export const PILLAR_DATA: Readonly<Record<Pillar, readonly CoverageData[]>> = {
  presence: ['posts', 'profile'],
  reach: ['audience', 'audience_history', 'views'],
  impact: ['engagement', 'views', 'audience'],
  sentiment: ['comments'],
  momentum: ['engagement', 'views', 'posts', 'comments'],
};

/** How fully a platform gives one kind of data: true, or why it gives it only in part, or not at all. */
type Capability = true | { partial: string } | { none: string };

/**
 * What each platform's API gives the service, as its connector reads it (src/ingest/connectors/).
 * It moves with the connectors: a connector that starts reading comments updates its row.
 * Instagram's follower_count is new followers a day for the last 30 days
 * (https://developers.facebook.com/docs/instagram-api/reference/ig-user/insights); X gives the current
 * follower count (public_metrics) and per-post impression counts, no history; the TikTok and YouTube
 * connectors do not read comments.
 */
export const PLATFORM_CAPABILITIES: Readonly<Record<Platform, Readonly<Record<CoverageData, Capability>>>> = {
  instagram: {
    posts: true,
    profile: true,
    audience: true,
    audience_history: { partial: 'new followers a day only (no unfollows), for the last 30 days' },
    views: { partial: 'daily views for the last 30 days only; older days from the views of their posts' },
    engagement: { partial: 'saves and shares for the newest 40 posts of a sync' },
    comments: true,
  },
  facebook: {
    posts: true,
    profile: true,
    audience: true,
    audience_history: true,
    views: true,
    engagement: true,
    comments: true,
  },
  tiktok: {
    posts: true,
    profile: true,
    audience: true,
    audience_history: { partial: 'daily metrics reach back 60 days' },
    views: { partial: 'daily metrics reach back 60 days' },
    engagement: { partial: 'daily metrics reach back 60 days' },
    comments: { partial: 'one page of comments for each of the 10 most recent videos' },
  },
  youtube: {
    posts: true,
    profile: true,
    audience: true,
    audience_history: true,
    views: true,
    engagement: true,
    comments: true,
  },
  twitter: {
    posts: true,
    profile: true,
    audience: true,
    audience_history: { none: 'X gives the current follower count only, no history' },
    views: { partial: "per-post impressions, counted on the post's day" },
    engagement: true,
    comments: true,
  },
};

/**
 * The data a partial failure took away. A connector names it in `metric`: CoverageData names
 * (comma-separated when one call carries several, e.g. `views,engagement,audience_history`), or the
 * platform's own metric names, read by these patterns (comment texts are `comments`; comment counts
 * are engagement). A failure naming none takes nothing named away (the connection is still degraded).
 */
const METRIC_PATTERNS: ReadonlyArray<[RegExp, CoverageData]> = [
  [/comment_?text|commentthreads|comment\.list|mention|repl(y|ies)/i, 'comments'],
  [/follower_count|follows|subscribers?(gained|lost)/i, 'audience_history'],
  [/view|impression|reach/i, 'views'],
  [/like|share|save|engag|reaction|interaction|comments_count/i, 'engagement'],
  [/post|media|video|upload|tweet|playlist/i, 'posts'],
  [/profile|bio|picture/i, 'profile'],
  [/follower|subscriber/i, 'audience'],
];

export function dataOfFailure(f: Pick<StoredSyncFailure, 'call' | 'metric'>): CoverageData[] {
  const out = new Set<CoverageData>();
  for (const raw of (f.metric ?? f.call).split(',')) {
    const name = raw.trim();
    if ((COVERAGE_DATA as readonly string[]).includes(name)) {
      out.add(name as CoverageData);
      continue;
    }
    const hit = METRIC_PATTERNS.find(([pattern]) => pattern.test(name));
    if (hit) out.add(hit[1]);
  }
  return [...out];
}

export interface PillarCoverage {
  level: 'full' | 'partial' | 'none';
  /** The data missing or limited, each with why (empty when full). */
  missing: Array<{ data: CoverageData; reason: string }>;
}

/** Per pillar, what the connection covers: the platform's capabilities minus its current partial failures. */
export function coverage(
  platform: Platform,
  failures: readonly StoredSyncFailure[],
): Record<Pillar, PillarCoverage> {
  const caps = PLATFORM_CAPABILITIES[platform];
  const failed = new Map<CoverageData, StoredSyncFailure>();
  for (const f of failures) for (const data of dataOfFailure(f)) if (!failed.has(data)) failed.set(data, f);
  const out = {} as Record<Pillar, PillarCoverage>;
  for (const pillar of PILLARS) {
    const needs = PILLAR_DATA[pillar];
    const missing: PillarCoverage['missing'] = [];
    let absent = 0;
    for (const data of needs) {
      const f = failed.get(data);
      const cap = caps[data];
      if (f) {
        absent++;
        missing.push({ data, reason: `${f.call} failed (${f.kind}${f.scope ? `: ${f.scope}` : ''})` });
      } else if (cap !== true) {
        if ('none' in cap) absent++;
        missing.push({ data, reason: 'none' in cap ? cap.none : cap.partial });
      }
    }
    out[pillar] = {
      level: missing.length === 0 ? 'full' : absent === needs.length ? 'none' : 'partial',
      missing,
    };
  }
  return out;
}

/** A connection's state as the health reads it (platform_connections columns). */
export interface HealthInput {
  platform: Platform;
  status: 'connected' | 'reauth_required' | 'disconnected';
  health_reason: HealthReason | null;
  health_scope: string | null;
  last_error_class: string | null;
  sync_failures: readonly StoredSyncFailure[];
  granted_scopes: readonly string[] | null;
  required_scopes: readonly string[];
}

export interface HealthVerdict {
  status: HealthStatus;
  reason: HealthReasonCode | null;
  /** The permission the platform named as missing, when it named one. */
  missing_scope: string | null;
}

/** The reason of a failure recorded with its class only (before reasons were stored). */
const REASON_OF_CLASS: Record<string, HealthReasonCode> = {
  rate_limited: 'throttled',
  platform_unavailable: 'platform_unavailable',
  platform_error: 'platform_refused',
  invalid_response: 'invalid_response',
};

/** healthy, degraded, needs_reauth or unsupported, with the reason code (null when healthy). */
export function healthOf(c: HealthInput): HealthVerdict {
  const scope = c.health_scope;
  if (c.status === 'reauth_required') {
    const reason = c.health_reason ?? 'refresh_refused';
    if (reason === 'account_gone') return { status: 'unsupported', reason, missing_scope: null };
    if (reason === 'permission_missing') return { status: 'needs_reauth', reason, missing_scope: scope };
    return {
      status: 'needs_reauth',
      reason: reason === 'token_refused' ? 'token_refused' : 'refresh_refused',
      missing_scope: null,
    };
  }
  // The last attempt failed and the schedule retries it: degraded until a sync succeeds.
  if (c.last_error_class) {
    const stored = c.health_reason ?? REASON_OF_CLASS[c.last_error_class];
    const reason =
      stored && (HEALTH_REASONS.degraded as readonly string[]).includes(stored)
        ? (stored as HealthReasonCode)
        : 'sync_failed';
    return { status: 'degraded', reason, missing_scope: null };
  }
  if (c.sync_failures.length) {
    const permission = c.sync_failures.find((f) => f.kind === 'permission_missing');
    return { status: 'degraded', reason: 'partial_failure', missing_scope: permission?.scope ?? null };
  }
  const notGranted = missingScopes(c.required_scopes, c.granted_scopes);
  if (notGranted.length)
    return { status: 'degraded', reason: 'scope_not_granted', missing_scope: notGranted[0]! };
  return { status: 'healthy', reason: null, missing_scope: null };
}

/** The required scopes the platform did not grant ([] when the grant is unknown). */
export function missingScopes(required: readonly string[], granted: readonly string[] | null): string[] {
  if (!granted) return [];
  const have = new Set(granted);
  return required.filter((s) => !have.has(s));
}
