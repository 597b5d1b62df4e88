/**
 * Text sentiment for ingestion, delegating to the default classifier in src/scoring/sentiment/
 * (lexicons, emoji, customer-service and sarcasm patterns, a logistic regression trained on the
 * evaluation set's train split; see docs/scoring.md). `classifySentiment` keeps the three counts the
 * daily snapshot stores: a `mixed` comment counts as neutral (in the pillar formula that is the
 * same as half positive and half negative), and a comment in a language no model covers is
 * `unscored` and must not be counted at all.
 */
import { classifyWithDefaultModel, type SentimentResult } from '../sentiment/index.ts';

export type SentimentLabel = 'positive' | 'neutral' | 'negative' | 'unscored';

/** The stored three-way label of a classifier result. */
function storedLabel(r: SentimentResult): SentimentLabel {
  return r.label === 'mixed' ? 'neutral' : r.label;
}

/** Label of a comment or mention; `unscored` for a language no model covers (do not count it). */
export function classifySentiment(text: string): SentimentLabel {
  return storedLabel(classifyWithDefaultModel(text));
}
