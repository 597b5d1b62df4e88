import type { Platform } from '../infra/db/types.ts';
import { between, logBetween, poisson, prng } from './random.ts';

/** The columns of metric_snapshots, as parallel arrays for one bulk INSERT ... SELECT unnest(...). */
export interface SnapshotColumns {
  workspace_id: string[];
  platform: string[];
  day: string[];
  followers: number[];
  posts: number[];
  impressions: number[];
  likes: number[];
  comments: number[];
  shares: number[];
  saves: number[];
  mentions: number[];
  sentiment_positive: number[];
  sentiment_neutral: number[];
  sentiment_negative: number[];
  profile_completeness: number[];
}

export function emptyColumns(): SnapshotColumns {
  return {
    workspace_id: [],
    platform: [],
    day: [],
    followers: [],
    posts: [],
    impressions: [],
    likes: [],
    comments: [],
    shares: [],
    saves: [],
    mentions: [],
    sentiment_positive: [],
    sentiment_neutral: [],
    sentiment_negative: [],
    profile_completeness: [],
  };
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

const DAY_MS = 86_400_000;

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
    out.workspace_id.push(workspaceId);
    out.platform.push(platform);
    out.day.push(new Date(t).toISOString().slice(0, 10));
    out.followers.push(Math.round(followers));
    out.posts.push(posts);
    out.impressions.push(impressions);
    out.likes.push(Math.round(engagements * 0.78));
    out.comments.push(comments);
    out.shares.push(Math.round(engagements * 0.08));
    out.saves.push(Math.round(engagements * 0.07));
    out.mentions.push(mentions);
    out.sentiment_positive.push(Math.min(positive, talk));
    out.sentiment_negative.push(Math.min(negative, Math.max(0, talk - positive)));
    out.sentiment_neutral.push(Math.max(0, talk - positive - negative));
    out.profile_completeness.push(Math.round(profile.completeness * 100) / 100);
  }
  return Math.round(followers);
}
