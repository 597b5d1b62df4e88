/**
 * Text sentiment for ingestion, via wink-nlp's English lite model (social-media aware: emoji,
 * emoticons, negation). The model takes ~100 ms to load, so it is required on first use, not at
 * import: scoring code that only reads counts never pays for it.
 */
import { createRequire } from 'node:module';
import type { Model, WinkMethods } from 'wink-nlp';

export type SentimentLabel = 'positive' | 'neutral' | 'negative';

/** |score| below this is neutral; wink scores a sentence with no sentiment words as exactly 0. */
export const SENTIMENT_THRESHOLD = 0.05;

const require = createRequire(import.meta.url);
let nlp: WinkMethods | null = null;

function engine(): WinkMethods {
  if (!nlp) {
    const winkNLP = require('wink-nlp') as (model: Model, pipe?: string[]) => WinkMethods;
    const model = require('wink-eng-lite-web-model') as Model;
    // Only the stages sentiment needs: sentence boundaries, negation, sentiment.
    nlp = winkNLP(model, ['sbd', 'negation', 'sentiment']);
  }
  return nlp;
}

/** Sentiment score in [-1, 1] (0 for empty or non-string input). */
export function sentimentScore(text: string): number {
  if (typeof text !== 'string' || text.trim() === '') return 0;
  const nlpEngine = engine();
  const s = nlpEngine.readDoc(text).out(nlpEngine.its.sentiment) as unknown as number;
  return Number.isFinite(s) ? Math.max(-1, Math.min(1, s)) : 0;
}

export function labelFor(score: number): SentimentLabel {
  if (score >= SENTIMENT_THRESHOLD) return 'positive';
  if (score <= -SENTIMENT_THRESHOLD) return 'negative';
  return 'neutral';
}

/** Label of a comment or mention. */
export function classifySentiment(text: string): SentimentLabel {
  return labelFor(sentimentScore(text));
}

/** Label and score together, for ingestion that stores both. */
export function analyseSentiment(text: string): { label: SentimentLabel; score: number } {
  const score = sentimentScore(text);
  return { label: labelFor(score), score };
}
