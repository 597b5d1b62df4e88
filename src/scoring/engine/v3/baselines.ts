/**
 * What formula v3's scale stands on. v3 scores against formula v2's baselines (../v2/baselines.ts,
 * whose figures and sources are in docs/scoring.md "Baselines and their sources"), adjusted per
 * platform by the published year-on-year change in engagement so that "50" tracks the median of the
 * re-basing year. The set carries a version and a date; a yearly re-basing (docs/scoring.md, "Formula
 * v3: the scale") gives a new version, and every score says which version it used.
 */
import type { BenchmarkIndustry, Platform } from '../../../core/catalog.ts';
import { baselineV2 } from '../v2/baselines.ts';
import type { BaselineInfo } from './types.ts';

/**
 * Engagement change in one year by platform, from Rival IQ's 2025 Social Media Industry Benchmark
 * Report (2024 data against 2023 data, all industries; rivaliq.com/blog/social-media-industry-benchmark-report):
 * Instagram -16%, TikTok -34%, Facebook -36%, X -48%. YouTube is not in the report: ASSUMPTION 0.
 */
export const ENGAGEMENT_DRIFT_2025: Readonly<Record<Platform, number>> = {
  instagram: -0.16,
  tiktok: -0.34,
  facebook: -0.36,
  twitter: -0.48,
  youtube: 0,
};

export const BASELINE_SET_V3: BaselineInfo = {
  version: '2025.1',
  dated: '2025-03-01',
  reference: 'modelled',
  industry: 'all',
};

/**
 * An industry's median engagement per view against all industries', where a published figure exists:
 * TikTok only, from Rival IQ's 2024 TikTok Benchmark Report (engagement rate by view; all industries
 * 3.4%: https://www.rivaliq.com/blog/good-engagement-rate-tiktok/; by industry as quoted at
 * https://thatrandomagency.com/2024/07/08/latest-tiktok-benchmarks/). Home Decor and Financial Services
 * are not quoted, and no source read gives per-industry tables for the other platforms: those keep
 * the all-industries baseline (factor 1).
 */
export const INDUSTRY_ENGAGEMENT: Readonly<Record<BenchmarkIndustry, Partial<Record<Platform, number>>>> = {
  'sports-teams': { tiktok: 9.2 / 3.4 },
  nonprofits: { tiktok: 5.2 / 3.4 },
  influencers: { tiktok: 4.9 / 3.4 },
  alcohol: { tiktok: 4.3 / 3.4 },
  'higher-education': { tiktok: 4.1 / 3.4 },
  media: { tiktok: 3.8 / 3.4 },
  travel: { tiktok: 3.0 / 3.4 },
  'tech-software': { tiktok: 2.9 / 3.4 },
  fashion: { tiktok: 2.7 / 3.4 },
  'health-beauty': { tiktok: 2.7 / 3.4 },
  retail: { tiktok: 2.6 / 3.4 },
  'food-beverage': { tiktok: 2.6 / 3.4 },
  'home-decor': {},
  'financial-services': {},
};

/**
 * Formula v3's baseline of a platform at a follower count: v2's, engagement re-based to 2025, and for a
 * brand of an industry with a published figure on that platform, scaled to that industry's median.
 */
export function baselineV3(
  platform: Platform,
  followers: number,
  industry?: BenchmarkIndustry | null,
): ReturnType<typeof baselineV2> {
  const b = baselineV2(platform, followers);
  const factor = industry ? (INDUSTRY_ENGAGEMENT[industry][platform] ?? 1) : 1;
  return { ...b, engagementPerView: b.engagementPerView * (1 + ENGAGEMENT_DRIFT_2025[platform]) * factor };
}

/** The baseline set a score of `industry` stands on, and the one string stored with the score. */
export function baselineSetFor(industry?: BenchmarkIndustry | null): BaselineInfo {
  return industry ? { ...BASELINE_SET_V3, industry } : { ...BASELINE_SET_V3 };
}

/** The string stored with a score: the version, and the industry after a slash (e.g. "2025.1/retail"). */
export function storedBaseline(set: BaselineInfo): string {
  return set.industry === 'all' ? set.version : `${set.version}/${set.industry}`;
}

/** Every baseline set v3 has scored against, by version (a re-basing adds one; none is removed). */
const BASELINE_SETS: Readonly<Record<string, BaselineInfo>> = { [BASELINE_SET_V3.version]: BASELINE_SET_V3 };

/** What a stored score's baseline stands for (a version this build does not know keeps its name). */
export function baselineOf(stored: string): Omit<BaselineInfo, 'dated'> & { dated: string | null } {
  const [version = stored, industry] = stored.split('/');
  const set = BASELINE_SETS[version] ?? { version, dated: null, reference: 'modelled', industry: 'all' };
  return industry ? { ...set, industry } : set;
}
