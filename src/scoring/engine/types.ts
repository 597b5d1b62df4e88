/** Shared types and constants of the IMPRS scoring engine (formula v1). */
import type { CompositeGrade, Pillar, PillarScores, Platform } from '../../core/catalog.ts';

export const FORMULA_VERSION = 'v1';

export const ACCOUNT_TIERS = ['nano', 'micro', 'mid', 'macro', 'mega'] as const;
export type AccountTier = (typeof ACCOUNT_TIERS)[number];

/** Per-platform row for the score log (agency scores export). */
export interface PlatformScoreRow {
  platform: Platform;
  tier: AccountTier;
  followerCount: number;
  /** Composite of this platform's pillars, 0-100. Equals 0.4 * part1Score + 0.6 * part2Score (before rounding). */
  overallScore: number;
  grade: CompositeGrade;
  /** Audience half: presence and reach, 0-100. */
  part1Score: number;
  /** Response half: impact, sentiment and momentum, 0-100. */
  part2Score: number;
  pillars: PillarScores;
  /** Share of this platform in the workspace pillars (0..1, sums to 1 over rows). */
  weight: number;
}

export interface Recommendation {
  /** 1 = most important. */
  priority: number;
  pillar: Pillar;
  action: string;
  /** e.g. '+4.2 points on reach' */
  expected_impact: string;
}

export type PillarGrade = 'green' | 'yellow' | 'red';
export type { CompositeGrade };
