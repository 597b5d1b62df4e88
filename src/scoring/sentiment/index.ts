/**
 * Sentiment of comments and mentions: language detection, the default English model, and a
 * registry for operator-configured models (ONNX). See docs/scoring.md, "Sentiment classifier".
 */
import { classifyOne, defaultModel } from './default-model.ts';
import { detectLanguage } from './language.ts';
import { LANGUAGE_PACKS } from './languages.ts';
import { classifyMultilingual, multilingualModel } from './multilingual-model.ts';
import { unscoredResult } from './registry.ts';
import type { SentimentResult } from './types.ts';

export * from './types.ts';
export { detectLanguage, type DetectedLanguage } from './language.ts';
export { forWink, WINK_MAX_RUN } from './text.ts';
export { createClassifier, loadClassifier, modelFor, type SentimentClassifier } from './registry.ts';
export { defaultModel, DEFAULT_MODEL_ID } from './default-model.ts';
export { multilingualModel, MULTILINGUAL_MODEL_ID } from './multilingual-model.ts';
export { PACK_LANGUAGES } from './languages.ts';
export { loadOnnxModel } from './onnx.ts';

/**
 * The built-in models, synchronously, for code that cannot await (ingestion's row parsers):
 * English (and emoji-only text) by the default model; Spanish, German, Portuguese and French by
 * the multilingual lexicon model; any other language `unscored`. Empty or non-string input is
 * neutral with full confidence.
 */
export function classifyWithDefaultModel(text: string): SentimentResult {
  const base = { modelId: defaultModel.id, modelVersion: defaultModel.version };
  if (typeof text !== 'string' || text.trim() === '')
    return {
      label: 'neutral',
      confidence: 1,
      probabilities: { positive: 0, neutral: 1, negative: 0, mixed: 0 },
      language: 'und',
      ...base,
    };
  const { language } = detectLanguage(text);
  if (LANGUAGE_PACKS[language])
    return {
      ...classifyMultilingual(text, language),
      language,
      modelId: multilingualModel.id,
      modelVersion: multilingualModel.version,
    };
  if (language !== 'en' && language !== 'und') return unscoredResult(language);
  return { ...classifyOne(text), language, ...base };
}
