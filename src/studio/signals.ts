import type {
  ContentScoreResult,
  FeedbackItem,
  Format,
  NotJudged,
  PillarOutlook,
  QualityCheck,
  StudioMode,
} from './types.ts';
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
  /**
   * Quality the check reaches when its suggestion is followed exactly, when that is less than 1
   * (cutting to just under a hard limit still leaves the text long). Default 1.
   */
  fixedQuality?: number;
  /**
   * Other checks as they stand once the suggestion is followed (adding a question lengthens the
   * wording), replacing those with the same id when the lift is computed.
   */
  whatIf?: Signal[];
  /** Quality used for pillar predictions when it differs from the checklist quality. */
  outlook?: number;
  /** The platform refuses or breaks the content while this check fails (see BLOCKER_CAP). */
  blocker?: boolean;
  /** Highest score while this check fails (quality below 1): junk, spam or a harmful claim. */
  cap?: number;
  /** A quality problem shown in the result's `flags`, with a one-sentence detail. */
  flag?: { check: QualityCheck; detail: string };
}

/**
 * Highest score while any blocker remains: content the platform refuses or truncates cannot be a
 * good post however well the rest is formatted.
 */
export const BLOCKER_CAP = 40;

/**
 * Half-width, in pillar points, of the range shown around an uncalibrated pillar prediction: half
 * of PILLAR_SWING. A direction is stated only when the whole range lies on one side of zero.
 */
export const PILLAR_UNCERTAINTY = 2.5;

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

/**
 * Weighted share of quality, 0-100 unrounded, capped at BLOCKER_CAP while a blocker fails and at
 * each failing check's own cap.
 */
function exactScore(signals: readonly Signal[]): number {
  const total = signals.reduce((sum, s) => sum + s.weight, 0);
  if (total === 0) return 0;
  const earned = signals.reduce((sum, s) => sum + s.weight * clamp01(s.quality), 0);
  const caps = signals.flatMap((s) => [
    ...(s.blocker ? [BLOCKER_CAP] : []),
    ...(s.cap !== undefined && s.quality < 1 ? [s.cap] : []),
  ]);
  return Math.min((100 * earned) / total, ...caps);
}

export function scoreOf(signals: readonly Signal[]): number {
  return Math.round(exactScore(signals));
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
      sum += m * (clamp01(s.outlook ?? s.quality) - 0.5) * 2;
    }
    out[pillar] = signed(mass === 0 ? 0 : (PILLAR_SWING * sum) / mass, 1);
  }
  return out;
}

/**
 * A suggestion's lift is the change of the unrounded, capped score when its check reaches the
 * quality that following the suggestion gives, nothing else changing; while another blocker caps
 * the score, fixing a non-blocking check gains nothing and is not suggested yet. Only gains of a
 * whole point or more are suggested, so the published (rounded) score moves by at least 1 when a
 * suggestion is followed.
 */
function feedbackOf(signals: readonly Signal[]): FeedbackItem[] {
  const now = exactScore(signals);
  const candidates = signals
    .filter((s) => s.suggestion !== undefined)
    .map((s) => ({
      s,
      gain:
        exactScore(
          signals.map((o) =>
            o === s
              ? { ...o, quality: Math.max(o.quality, o.fixedQuality ?? 1), blocker: false }
              : (s.whatIf?.find((w) => w.id === o.id) ?? o),
          ),
        ) - now,
    }))
    .filter((c) => c.gain >= 1)
    .map((c) => ({ ...c, lift: Math.round(c.gain) }));
  candidates.sort((a, b) => b.lift - a.lift || b.s.weight - a.s.weight || (a.s.id < b.s.id ? -1 : 1));
  return candidates.map((c, i) => ({
    priority: i + 1,
    suggestion: c.s.suggestion as string,
    expected_lift: signed(c.lift, 0),
  }));
}

function outlookOf(predictions: Record<Pillar, string>): Record<Pillar, PillarOutlook> {
  const out = {} as Record<Pillar, PillarOutlook>;
  for (const pillar of PILLARS) {
    const p = Number(predictions[pillar]);
    const low = Math.max(-PILLAR_SWING, p - PILLAR_UNCERTAINTY);
    const high = Math.min(PILLAR_SWING, p + PILLAR_UNCERTAINTY);
    out[pillar] = {
      direction: low > 0 ? 'up' : high < 0 ? 'down' : 'flat',
      low: signed(low, 1),
      high: signed(high, 1),
    };
  }
  return out;
}

/** How a content item was judged, besides its signals. */
export interface Judgement {
  mode: StudioMode;
  modeSource: 'request' | 'detected' | 'default';
  language: string | null;
  notJudged: NotJudged[];
}

export function summarise(
  signals: readonly Signal[],
  platform: Platform,
  format: Format,
  judgement: Judgement,
): ContentScoreResult {
  const pillar_predictions = pillarPredictions(signals);
  return {
    score: scoreOf(signals),
    pillar_predictions,
    feedback: feedbackOf(signals),
    platform,
    format,
    basis: 'format_checklist',
    mode: judgement.mode,
    mode_source: judgement.modeSource,
    language: judgement.language,
    blockers: signals.filter((s) => s.blocker).map((s) => s.id),
    flags: signals.flatMap((s) =>
      s.flag && s.suggestion !== undefined ? [{ ...s.flag, suggestion: s.suggestion }] : [],
    ),
    not_judged: judgement.notJudged,
    pillar_outlook: outlookOf(pillar_predictions),
  };
}
