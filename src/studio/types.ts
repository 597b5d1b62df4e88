/** Request and result shapes of POST /v1/studio/score (see the spec's "Content score result"). */
import type { Pillar, Platform } from '../core/catalog.ts';

export const CONTENT_TYPES = ['text', 'image', 'video'] as const;
export const FORMATS = ['post', 'story', 'reel', 'short', 'thread'] as const;

export type ContentType = (typeof CONTENT_TYPES)[number];
export type Format = (typeof FORMATS)[number];

export interface ContentScoreInput {
  content_type: ContentType;
  /** The text itself, or an http(s) URL of the image or video. */
  content: string;
  platform: Platform;
  /** Defaults to 'post', as in the spec. */
  format?: Format;
}

export interface FeedbackItem {
  /** 1 is the suggestion to act on first (largest expected lift). */
  priority: number;
  suggestion: string;
  /** Score points gained by following the suggestion, signed: '+6'. */
  expected_lift: string;
}

export interface ContentScoreResult {
  /** 0-100. */
  score: number;
  /** Predicted change of each pillar, signed with one decimal: '+2.1', '-0.5'. */
  pillar_predictions: Record<Pillar, string>;
  feedback: FeedbackItem[];
  platform: Platform;
  format: Format;
}
