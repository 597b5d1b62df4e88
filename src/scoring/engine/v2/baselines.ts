/**
 * v2 reference baselines: the v1 platform bases with the tier factors interpolated linearly in
 * log10(followers) between tier anchors (the geometric middle of each tier), flat outside them.
 * A baseline is the reference MEDIAN account of that size (docs/scoring.md, "What 50 means"), so a
 * rate exactly at its baseline scores 50 and there is no step at any tier floor.
 */
import { PLATFORM_BASE } from '../benchmarks.ts';
import type { Platform } from '../../../core/catalog.ts';

export interface BaselineV2 {
  viewsPerFollowerDay: number;
  engagementPerView: number;
  engagementPerFollowerDay: number;
  monthlyGrowth: number;
  postsPerWeek: number;
}

/** [log10 followers, rate factor, typical monthly growth]: nano 3k, micro 30k, mid 220k, macro 700k, mega 3M. */
const ANCHORS: readonly (readonly [number, number, number])[] = [
  [Math.log10(3_000), 1.4, 0.04],
  [Math.log10(31_600), 1.2, 0.025],
  [Math.log10(224_000), 1.0, 0.015],
  [Math.log10(707_000), 0.85, 0.01],
  [Math.log10(3_160_000), 0.7, 0.007],
];

function interpolate(log10f: number, col: 1 | 2): number {
  const first = ANCHORS[0]!;
  const last = ANCHORS[ANCHORS.length - 1]!;
  if (!(log10f > first[0])) return first[col];
  if (log10f >= last[0]) return last[col];
  for (let i = 1; i < ANCHORS.length; i++) {
    const hi = ANCHORS[i]!;
    if (log10f <= hi[0]) {
      const lo = ANCHORS[i - 1]!;
      const t = (log10f - lo[0]) / (hi[0] - lo[0]);
      return lo[col] + t * (hi[col] - lo[col]);
    }
  }
  return last[col];
}

/** Baseline of an account with `followers` on `platform`; continuous in followers. */
export function baselineV2(platform: Platform, followers: number): BaselineV2 {
  const base = PLATFORM_BASE[platform];
  const lf = Math.log10(Math.max(1, Number.isFinite(followers) ? followers : 1));
  const rate = interpolate(lf, 1);
  const viewsPerFollowerDay = base.viewsPerFollowerDay * rate;
  const engagementPerView = base.engagementPerView * rate;
  return {
    viewsPerFollowerDay,
    engagementPerView,
    engagementPerFollowerDay: viewsPerFollowerDay * engagementPerView,
    monthlyGrowth: interpolate(lf, 2),
    postsPerWeek: base.postsPerWeek,
  };
}

/** Net sentiment ((pos - neg) / classified) of the reference median account. */
export const MEDIAN_NET_SENTIMENT = 0.3;
