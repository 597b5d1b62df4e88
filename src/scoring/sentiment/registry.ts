/**
 * Which model scores which text. Each text's language is detected; the first configured model
 * that covers the language scores it, and a text no model covers is `unscored` rather than
 * misjudged. The built-in models are always available after the configured ones: the
 * multilingual lexicon model for Spanish, German, Portuguese and French, and the default English
 * model for English (and for emoji-only text, language 'und').
 *
 * Configuration (environment):
 *   SENTIMENT_MODEL       comma-separated: `default`, `onnx:/path/model.onnx` (vocabulary next
 *                         to it as model.vocab.json). Earlier entries win; default: `default`.
 *   SENTIMENT_VOCABULARY  vocabulary file, when a single ONNX model is configured and its
 *                         vocabulary is not next to it.
 */
import { ConfigError } from '../../infra/config.ts';
import { defaultModel } from './default-model.ts';
import { detectLanguage } from './language.ts';
import { multilingualModel } from './multilingual-model.ts';
import { loadOnnxModel } from './onnx.ts';
import { zeroProbabilities, type SentimentModel, type SentimentResult } from './types.ts';

export interface SentimentClassifier {
  readonly models: readonly SentimentModel[];
  classify(texts: readonly string[]): Promise<SentimentResult[]>;
}

/** The model for a language; English models also take text without words (emoji only). */
export function modelFor(models: readonly SentimentModel[], language: string): SentimentModel | undefined {
  const lang = language === 'und' ? 'en' : language;
  return models.find((m) => m.languages.includes(lang) || m.languages.includes('*'));
}

export const unscoredResult = (language: string): SentimentResult => ({
  label: 'unscored',
  confidence: 0,
  probabilities: zeroProbabilities(),
  language,
  modelId: 'none',
  modelVersion: 'none',
});

export function createClassifier(configured: readonly SentimentModel[]): SentimentClassifier {
  const models = [...configured];
  for (const builtIn of [multilingualModel, defaultModel])
    if (!models.includes(builtIn)) models.push(builtIn);
  return {
    models,
    async classify(texts) {
      const results: SentimentResult[] = new Array(texts.length);
      // Group texts by model so each model sees one batch.
      const batches = new Map<SentimentModel, { at: number[]; language: string[] }>();
      texts.forEach((text, i) => {
        const language = typeof text === 'string' && text.trim() ? detectLanguage(text).language : 'und';
        const model = modelFor(models, language);
        if (!model) {
          results[i] = unscoredResult(language);
          return;
        }
        const batch = batches.get(model) ?? { at: [], language: [] };
        batch.at.push(i);
        batch.language.push(language);
        batches.set(model, batch);
      });
      for (const [model, batch] of batches) {
        const out = await model.classify(
          batch.at.map((i) => (typeof texts[i] === 'string' ? texts[i]! : '')),
          batch.language,
        );
        batch.at.forEach((i, j) => {
          const o = out[j];
          if (!o)
            throw new Error(
              `sentiment model ${model.id} returned ${out.length} results for ${batch.at.length} texts`,
            );
          results[i] = { ...o, language: batch.language[j]!, modelId: model.id, modelVersion: model.version };
        });
      }
      return results;
    },
  };
}

/** Reads SENTIMENT_MODEL / SENTIMENT_VOCABULARY; throws ConfigError on a bad setting. */
export async function loadClassifier(
  env: Record<string, string | undefined> = process.env,
): Promise<SentimentClassifier> {
  const specs = (env.SENTIMENT_MODEL?.trim() || 'default')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const onnxCount = specs.filter((s) => s.startsWith('onnx:')).length;
  const vocabulary = env.SENTIMENT_VOCABULARY?.trim() || undefined;
  if (vocabulary && onnxCount !== 1)
    throw new ConfigError('SENTIMENT_VOCABULARY needs exactly one onnx: model in SENTIMENT_MODEL');
  const models: SentimentModel[] = [];
  for (const spec of specs) {
    if (spec === 'default') models.push(defaultModel);
    else if (spec.startsWith('onnx:') && spec.length > 5)
      models.push(await loadOnnxModel(spec.slice(5), vocabulary));
    else
      throw new ConfigError(
        `SENTIMENT_MODEL entries must be "default" or "onnx:/path/model.onnx", got "${spec}"`,
      );
  }
  return createClassifier(models);
}
