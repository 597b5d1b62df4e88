import type { ContentScoreResult, FeedbackItem, Format } from './types.ts';
import { type Pillar, PILLARS, type Platform } from '../core/catalog.ts';

/**
 * One measured property of the content. The score is the weighted sum of signal qualities
 * (weights of one content type add up to 100), so the lift of a suggestion is exactly the
 * points its signal is missing.
 */
export interface Signal {
  /** Stable name, also the last tie-breaker when ordering feedback. */
  id: string;
  /** Points out of 100. */
  weight: number;
  /** 0 (worst) to 1 (nothing to improve). */
  quality: number;
  /** Relative share of each pillar this signal moves; shares are normalised. */
  pillars: Partial<Record<Pillar, number>>;
  /** Concrete fix quoting the measured value; omitted when quality is 1. */
  suggestion?: string;
}

/** Largest pillar movement predicted, in pillar points, for a best or worst post. */
export const PILLAR_SWING = 5;

export function clamp01(x: number): number {
  if (!Number.isFinite(x)) return 0;
  return Math.min(1, Math.max(0, x));
}

/** '+2.1', '-0.5'; zero is '+0.0' so the sign is always present and never '-0.0'. */
export function signed(value: number, decimals: number): string {
  const fixed = Math.abs(value).toFixed(decimals);
  const isZero = Number(fixed) === 0;
  return `${value < 0 && !isZero ? '-' : '+'}${fixed}`;
}

function scoreOf(signals: readonly Signal[]): number {
  const total = signals.reduce((sum, s) => sum + s.weight, 0);
  if (total === 0) return 0;
  const earned = signals.reduce((sum, s) => sum + s.weight * clamp01(s.quality), 0);
  return Math.round((100 * earned) / total);
}

/**
 * A pillar moves by the weighted mean of its signals' qualities, centred so an average
 * signal (quality 0.5) predicts no change. Pillars no signal touches predict '+0.0'.
 */
function pillarPredictions(signals: readonly Signal[]): Record<Pillar, string> {
  const out = {} as Record<Pillar, string>;
  for (const pillar of PILLARS) {
    let mass = 0;
    let sum = 0;
    for (const s of signals) {
      const shares = Object.values(s.pillars).reduce((a, b) => a + b, 0);
      const share = s.pillars[pillar] ?? 0;
      if (share <= 0 || shares <= 0) continue;
      const m = (s.weight * share) / shares;
      mass += m;
      sum += m * (clamp01(s.quality) - 0.5) * 2;
    }
    out[pillar] = signed(mass === 0 ? 0 : (PILLAR_SWING * sum) / mass, 1);
  }
  return out;
}

function feedbackOf(signals: readonly Signal[]): FeedbackItem[] {
  const total = signals.reduce((sum, s) => sum + s.weight, 0);
  const candidates = signals
    .filter((s) => s.suggestion !== undefined)
    .map((s) => ({ s, lift: Math.round((100 * s.weight * (1 - clamp01(s.quality))) / total) }))
    .filter((c) => c.lift >= 1);
  candidates.sort((a, b) => b.lift - a.lift || b.s.weight - a.s.weight || (a.s.id < b.s.id ? -1 : 1));
  return candidates.map((c, i) => ({
    priority: i + 1,
    suggestion: c.s.suggestion as string,
    expected_lift: signed(c.lift, 0),
  }));
}

export function summarise(
  signals: readonly Signal[],
  platform: Platform,
  format: Format,
): ContentScoreResult {
  return {
    score: scoreOf(signals),
    pillar_predictions: pillarPredictions(signals),
    feedback: feedbackOf(signals),
    platform,
    format,
  };
}
