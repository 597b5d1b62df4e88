/**
 * The default model: a logistic regression over lexicon, emoji, customer-service, irony,
 * contrast and bag-of-words features (features.ts), trained on the evaluation set's TRAIN
 * split only (scripts/sentiment/train.ts). Deterministic, in-process, no network.
 */
import { readFileSync } from 'node:fs';
import { extractFeatures } from './features.ts';
import { predict, type LinearWeights } from './linear.ts';
import type { ModelOutput, SentimentModel } from './types.ts';

export const DEFAULT_MODEL_ID = 'brand-lr';

let weights: LinearWeights | null = null;
function loadWeights(): LinearWeights {
  weights ??= JSON.parse(
    readFileSync(new URL('./default-weights.json', import.meta.url), 'utf8'),
  ) as LinearWeights;
  return weights;
}

export function classifyOne(text: string): ModelOutput {
  return predict(loadWeights(), extractFeatures(text));
}

export const defaultModel: SentimentModel = {
  id: DEFAULT_MODEL_ID,
  get version() {
    return loadWeights().version;
  },
  languages: ['en'],
  classify: (texts) => texts.map(classifyOne),
};
