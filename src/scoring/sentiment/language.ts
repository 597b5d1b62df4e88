/**
 * Language of a comment, so text no configured model understands is left unscored instead of
 * misjudged. tinyld (MIT, no dependencies) detects the language; on a few words it guesses
 * ("meh" -> Klingon, "lol" -> Volapük), so English is decided first from positive evidence:
 * the share of words that are English function words or in the English sentiment lexicons.
 * A text is only called non-English when it is mostly in another script, or when tinyld is
 * confident and the words are not mostly English. Anything else defaults to English: the
 * service's comments are overwhelmingly English, and a wrong "unscored" only loses a count
 * while a wrong "English" is what the default model was scoring before anyway.
 *
 * Text with no letters at all (emoji, emoticons, numbers) is 'und' and is scored by the
 * English model: emoji carry the same sentiment in any language.
 */
import { createRequire } from 'node:module';
import { LANGUAGE_PACKS } from './languages.ts';
import { AFINN, SLANG } from './lexicon.ts';
import { letterWords, tokenize } from './text.ts';

export interface DetectedLanguage {
  /** ISO 639-1 code, or 'und' when the text has no words. */
  language: string;
  /** How the decision was made, for debugging and the evaluation report. */
  basis: 'no-words' | 'english-words' | 'language-words' | 'script' | 'detector' | 'default';
}

// Closed-class English words: short texts are mostly made of these.
const ENGLISH_FUNCTION_WORDS = new Set(
  `a about after again all am an and any anyone are as at be been before being both but by can can't
  could did didn't do does doesn't don't down each even ever every few for from get got had has hasn't
  have haven't he her here him his how i i'm i've if in into is isn't it it's its just me more most
  my no nor not now of off on once one only or other our out over own same she should so some still
  such than that the their them then there these they this those through to too two under until up
  us very was wasn't we were what when where which while who whom why will with won't would you
  your yours yet lol lmao omg ngl tbh fr rn bro bruh yall y'all ur u im ive dont cant wont idk pls
  thanks thank order delivery store app service customer price refund again week weeks day days
  new time never already today tomorrow yesterday know means mean think want need make made take
  took come came go going gone see saw look looks looking say said tell told give gave use used find
  work works call called try tried buy bought pay paid send sent keep put let feel felt first last
  next three four five month months year years hour hours minute minutes size price prices bill
  money card account phone email website online shop store staff team brand product products item
  items box parcel package flight train bus car room food coffee drink menu fix fixed finally
  really actually literally probably maybe back well much many still even also every people guys
  everyone someone something nothing everything anything home work weekend morning night`.split(/\s+/),
);

type DetectAll = (typeof import('tinyld'))['detectAll'];
const require = createRequire(import.meta.url);
let detectAllFn: DetectAll | null = null;
/**
 * tinyld's normal model costs ~50 MB and ~0.5 s to load, so it is required on first use, not at
 * import: code that imports the scoring engine without classifying text never pays for it. (The
 * light model is 12 MB but misnames more short texts, e.g. German "Tolle Qualität" as French.)
 */
function detectAll(text: string, options: { only: string[] }) {
  detectAllFn ??= (require('tinyld') as typeof import('tinyld')).detectAll;
  return detectAllFn(text, options);
}

const isEnglishWord = (w: string): boolean =>
  ENGLISH_FUNCTION_WORDS.has(w) || AFINN[w] !== undefined || SLANG[w] !== undefined;

/**
 * The share of a text's words that are the function or brand-comment words of a language with a
 * sentiment pack (languages.ts), for each such language. Elided words count by their parts
 * ("l'appli" is "l" and "appli").
 */
function packShares(words: readonly string[]): { language: string; share: number } | undefined {
  const parts = words.map((w) => (w.includes("'") ? w.split("'").filter(Boolean) : [w]));
  let best: { language: string; share: number } | undefined;
  for (const [language, pack] of Object.entries(LANGUAGE_PACKS)) {
    const known = parts.filter((ps) =>
      ps.some((p) => pack.functionWords.has(p) || pack.words[p] !== undefined),
    ).length;
    const share = known / words.length;
    if (!best || share > best.share) best = { language, share };
  }
  return best;
}

/** Share of English words at or above which a text is English whatever the detector says. */
const ENGLISH_WORD_SHARE = 0.5;
/** Share of a sentiment pack language's words at or above which (if English has fewer) it wins. */
const PACK_WORD_SHARE = 0.5;
/** tinyld's score for its top language at or above which a non-English guess is trusted. */
const DETECTOR_CONFIDENCE = 0.5;
/** Below this share of English words any non-English guess of the detector is taken. */
const FOREIGN_WORD_SHARE = 0.25;
/**
 * Languages the detector may answer. tinyld knows ~60 including Klingon, Volapük and Latin,
 * which it returns for short English ("meh", "lol"); brand comments are not written in those.
 */
const LANGUAGES = (
  'en es fr de it pt nl pl tr sv da no fi ru uk ja zh ko ar hi id vi th he el cs sk hu ro bg hr sr ' +
  'sl lt lv et ms tl bn ur fa ta te mr'
).split(' ');

export function detectLanguage(text: string): DetectedLanguage {
  if (typeof text !== 'string') return { language: 'und', basis: 'no-words' };
  const words = letterWords(tokenize(text));
  if (words.length === 0) return { language: 'und', basis: 'no-words' };
  const letters = words.join('');
  const latin = (letters.match(/\p{Script=Latin}/gu) ?? []).length;
  const top = detectAll(text, { only: LANGUAGES })[0];
  if (latin < letters.length / 2) {
    // Cyrillic, CJK, Arabic...: certainly not English, even if the detector cannot name it.
    return { language: top?.lang && top.lang !== 'en' ? top.lang : 'und-script', basis: 'script' };
  }
  const english = words.filter(isEnglishWord).length / words.length;
  // Spanish, German, Portuguese or French by their own words, when they outnumber the English
  // ones: short comments ("Horrible experiencia", "Was kostet der Versand?") fool the detector.
  const pack = packShares(words);
  if (
    pack &&
    pack.share > 0 &&
    // Mostly that language's words and more of them than English ones (a tie goes to the detector).
    ((pack.share >= PACK_WORD_SHARE && (pack.share > english || top?.lang === pack.language)) ||
      // The detector's usual confusions on a few words: Spanish as Romanian or Italian, say.
      (pack.share >= FOREIGN_WORD_SHARE &&
        pack.share > english &&
        top !== undefined &&
        top.lang !== 'en' &&
        !LANGUAGE_PACKS[top.lang] &&
        top.accuracy < DETECTOR_CONFIDENCE))
  )
    return { language: pack.language, basis: 'language-words' };
  // Spanish and Portuguese share most short words; their letters tell them apart.
  if (top?.lang === 'es' && /[ãõç]/u.test(letters) && !/[ñ¿¡]/u.test(text))
    return { language: 'pt', basis: 'language-words' };
  if (english >= ENGLISH_WORD_SHARE) return { language: 'en', basis: 'english-words' };
  if (top && top.lang !== 'en' && (top.accuracy >= DETECTOR_CONFIDENCE || english < FOREIGN_WORD_SHARE))
    return { language: top.lang, basis: 'detector' };
  return { language: 'en', basis: top?.lang === 'en' ? 'detector' : 'default' };
}
