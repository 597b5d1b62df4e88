/**
 * Text sentiment for ingestion, delegating to the default classifier in src/scoring/sentiment/
 * (lexicons, emoji, customer-service and sarcasm patterns, a logistic regression trained on the
 * evaluation set's train split; see docs/scoring.md). These functions keep the three counts the
 * daily snapshot stores: a `mixed` comment counts as neutral (in the pillar formula that is the
 * same as half positive and half negative), and a comment in a language no model covers is
 * `unscored` and must not be counted at all.
 */
import { classifyWithDefaultModel, type SentimentResult } from '../sentiment/index.ts';

export type SentimentLabel = 'positive' | 'neutral' | 'negative' | 'unscored';

/** |score| below this is neutral. */
export const SENTIMENT_THRESHOLD = 0.05;

/** The stored three-way label of a classifier result. */
function storedLabel(r: SentimentResult): SentimentLabel {
  return r.label === 'mixed' ? 'neutral' : r.label;
}

/**
 * Score in [-1, 1]: the model's confidence, signed by its label (+ positive, - negative, 0 for
 * neutral, mixed, unscored, empty or non-string input).
 */
function signedConfidence(r: SentimentResult): number {
  if (r.label === 'positive') return r.confidence;
  if (r.label === 'negative') return -r.confidence;
  return 0;
}

export function sentimentScore(text: string): number {
  return signedConfidence(classifyWithDefaultModel(text));
}

export function labelFor(score: number): Exclude<SentimentLabel, 'unscored'> {
  if (score >= SENTIMENT_THRESHOLD) return 'positive';
  if (score <= -SENTIMENT_THRESHOLD) return 'negative';
  return 'neutral';
}

/** Label of a comment or mention; `unscored` for a language no model covers (do not count it). */
export function classifySentiment(text: string): SentimentLabel {
  return storedLabel(classifyWithDefaultModel(text));
}

/** Label and score together, for ingestion that stores both. */
export function analyseSentiment(text: string): { label: SentimentLabel; score: number } {
  const r = classifyWithDefaultModel(text);
  return { label: storedLabel(r), score: signedConfidence(r) };
}
