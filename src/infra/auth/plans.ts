import type { Plan } from '../db/types.ts';

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

/** Documented in docs/decisions.md ("Plans and limits"). */
export const PLAN_LIMITS: Record<Plan, PlanLimits> = {
  free: { rank: 0, requestsPerMinute: 60, auditsPerMonth: 0, teamLimit: 1, platformLimit: 1 },
  pro: { rank: 1, requestsPerMinute: 600, auditsPerMonth: 10, teamLimit: 5, platformLimit: 3 },
  agency: { rank: 2, requestsPerMinute: 1200, auditsPerMonth: 100, teamLimit: 25, platformLimit: null },
  enterprise: { rank: 3, requestsPerMinute: 3000, auditsPerMonth: null, teamLimit: 100, platformLimit: null },
};

/** Institutional TACSI subscribers have no plan; their keys share one documented limit. */
export const SUBSCRIBER_REQUESTS_PER_MINUTE = 600;

export function planAtLeast(plan: Plan, minimum: Plan): boolean {
  return PLAN_LIMITS[plan].rank >= PLAN_LIMITS[minimum].rank;
}

export const PLAN_LABELS: Record<Plan, string> = {
  free: 'Free',
  pro: 'Pro',
  agency: 'Agency',
  enterprise: 'Enterprise',
};
