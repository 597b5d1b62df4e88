/**
 * What formula v3's scale stands on. v3 scores against formula v2's baselines (../v2/baselines.ts,
 * whose figures and sources are in docs/scoring.md "Baselines and their sources"), adjusted per
 * platform by the published year-on-year change in engagement so that "50" tracks the median of the
 * re-basing year. The set carries a version and a date; a yearly re-basing (docs/scoring.md, "Formula
 * v3: the scale") gives a new version, and every score says which version it used.
 */
import type { Platform } from '../../../core/catalog.ts';
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

/** Formula v3's baseline of a platform at a follower count: v2's, engagement re-based to 2025. */
export function baselineV3(platform: Platform, followers: number): ReturnType<typeof baselineV2> {
  const b = baselineV2(platform, followers);
  return { ...b, engagementPerView: b.engagementPerView * (1 + ENGAGEMENT_DRIFT_2025[platform]) };
}

/** Every baseline set v3 has scored against, by version (a re-basing adds one; none is removed). */
const BASELINE_SETS: Readonly<Record<string, BaselineInfo>> = { [BASELINE_SET_V3.version]: BASELINE_SET_V3 };

/** What a stored score's baseline version stands for (a version this build does not know keeps its name). */
export function baselineOf(version: string): Omit<BaselineInfo, 'dated'> & { dated: string | null } {
  return BASELINE_SETS[version] ?? { version, dated: null, reference: 'modelled', industry: 'all' };
}
