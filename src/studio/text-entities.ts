/**
 * Counting of hashtags, mentions, links and emoji. These use Unicode-aware patterns rather
 * than wink-nlp token types because wink's tokenizer splits ZWJ emoji and flags into
 * several "emoji", stops hashtags at the first non-ASCII letter (#café -> #caf) and does
 * not recognise bare domains (shop.example.com) as URLs.
 */

/*
 * Every pattern here runs in time linear in the text (docs/studio.md, "Bounded analysis"): a
 * pattern that can start anywhere inside a long run and scan to its end before failing costs the
 * square of the run (a 10,000-character run of letters took 0.4 s per pass). So the e-mail
 * pattern starts only where its local part starts (not after another local-part character), and
 * a bare domain only where its first label starts (not after a label character, nor after a
 * label character and a dot): a later start inside the same run reaches the same end and could
 * only find what the first start already found.
 */
const URL_PATTERN =
  /\b(?:https?:\/\/|www\.)[^\s<>"]+|(?<![a-z0-9-]|[a-z0-9-]\.)\b(?:[a-z0-9-]+\.)+(?:com|org|net|io|co|ly|me|app|shop|store|link|tv|gg|uk|de|fr|es|it|nl|au|ca|in)(?:\/[^\s<>"]*)?(?![\p{L}\p{N}@])/giu;
const EMAIL_PATTERN = /(?<![\p{L}\p{N}._%+-])[\p{L}\p{N}._%+-]+@[\p{L}\p{N}.-]+\.\p{L}{2,}/gu;
// A hashtag needs at least one letter: platforms do not link "#2024".
const HASHTAG_PATTERN = /(?<![\p{L}\p{N}_&#])#([\p{L}\p{M}\p{N}_]*[\p{L}\p{M}_][\p{L}\p{M}\p{N}_]*)/gu;
const MENTION_PATTERN = /(?<![\p{L}\p{N}_.@])@([A-Za-z0-9_](?:[A-Za-z0-9_.]*[A-Za-z0-9_])?)/gu;
const EMOJI_PATTERN = /\p{Extended_Pictographic}|\p{Regional_Indicator}|\u20E3/u;
// Starts only at the first of a run of punctuation: a start inside it could only fail again.
const TRAILING_PUNCTUATION = /(?<![.,!?;:)\]}'"])[.,!?;:)\]}'"]+$/u;

export interface TextEntities {
  links: string[];
  hashtags: string[];
  mentions: string[];
  /** Emoji counted as user-perceived characters: a family or a flag is one. */
  emoji: number;
}

const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' });

export function countEmoji(text: string): number {
  let count = 0;
  for (const { segment } of graphemes.segment(text)) if (EMOJI_PATTERN.test(segment)) count++;
  return count;
}

export function extractEntities(text: string): TextEntities {
  // E-mail addresses, then links, are blanked before the next pattern runs so 'me@shop.com'
  // is neither a link nor a mention and a link's '#fragment' is not a hashtag.
  const withoutEmail = text.replace(EMAIL_PATTERN, ' ');
  const links = [...withoutEmail.matchAll(URL_PATTERN)].map((m) => m[0].replace(TRAILING_PUNCTUATION, ''));
  const rest = withoutEmail.replace(URL_PATTERN, ' ');
  return {
    links,
    hashtags: [...rest.matchAll(HASHTAG_PATTERN)].map((m) => `#${m[1]}`),
    mentions: [...rest.matchAll(MENTION_PATTERN)].map((m) => `@${m[1]}`),
    emoji: countEmoji(rest),
  };
}

/**
 * The words of a text: without links, e-mail addresses, hashtags, mentions and emoji, spaces
 * collapsed. Wording checks (reading ease, sentiment, questions, the length sweet spot) read
 * this, so adding or cutting a hashtag or an emoji moves only its own check.
 */
export function proseOf(text: string): string {
  return text
    .replace(EMAIL_PATTERN, ' ')
    .replace(URL_PATTERN, ' ')
    .replace(HASHTAG_PATTERN, ' ')
    .replace(MENTION_PATTERN, ' ')
    .replace(
      /\p{Extended_Pictographic}|\p{Regional_Indicator}|\u20E3|\uFE0F|\u200D|\p{Emoji_Modifier}/gu,
      ' ',
    )
    .replace(/[^\S\r\n]+/gu, ' ')
    .replace(/ *(\r?\n) */gu, '$1')
    .trim();
}

/**
 * Length in Unicode code points. Platforms count roughly this way; Twitter's weighting
 * (every link 23, emoji 2) is not modelled.
 */
export function characterCount(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}
