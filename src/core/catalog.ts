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

/**
 * The measured inputs a v3 score is computed from (docs/scoring.md, "Formula v3: explanations";
 * src/scoring/engine/v3/explain.ts), each compared with the median account of the same platform and
 * size (the value that scores 50):
 * - posts_per_week: posts a week as published (presence);
 * - post_view_lift: (post days' views - other days' views) / post days' views; at POST_LIFT_IN_FULL
 *   (the `median`) and above, posts count in full (presence);
 * - views_per_follower_day, monthly_growth (a rate: 0.017 is 1.7% a month): reach;
 * - engagement_per_view (engagement_per_follower_day when views are not reported): impact;
 * - net_sentiment: (positive - negative) / classified comments and mentions, recency-weighted, of one
 *   platform's part of the pooled conversation (sentiment);
 * - engagement_trend, views_trend: change of approval (likes, shares, saves) and of views per organic
 *   follower over the last 28 days against the window's days before them, per 28 days, shrunk by its
 *   noise (0.1 is +10%; the median is flat, 0); recent_net_sentiment: the last 7 days' net sentiment,
 *   which lowers momentum below its `median` (momentum);
 * - coverage: the share of requested platforms with data (presence).
 * Only in a change's drivers: platform_weight (a platform's share of the workspace pillar, by engaged
 * audience) and conversation_share (a platform's share of the pooled conversation).
 */
export const DRIVER_METRICS = [
  'posts_per_week',
  'post_view_lift',
  'views_per_follower_day',
  'monthly_growth',
  'engagement_per_view',
  'engagement_per_follower_day',
  'net_sentiment',
  'engagement_trend',
  'views_trend',
  'recent_net_sentiment',
  'coverage',
  'platform_weight',
  'conversation_share',
] as const;
export type DriverMetric = (typeof DRIVER_METRICS)[number];

/** How a platform is named in sentences (explanations, advice). */
/**
 * The industries of Rival IQ's Social Media Industry Benchmark Reports, which a sector can be mapped to
 * (`sectors.benchmark_industry`) so its brands' scores use that industry's published figures where there
 * are any (docs/scoring.md, "Formula v3: the scale").
 */
export const BENCHMARK_INDUSTRIES = [
  'alcohol',
  'fashion',
  'financial-services',
  'food-beverage',
  'health-beauty',
  'higher-education',
  'home-decor',
  'influencers',
  'media',
  'nonprofits',
  'retail',
  'sports-teams',
  'tech-software',
  'travel',
] as const;
export type BenchmarkIndustry = (typeof BENCHMARK_INDUSTRIES)[number];

export const PLATFORM_NAMES: Record<Platform, string> = {
  instagram: 'Instagram',
  tiktok: 'TikTok',
  youtube: 'YouTube',
  twitter: 'X',
  facebook: 'Facebook',
};

/** How a driver metric is named in sentences (explanations, advice), lower case. */
export const METRIC_NAMES: Record<DriverMetric, string> = {
  posts_per_week: 'posts a week',
  post_view_lift: 'post-day view lift',
  views_per_follower_day: 'views per follower',
  monthly_growth: 'growth',
  engagement_per_view: 'engagement per view',
  engagement_per_follower_day: 'engagement per follower',
  net_sentiment: 'net sentiment',
  engagement_trend: 'engagement trend',
  views_trend: 'views trend',
  recent_net_sentiment: "last week's net sentiment",
  coverage: 'coverage',
  platform_weight: 'platform weight',
  conversation_share: 'share of the conversation',
};

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
