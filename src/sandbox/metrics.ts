import { between, logBetween, poisson, prng } from './random.ts';
import { DAY_MS, utcDay } from '../core/days.ts';
import {
  METRIC_COLUMNS,
  METRIC_FIELDS,
  type MetricColumn,
  type MetricRow,
  type MetricValues,
} from '../core/metric-snapshot.ts';
import type { Platform } from '../core/catalog.ts';

/** The columns of metric_snapshots, as parallel arrays for one bulk INSERT ... SELECT unnest(...). */
export type SnapshotColumns = { workspace_id: string[]; platform: string[]; day: string[] } & {
  [C in MetricColumn]: MetricRow[C][];
};

export function emptyColumns(): SnapshotColumns {
  const columns = { workspace_id: [], platform: [], day: [] } as unknown as SnapshotColumns;
  for (const c of METRIC_COLUMNS) columns[c] = [];
  return columns;
}

export interface BrandProfile {
  followers: number;
  /** Daily audience growth rate. */
  growth: number;
  postsPerDay: number;
  /** Impressions per follower per post. */
  reachRate: number;
  /** Engagements per impression. */
  engagementRate: number;
  /** Share of comments and mentions that are positive. */
  positivity: number;
  completeness: number;
  /** Amplitude of the yearly season, and a phase per sector so sectors move differently. */
  season: number;
  phase: number;
}

export function brandProfile(seed: string, sectorPhase: number): BrandProfile {
  const r = prng(seed);
  return {
    followers: logBetween(r, 2_000, 2_500_000),
    growth: between(r, -0.0003, 0.0025),
    postsPerDay: between(r, 0.1, 1.6),
    reachRate: between(r, 0.08, 0.6),
    engagementRate: logBetween(r, 0.004, 0.09),
    positivity: between(r, 0.35, 0.85),
    completeness: between(r, 0.5, 1),
    season: between(r, 0.05, 0.25),
    phase: sectorPhase + between(r, -0.5, 0.5),
  };
}

/** Appends `days` daily snapshots ending at `lastDay` (YYYY-MM-DD) for one workspace and platform. */
export function generateSnapshots(
  out: SnapshotColumns,
  workspaceId: string,
  platform: Platform,
  profile: BrandProfile,
  lastDay: string,
  days: number,
): number {
  const r = prng(`${workspaceId}:${platform}`);
  const end = Date.parse(`${lastDay}T00:00:00Z`);
  // Platforms differ in audience size and reach; the brand's profile sets the rest.
  const scale = { instagram: 1, tiktok: 1.4, youtube: 0.5, twitter: 0.7, facebook: 0.9 }[platform];
  let followers = profile.followers * scale * Math.exp(-profile.growth * days);
  for (let i = days - 1; i >= 0; i--) {
    const t = end - i * DAY_MS;
    const seasonal = 1 + profile.season * Math.sin((2 * Math.PI * (t / DAY_MS)) / 365 + profile.phase);
    followers = Math.max(0, followers * (1 + profile.growth + between(r, -0.0008, 0.0008)));
    const posts = poisson(r, profile.postsPerDay * seasonal);
    const baseline = followers * 0.02 * between(r, 0.5, 1.5);
    const impressions = Math.round(
      baseline + posts * followers * profile.reachRate * seasonal * between(r, 0.6, 1.4),
    );
    const engagements = impressions * profile.engagementRate * between(r, 0.7, 1.3);
    const comments = Math.round(engagements * 0.07);
    const mentions = Math.round(followers * 0.0004 * seasonal * between(r, 0.3, 1.7));
    const talk = comments + mentions;
    const positive = Math.round(talk * profile.positivity * between(r, 0.85, 1.15));
    const negative = Math.round(talk * (1 - profile.positivity) * 0.4 * between(r, 0.6, 1.4));
    // Typed as every metric: a new metric fails to compile here until the generator gives it.
    const values: MetricValues = {
      followers: Math.round(followers),
      posts,
      impressions,
      likes: Math.round(engagements * 0.78),
      comments,
      shares: Math.round(engagements * 0.08),
      saves: Math.round(engagements * 0.07),
      mentions,
      sentimentPositive: Math.min(positive, talk),
      sentimentNegative: Math.min(negative, Math.max(0, talk - positive)),
      sentimentNeutral: Math.max(0, talk - positive - negative),
      // Generated counts, not classified by any model.
      sentimentMixed: 0,
      sentimentUnscored: 0,
      sentimentConfidence: 0,
      sentimentModel: '',
      profileCompleteness: Math.round(profile.completeness * 100) / 100,
    };
    out.workspace_id.push(workspaceId);
    out.platform.push(platform);
    out.day.push(utcDay(new Date(t)));
    for (const f of METRIC_FIELDS) (out[f.column] as unknown[]).push(values[f.key]);
  }
  return Math.round(followers);
}
