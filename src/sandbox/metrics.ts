import { between, normalQuantile, prng } from './random.ts';
import { baselineV2 } from '../scoring/engine/v2/baselines.ts';
import {
  accountSnapshots,
  type AccountQuality,
  drawFollowers,
  drawNormals,
  gaussian,
  type QualityNormals,
  qualityFromNormals,
  REFERENCE_SPREADS,
} from '../scoring/engine/v2/reference-population.ts';
import { addDays } from '../core/days.ts';
import {
  METRIC_COLUMNS,
  METRIC_FIELDS,
  type MetricColumn,
  type MetricRow,
  type MetricValues,
} from '../core/metric-snapshot.ts';
import type { Platform } from '../core/catalog.ts';
import type { DailySnapshot } from '../core/metric-snapshot.ts';

/** The columns of metric_snapshots, as parallel arrays for one bulk INSERT ... SELECT unnest(...). */
export type SnapshotColumns = { workspace_id: string[]; platform: string[]; day: string[] } & {
  [C in MetricColumn]: MetricRow[C][];
};

export function emptyColumns(): SnapshotColumns {
  const columns = { workspace_id: [], platform: [], day: [] } as unknown as SnapshotColumns;
  for (const c of METRIC_COLUMNS) columns[c] = [];
  return columns;
}

/**
 * A sandbox brand: its quality drawn from formula v2's reference population (the same spreads
 * around the same cited baselines), so the demo's grades come out near the published shares
 * (docs/scoring.md, "What 50 means"); one quality per brand, shared by its platforms with a small
 * per-platform deviation, because a brand that does well on one platform tends to on the others.
 */
export interface BrandProfile {
  /** Audience of the brand's main platform, at the last day. */
  followers: number;
  quality: AccountQuality;
  completeness: number;
  /** Amplitude of the yearly season on views, and a phase per sector so sectors move differently. */
  season: number;
  phase: number;
}

/**
 * Unit direction, in the quality normals (QUALITY_FACTORS order: views, engagement, posts, growth,
 * net sentiment), along which the sandbox's v2 composite rises: the least-squares slopes of the
 * composite on the normals, 1.42 / 2.91 / 4.47 / 1.69 / 1.86 points per sd (R^2 0.88, residual sd
 * 2.2 points; 1,050 sandbox brands as of 2026-06-30, printed by scripts/sandbox-strata.ts), divided
 * by their norm 6.06.
 */
export const COMPOSITE_DIRECTION: QualityNormals = [0.234, 0.48, 0.737, 0.278, 0.307];

/**
 * Quality normals with their component along COMPOSITE_DIRECTION set to the normal quantile of
 * `stratum`. With strata (i + 0.5) / n, each normal is still standard (the other directions keep
 * their random draws), but the brands cover the composite's distribution evenly instead of by
 * chance: 525 independent draws put the elite share anywhere in 5% +/- 1.9 points (two binomial sd).
 */
export function stratifiedNormals(z: QualityNormals, stratum: number): QualityNormals {
  const w = COMPOSITE_DIRECTION;
  const norm = Math.hypot(...w);
  const along = w.reduce((s, wi, i) => s + (wi / norm) * z[i]!, 0);
  const shift = normalQuantile(stratum) - along;
  return z.map((zi, i) => zi + (shift * w[i]!) / norm) as unknown as QualityNormals;
}

/**
 * A brand's profile. `stratum` (0-1, exclusive) places it in the population's composite
 * distribution (stratifiedNormals); without one its quality is an independent draw.
 */
export function brandProfile(seed: string, sectorPhase: number, stratum?: number): BrandProfile {
  const r = prng(seed);
  const rnd = prng(`${seed}:quality`);
  const followers = drawFollowers(rnd);
  const z = drawNormals(rnd);
  return {
    followers,
    quality: qualityFromNormals(stratum === undefined ? z : stratifiedNormals(z, stratum)),
    completeness: between(r, 0.5, 1),
    season: between(r, 0.05, 0.15),
    phase: sectorPhase + between(r, -0.5, 0.5),
  };
}

/** Platforms differ in audience size; the brand's profile sets the rest. */
const PLATFORM_SCALE: Record<Platform, number> = {
  instagram: 1,
  tiktok: 1.4,
  youtube: 0.5,
  twitter: 0.7,
  facebook: 0.9,
};

/** Audience of a brand on a platform at the last day. */
export function platformFollowers(profile: BrandProfile, platform: Platform): number {
  return Math.round(profile.followers * PLATFORM_SCALE[platform]);
}

/** `days` daily snapshots ending at `lastDay` (YYYY-MM-DD) of one brand on one platform. */
export function brandSnapshots(
  workspaceId: string,
  platform: Platform,
  profile: BrandProfile,
  lastDay: string,
  days: number,
): DailySnapshot[] {
  const r = prng(`${workspaceId}:${platform}`);
  const q = profile.quality;
  // Small per-platform deviations around the brand's quality.
  const dev = () => Math.exp(0.15 * gaussian(r));
  const quality: AccountQuality = {
    viewsFactor: q.viewsFactor * dev(),
    engagementFactor: q.engagementFactor * dev(),
    postsFactor: q.postsFactor * dev(),
    growthFactor: q.growthFactor + 0.2 * gaussian(r),
    netSentiment: Math.max(-0.6, Math.min(0.6, q.netSentiment + 0.05 * gaussian(r))),
  };
  const target = platformFollowers(profile, platform);
  // Start so that growth at the brand's rate ends near the target audience.
  const monthly = baselineV2(platform, target).monthlyGrowth * quality.growthFactor;
  const start = Math.max(1, target / Math.exp((Math.log1p(Math.max(-0.5, monthly)) * days) / 30));
  return accountSnapshots({
    seed: Math.floor(r() * 4294967296),
    platform,
    from: addDays(lastDay, -(days - 1)),
    days,
    followers: start,
    ...quality,
    drift: REFERENCE_SPREADS.drift,
    season: { amplitude: profile.season, phase: profile.phase },
    completeness: Math.round(profile.completeness * 100) / 100,
  });
}

/** Appends `days` daily snapshots ending at `lastDay` (YYYY-MM-DD) for one workspace and platform; returns the last audience. */
export function generateSnapshots(
  out: SnapshotColumns,
  workspaceId: string,
  platform: Platform,
  profile: BrandProfile,
  lastDay: string,
  days: number,
): number {
  const snapshots = brandSnapshots(workspaceId, platform, profile, lastDay, days);
  for (const s of snapshots) {
    out.workspace_id.push(workspaceId);
    out.platform.push(platform);
    out.day.push(s.day);
    // Typed as every metric: a new metric fails to compile here until the generator gives it.
    // Generated counts, not classified by any model: no mixed, unscored, confidence or model; no deletion;
    // no comment read with its author.
    const values: MetricValues = {
      commentsDeleted: 0,
      commentsAttributed: 0,
      commentsRepeat: 0,
      commentsEarly: 0,
      sentimentMixed: 0,
      sentimentUnscored: 0,
      sentimentConfidence: 0,
      sentimentModel: '',
      // Generated by day, as the reference population.
      engagementDating: 'day',
      ...s,
    };
    for (const f of METRIC_FIELDS) (out[f.column] as unknown[]).push(values[f.key]);
  }
  return snapshots.at(-1)?.followers ?? 0;
}
