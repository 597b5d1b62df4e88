/** Request and result shapes of POST /v1/studio/score (see the spec's "Content score result"). */
import type { Pillar, Platform } from '../core/catalog.ts';

export const CONTENT_TYPES = ['text', 'image', 'video'] as const;
export const FORMATS = ['post', 'story', 'reel', 'short', 'thread'] as const;
/**
 * `standard` judges a promotional post; `announcement` (recall, apology, outage or safety notice)
 * leaves out the tone, call-to-action, question and emoji checks, which would push a notice towards
 * cheerful engagement bait.
 */
export const STUDIO_MODES = ['standard', 'announcement'] as const;

/** Quality checks of a text that cap its score while they fail (text-quality.ts). */
export const QUALITY_CHECKS = [
  'junk',
  'claims',
  'spam',
  'all_caps',
  'hashtag_stuffing',
  'repetition',
] as const;
export type QualityCheck = (typeof QUALITY_CHECKS)[number];

export type ContentType = (typeof CONTENT_TYPES)[number];
export type Format = (typeof FORMATS)[number];
export type StudioMode = (typeof STUDIO_MODES)[number];

export interface ContentScoreInput {
  content_type: ContentType;
  /** The text itself, or an http(s) URL of the image or video. */
  content: string;
  platform: Platform;
  /** Defaults to 'post', as in the spec. */
  format?: Format;
  /** Extension. Omitted: detected from the text (announcement wording), else standard. */
  mode?: StudioMode;
}

export interface FeedbackItem {
  /** 1 is the suggestion to act on first (largest expected lift). */
  priority: number;
  suggestion: string;
  /** Score points gained by following the suggestion, signed: '+6'. */
  expected_lift: string;
}

/** Direction and uncalibrated range of a pillar prediction (extension). */
export interface PillarOutlook {
  direction: 'up' | 'flat' | 'down';
  low: string;
  high: string;
}

/** A quality problem of a text, for people (extension). */
export interface QualityFlag {
  check: QualityCheck;
  /** One sentence on what was found. */
  detail: string;
  /** The fix; following it lifts this flag's cap. */
  suggestion: string;
}

/** A check left out of the score, and why (extension). */
export interface NotJudged {
  check: string;
  reason: 'language' | 'announcement' | 'not_analysed';
}

export interface ContentScoreResult {
  /** 0-100: the weighted share of format checks passed; at most 40 while a blocker remains. */
  score: number;
  /** Predicted change of each pillar, signed with one decimal: '+2.1', '-0.5'. Uncalibrated. */
  pillar_predictions: Record<Pillar, string>;
  feedback: FeedbackItem[];
  platform: Platform;
  format: Format;
  /** Extension: what the score is. Always 'format_checklist' (not calibrated against outcomes). */
  basis: 'format_checklist';
  /** Extension: the mode the text was judged in, and whether the caller chose it. */
  mode: StudioMode;
  mode_source: 'request' | 'detected' | 'default';
  /** Extension: detected language of a text ('und' without words); null for media. */
  language: string | null;
  /** Extension: checks that publishing would fail (over a hard limit, refused file); they cap the score at 40. */
  blockers: string[];
  /**
   * Extension: quality problems the format checklist cannot see (junk, claims, spam, all caps,
   * hashtag stuffing, repetition); each caps the score while it remains.
   */
  flags: QualityFlag[];
  /** Extension: checks left out of the score. */
  not_judged: NotJudged[];
  /** Extension: pillar predictions as a direction and a range, since they are not calibrated. */
  pillar_outlook: Record<Pillar, PillarOutlook>;
}
