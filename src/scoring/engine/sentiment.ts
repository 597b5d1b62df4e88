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

/** The stored three-way label of a classifier result. */
function storedLabel(r: SentimentResult): SentimentLabel {
  return r.label === 'mixed' ? 'neutral' : r.label;
}

/** Label of a comment or mention; `unscored` for a language no model covers (do not count it). */
export function classifySentiment(text: string): SentimentLabel {
  return storedLabel(classifyWithDefaultModel(text));
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
