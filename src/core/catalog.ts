/**
 * The product's shared vocabulary, defined once: platforms, IMPRS pillars, plans and their limits,
 * key scopes, account and organisation types, event types. TypeBox enums (infra/http/schemas.ts),
 * database types (infra/db/types.ts) and the domains derive from these lists; the database CHECK
 * constraints in the migrations spell the same values and must change with them.
 */

/** Social platforms a workspace can connect, in canonical order (listings and scores follow it). */
export const PLATFORMS = ['instagram', 'tiktok', 'youtube', 'twitter', 'facebook'] as const;
export type Platform = (typeof PLATFORMS)[number];

/** The five IMPRS pillars, in the formula's order. */
export const PILLARS = ['presence', 'reach', 'impact', 'sentiment', 'momentum'] as const;
export type Pillar = (typeof PILLARS)[number];
export type PillarScores = Record<Pillar, number>;

/** The pillar scores of a database row, whose numeric columns may arrive as strings; in formula order. */
export function pillarScoresOf(row: Readonly<Record<Pillar, number | string>>): PillarScores {
  return {
    presence: Number(row.presence),
    reach: Number(row.reach),
    impact: Number(row.impact),
    sentiment: Number(row.sentiment),
    momentum: Number(row.momentum),
  };
}

export const PLANS = ['free', 'pro', 'agency', 'enterprise'] as const;
export type Plan = (typeof PLANS)[number];

export interface PlanLimits {
  rank: number;
  /** Requests per rate-limit window per key. */
  requestsPerMinute: number;
  /** Audit runs per calendar month (UTC); null = unlimited. */
  auditsPerMonth: number | null;
  teamLimit: number;
  /** Connected platforms; null = every supported platform. */
  platformLimit: number | null;
}

/** Documented in docs/adr/0003-plans-and-limits.md. */
export const PLAN_LIMITS: Record<Plan, PlanLimits> = {
  free: { rank: 0, requestsPerMinute: 60, auditsPerMonth: 0, teamLimit: 1, platformLimit: 1 },
  pro: { rank: 1, requestsPerMinute: 600, auditsPerMonth: 10, teamLimit: 5, platformLimit: 3 },
  agency: { rank: 2, requestsPerMinute: 1200, auditsPerMonth: 100, teamLimit: 25, platformLimit: null },
  enterprise: { rank: 3, requestsPerMinute: 3000, auditsPerMonth: null, teamLimit: 100, platformLimit: null },
};

export const PLAN_LABELS: Record<Plan, string> = {
  free: 'Free',
  pro: 'Pro',
  agency: 'Agency',
  enterprise: 'Enterprise',
};

/** Composite grades, best first. */
export const COMPOSITE_GRADES = ['elite', 'strong', 'moderate', 'weak', 'critical'] as const;
export type CompositeGrade = (typeof COMPOSITE_GRADES)[number];

/** Classes of a failed sync, as stored and shown in GET /v1/platforms and the platform.sync_failing event. */
export const SYNC_ERROR_CLASSES = [
  'rate_limited',
  'platform_unavailable',
  'platform_error',
  'reauth_required',
  'invalid_response',
] as const;
export type SyncErrorClass = (typeof SYNC_ERROR_CLASSES)[number];

/** Campaign statuses: the spec's three and cancelled (an extension). */
export const CAMPAIGN_STATUSES = ['draft', 'active', 'completed', 'cancelled'] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];

/** How often a workspace is billed for its plan (audit quotas stay monthly either way). */
export const BILLING_PERIODS = ['monthly', 'annual'] as const;
export type BillingPeriod = (typeof BILLING_PERIODS)[number];

export function planAtLeast(plan: Plan, minimum: Plan): boolean {
  return PLAN_LIMITS[plan].rank >= PLAN_LIMITS[minimum].rank;
}

/** Institutional TACSI subscribers have no plan; their keys share one documented limit. */
export const SUBSCRIBER_REQUESTS_PER_MINUTE = 600;

/** What an API key may do. */
export const SCOPES = ['read', 'write'] as const;
export type Scope = (typeof SCOPES)[number];

export const ACCOUNT_TYPES = ['brand', 'creator', 'agency'] as const;
export type AccountType = (typeof ACCOUNT_TYPES)[number];

export const ORG_TYPES = ['company', 'nonprofit', 'individual', 'public_sector', 'agency'] as const;
export type OrgType = (typeof ORG_TYPES)[number];

/**
 * Events a workspace's webhooks can subscribe to: the spec's three, then the connection-health
 * extensions (docs/webhooks.md, docs/ingestion.md), the alerts' (docs/alerts.md) and the scheduled reports'
 * (docs/reports.md).
 */
export const EVENT_TYPES = [
  'audit.completed',
  'score.changed',
  'campaign.phase_changed',
  'platform.connection_failed',
  'platform.reauth_required',
  'platform.token_expiring',
  'platform.connection_degraded',
  'alert.triggered',
  'alert.resolved',
  'report.ready',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];
