/**
 * The sentiment classifier's vocabulary. A result carries everything needed to store a
 * classified count so that it can be re-scored later: the label, how sure the model was, the
 * detected language, and which model (id and version) produced it.
 */

/** What a model can say about a text it scores. */
export type ScoredLabel = 'positive' | 'neutral' | 'negative' | 'mixed';
/** `unscored`: no configured model covers the text's language, so no judgement is made. */
export type SentimentClass = ScoredLabel | 'unscored';

export const SCORED_LABELS: readonly ScoredLabel[] = ['positive', 'neutral', 'negative', 'mixed'];

export interface SentimentResult {
  label: SentimentClass;
  /** Probability the model gives its label, in [0, 1]; 0 for `unscored`. */
  confidence: number;
  /** Per-label probabilities (all 0 for `unscored`). */
  probabilities: Record<ScoredLabel, number>;
  /** ISO 639-1 code of the detected language, or 'und' when the text has no words (emoji only). */
  language: string;
  modelId: string;
  modelVersion: string;
}

/** What a model returns per text; the registry adds the language. */
export type ModelOutput = Pick<SentimentResult, 'label' | 'confidence' | 'probabilities'> & {
  label: ScoredLabel;
};

/**
 * A sentiment model an operator can plug in. `languages` lists the ISO 639-1 codes it
 * understands ('*' for any); texts in other languages are never sent to it. The registry passes
 * each text's detected language alongside, for models that cover several.
 */
export interface SentimentModel {
  readonly id: string;
  readonly version: string;
  readonly languages: readonly string[];
  classify(texts: readonly string[], languages?: readonly string[]): Promise<ModelOutput[]> | ModelOutput[];
}

export const zeroProbabilities = (): Record<ScoredLabel, number> => ({
  positive: 0,
  neutral: 0,
  negative: 0,
  mixed: 0,
});
