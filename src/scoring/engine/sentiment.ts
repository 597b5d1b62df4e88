/**
 * Text sentiment for ingestion, delegating to the default classifier in src/scoring/sentiment/
 * (lexicons, emoji, customer-service and sarcasm patterns, a logistic regression trained on the
 * evaluation set's train split; see docs/scoring.md). `classifySentiment` gives a three-way
 * label (`mixed` as neutral: in the pillar formula that is the same as half positive and half
 * negative; `unscored` for a language no model covers). Ingestion counts through SentimentTally,
 * which keeps mixed and unscored apart with the model's confidence and version.
 */
import { classifyWithDefaultModel, type SentimentResult } from '../sentiment/index.ts';
import type { DailySnapshot } from '../../core/metric-snapshot.ts';

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

/** The sentiment fields of a daily snapshot. */
export type SentimentFields = Required<
  Pick<
    DailySnapshot,
    | 'sentimentPositive'
    | 'sentimentNeutral'
    | 'sentimentNegative'
    | 'sentimentMixed'
    | 'sentimentUnscored'
    | 'sentimentConfidence'
    | 'sentimentModel'
  >
>;

/**
 * One day's comments and mentions, classified and counted with what re-scoring them later needs:
 * the four labels kept apart (mixed is not folded into neutral), the texts no model covers
 * (unscored: counted, never judged), the model's mean confidence and which model (id@version)
 * judged them. Empty texts are not comments and are not counted.
 */
export class SentimentTally {
  #counts = { positive: 0, neutral: 0, negative: 0, mixed: 0, unscored: 0 };
  #confidence = 0;
  #models = new Set<string>();

  add(text: string): void {
    if (typeof text !== 'string' || !text.trim()) return;
    const r = classifyWithDefaultModel(text);
    this.#counts[r.label] += 1;
    if (r.label === 'unscored') return;
    this.#confidence += r.confidence;
    this.#models.add(`${r.modelId}@${r.modelVersion}`);
  }

  fields(): SentimentFields {
    const c = this.#counts;
    const classified = c.positive + c.neutral + c.negative + c.mixed;
    return {
      sentimentPositive: c.positive,
      sentimentNeutral: c.neutral,
      sentimentNegative: c.negative,
      sentimentMixed: c.mixed,
      sentimentUnscored: c.unscored,
      // Four decimals: the column is a float4, and the mean is a summary, not a measurement.
      sentimentConfidence: classified ? Math.round((this.#confidence / classified) * 1e4) / 1e4 : 0,
      sentimentModel: [...this.#models].sort().join('+'),
    };
  }
}
