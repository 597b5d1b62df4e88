/**
 * Features of a comment for the default model. The same function serves training
 * (scripts/sentiment/train.ts) and classification, so they cannot drift apart.
 *
 * Dense features carry what generalises beyond the training words: lexicon polarity with
 * negation scope and intensifiers, emoji, customer-service trouble by kind, irony markers, and
 * whether opposite polarities sit in different clauses (mixed). Sparse bag-of-words features
 * (words, negated words, bigrams) let the model learn the rest, with strong regularisation.
 */
import { createRequire } from 'node:module';
import type { Model, WinkMethods } from 'wink-nlp';
import {
  AFINN,
  COMPLAINT_PATTERNS,
  CONTRAST,
  emojiPolarity,
  INTENSIFIERS,
  IRONY_EMOJI,
  IRONY_PATTERNS,
  isNegator,
  RESOLVED,
  RETURN_INTENT,
  wordPolarity,
} from './lexicon.ts';
import { forWink, tokenize } from './text.ts';

export type Features = Map<string, number>;

const require = createRequire(import.meta.url);
let nlp: WinkMethods | null = null;

/** wink-nlp's document sentiment in [-1, 1], kept as one signal among many. */
function winkScore(text: string): number {
  if (!nlp) {
    const winkNLP = require('wink-nlp') as (model: Model, pipe?: string[]) => WinkMethods;
    nlp = winkNLP(require('wink-eng-lite-web-model') as Model, ['sbd', 'negation', 'sentiment']);
  }
  const s = nlp.readDoc(forWink(text)).out(nlp.its.sentiment) as unknown as number;
  return Number.isFinite(s) ? Math.max(-1, Math.min(1, s)) : 0;
}

/** Negation reaches this many words forward within the clause ("not at all good"). */
const NEGATION_SCOPE = 3;

/** Squashes a non-negative sum so one long rant does not dominate: 0, 1, 2 -> 0, 0.69, 1.1. */
const squash = (x: number): number => Math.log1p(Math.max(0, x));

export function extractFeatures(text: string): Features {
  const f: Features = new Map();
  const add = (k: string, v = 1) => f.set(k, (f.get(k) ?? 0) + v);
  const lower = text.toLowerCase().replace(/’/g, "'");
  const tokens = tokenize(text);

  let pos = 0;
  let neg = 0;
  let negatedPos = 0;
  let negatedNeg = 0;
  let emoPos = 0;
  let emoNeg = 0;
  let contrast = 0;
  const clauses: number[] = [0];
  let negationLeft = 0;
  let boost = 1;
  let prevWord = '';

  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t.kind === 'break') {
      negationLeft = 0;
      boost = 1;
      clauses.push(0);
      prevWord = '';
      continue;
    }
    if (t.kind === 'emoji') {
      const p = emojiPolarity(t.text);
      if (p > 0) emoPos += p;
      if (p < 0) emoNeg -= p;
      if (IRONY_EMOJI.has(t.text)) add('irony:emoji');
      add(`e:${t.text}`);
      clauses[clauses.length - 1]! += p / 2;
      continue;
    }
    const w = t.text;
    if (CONTRAST.has(w)) {
      contrast += 1;
      negationLeft = 0;
      clauses.push(0);
      prevWord = '';
      continue;
    }
    // Two- and three-word AFINN phrases ("does not work", "no fun") before single words.
    const next = tokens[i + 1]?.kind === 'word' ? tokens[i + 1]!.text : '';
    const next2 = next && tokens[i + 2]?.kind === 'word' ? tokens[i + 2]!.text : '';
    let polarity: number;
    let span = 0;
    if (next2 && AFINN[`${w} ${next} ${next2}`] !== undefined) {
      polarity = AFINN[`${w} ${next} ${next2}`]!;
      span = 2;
    } else if (next && AFINN[`${w} ${next}`] !== undefined) {
      polarity = AFINN[`${w} ${next}`]!;
      span = 1;
    } else polarity = wordPolarity(w);

    const negated = negationLeft > 0;
    add(negated ? `w:NOT_${w}` : `w:${w}`);
    if (prevWord) add(`b:${prevWord}_${w}`);
    prevWord = w;

    if (isNegator(w)) {
      negationLeft = NEGATION_SCOPE;
      add('negator');
      continue;
    }
    if (INTENSIFIERS.has(w)) {
      boost = 1.5;
      continue;
    }
    if (polarity !== 0) {
      const p = polarity * boost;
      if (negated) {
        // "not good" is a complaint; "not bad" is faint praise, weaker than "good".
        if (p > 0) negatedPos += p;
        else negatedNeg -= p;
        clauses[clauses.length - 1]! += p > 0 ? -p : -p / 2;
      } else {
        if (p > 0) pos += p;
        else neg -= p;
        clauses[clauses.length - 1]! += p;
      }
      boost = 1;
    }
    if (negationLeft > 0) negationLeft -= 1;
    i += span;
  }

  add('lex:pos', squash(pos) / 2);
  add('lex:neg', squash(neg) / 2);
  add('lex:negated_pos', squash(negatedPos) / 2);
  add('lex:negated_neg', squash(negatedNeg) / 2);
  add('emo:pos', squash(emoPos) / 2);
  add('emo:neg', squash(emoNeg) / 2);
  add('wink', winkScore(text));

  let complaintKinds = 0;
  for (const [kind, re] of Object.entries(COMPLAINT_PATTERNS)) {
    if (re.test(lower)) {
      add(`cx:${kind}`);
      complaintKinds += 1;
    }
  }
  if (complaintKinds) add('cx:any');
  add('cx:kinds', squash(complaintKinds));
  const resolved = RESOLVED.test(lower);
  if (resolved) add('cx:resolved');
  const returning = RETURN_INTENT.test(lower);
  if (returning) add('praise:return');

  const positive = pos + emoPos > 0;
  const negative = neg + emoNeg + negatedPos > 0;
  if (IRONY_PATTERNS.test(lower)) add('irony:phrase');
  // Sarcasm: praise wrapped around trouble, with no sign the trouble was solved.
  if (positive && complaintKinds && !resolved && !returning) add('sarcasm:praise+trouble');
  if (f.has('irony:emoji') && complaintKinds) add('sarcasm:emoji+trouble');

  if (contrast) add('contrast');
  const posClause = clauses.some((c) => c > 0.5);
  const negClause = clauses.some((c) => c < -0.5);
  if (posClause && negClause) add(contrast ? 'mixed:contrast' : 'mixed:clauses');
  if (!positive && !negative && !complaintKinds && !f.has('irony:phrase')) add('flat');

  if (text.includes('?')) {
    add('question');
    if (complaintKinds) add('question+trouble');
  }
  if (/!/.test(text)) add('exclaim');
  if (/\b[A-Z]{3,}\b/.test(text)) add('caps');
  return f;
}
