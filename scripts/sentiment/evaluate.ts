/**
 * Evaluation of a sentiment classifier on one split of the labelled set: the figures reported
 * in docs/scoring.md and asserted by test/unit/sentiment-evaluation.test.ts.
 */
import { createRequire } from 'node:module';
import type { Model, WinkMethods } from 'wink-nlp';
import { classifyWithDefaultModel, PACK_LANGUAGES } from '../../src/scoring/sentiment/index.ts';
import {
  isSarcasmOrComplaint,
  readDataset,
  readMultilingual,
  type GoldLabel,
  type LabelledComment,
} from './split.ts';

export type Predict = (text: string) => GoldLabel;

export const CLASSES = ['positive', 'neutral', 'negative', 'mixed'] as const;

export interface ClassFigures {
  precision: number;
  recall: number;
  f1: number;
  support: number;
}

export interface Evaluation {
  split: string;
  items: number;
  english: number;
  /** Four-class accuracy on English items (an English item left unscored counts as wrong). */
  accuracy: number;
  macroF1: number;
  perClass: Record<(typeof CLASSES)[number], ClassFigures>;
  /** Accuracy with mixed merged into neutral, as the daily snapshot stores counts. */
  storedAccuracy: number;
  sarcasmComplaint: { items: number; accuracy: number };
  probe: { items: number; accuracy: number; negatives: number; negativesCaught: number };
  /**
   * Items labelled `unscored` in a language no built-in model covers, how many were left
   * unscored, and English items wrongly left unscored. (The set's Spanish, German, Portuguese
   * and French items, labelled before those languages had a model, are measured on their own
   * sets: evaluateLanguage.)
   */
  language: { nonEnglish: number; nonEnglishUnscored: number; englishUnscored: number };
}

const ratio = (a: number, b: number) => (b === 0 ? 0 : a / b);

export function evaluate(items: readonly LabelledComment[], predict: Predict, split: string): Evaluation {
  const predicted = items.map((c) => ({ c, p: predict(c.text) }));
  const english = predicted.filter(({ c }) => c.label !== 'unscored');
  const perClass = {} as Evaluation['perClass'];
  for (const k of CLASSES) {
    const tp = english.filter(({ c, p }) => c.label === k && p === k).length;
    const fp = english.filter(({ c, p }) => c.label !== k && p === k).length;
    const fn = english.filter(({ c, p }) => c.label === k && p !== k).length;
    const precision = ratio(tp, tp + fp);
    const recall = ratio(tp, tp + fn);
    perClass[k] = {
      precision,
      recall,
      f1: ratio(2 * precision * recall, precision + recall),
      support: tp + fn,
    };
  }
  const stored = (l: GoldLabel) => (l === 'mixed' ? 'neutral' : l);
  const sc = english.filter(({ c }) => isSarcasmOrComplaint(c));
  const probe = english.filter(({ c }) => c.tags.includes('probe'));
  const nonEnglish = predicted.filter(({ c }) => c.label === 'unscored' && !PACK_LANGUAGES.includes(c.lang));
  return {
    split,
    items: items.length,
    english: english.length,
    accuracy: ratio(english.filter(({ c, p }) => c.label === p).length, english.length),
    macroF1: CLASSES.reduce((s, k) => s + perClass[k].f1, 0) / CLASSES.length,
    perClass,
    storedAccuracy: ratio(english.filter(({ c, p }) => stored(c.label) === stored(p)).length, english.length),
    sarcasmComplaint: {
      items: sc.length,
      accuracy: ratio(sc.filter(({ c, p }) => c.label === p).length, sc.length),
    },
    probe: {
      items: probe.length,
      accuracy: ratio(probe.filter(({ c, p }) => c.label === p).length, probe.length),
      negatives: probe.filter(({ c }) => c.label === 'negative').length,
      negativesCaught: probe.filter(({ c, p }) => c.label === 'negative' && p === 'negative').length,
    },
    language: {
      nonEnglish: nonEnglish.length,
      nonEnglishUnscored: nonEnglish.filter(({ p }) => p === 'unscored').length,
      englishUnscored: english.filter(({ p }) => p === 'unscored').length,
    },
  };
}

/** The classifier this project ships. */
export const defaultPredict: Predict = (text) => classifyWithDefaultModel(text).label;

const require = createRequire(import.meta.url);
let wink: WinkMethods | null = null;
/** The v1 classifier, kept for comparison: wink-nlp's lite model, |score| < 0.05 neutral. */
export const winkV1Predict: Predict = (text) => {
  if (!wink) {
    const winkNLP = require('wink-nlp') as (model: Model, pipe?: string[]) => WinkMethods;
    wink = winkNLP(require('wink-eng-lite-web-model') as Model, ['sbd', 'negation', 'sentiment']);
  }
  const s = wink.readDoc(text).out(wink.its.sentiment) as unknown as number;
  return s >= 0.05 ? 'positive' : s <= -0.05 ? 'negative' : 'neutral';
};

export function splitItems(split: 'train' | 'heldout'): LabelledComment[] {
  return readDataset().filter((c) => c.split === split);
}

/** The figures docs/scoring.md publishes per language for the multilingual model. */
export interface LanguageEvaluation {
  language: string;
  items: number;
  /** Three-class accuracy (a `mixed` prediction counts as neutral, as stored). */
  accuracy: number;
  negativeRecall: number;
  negativePrecision: number;
  sarcasmComplaint: { items: number; accuracy: number };
  /** Items the classifier left unscored (wrong language detected, or no model). */
  unscored: number;
  /** Items detected as another language (scored by the wrong model). */
  wrongLanguage: number;
}

export function evaluateLanguage(items: readonly LabelledComment[], language: string): LanguageEvaluation {
  const mine = items.filter((c) => c.lang === language);
  const predicted = mine.map((c) => {
    const r = classifyWithDefaultModel(c.text);
    return { c, p: r.label === 'mixed' ? 'neutral' : r.label, detected: r.language };
  });
  const tp = predicted.filter(({ c, p }) => c.label === 'negative' && p === 'negative').length;
  const negatives = predicted.filter(({ c }) => c.label === 'negative').length;
  const calledNegative = predicted.filter(({ p }) => p === 'negative').length;
  const sc = predicted.filter(({ c }) => isSarcasmOrComplaint(c));
  return {
    language,
    items: mine.length,
    accuracy: ratio(predicted.filter(({ c, p }) => c.label === p).length, mine.length),
    negativeRecall: ratio(tp, negatives),
    negativePrecision: ratio(tp, calledNegative),
    sarcasmComplaint: {
      items: sc.length,
      accuracy: ratio(sc.filter(({ c, p }) => c.label === p).length, sc.length),
    },
    unscored: predicted.filter(({ p }) => p === 'unscored').length,
    wrongLanguage: predicted.filter(({ detected }) => detected !== language).length,
  };
}

export function multilingualItems(split: 'dev' | 'heldout'): LabelledComment[] {
  return readMultilingual().filter((c) => c.split === split);
}
