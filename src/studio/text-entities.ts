/**
 * Counting of hashtags, mentions, links and emoji. These use Unicode-aware patterns rather
 * than wink-nlp token types because wink's tokenizer splits ZWJ emoji and flags into
 * several "emoji", stops hashtags at the first non-ASCII letter (#café -> #caf) and does
 * not recognise bare domains (shop.example.com) as URLs.
 */

/*
 * Every pattern here runs in time linear in the text (docs/studio.md, "Bounded analysis"). A
 * pattern that may start anywhere inside a long run and scan to its end before failing costs the
 * square of the run (10,000 letters took 0.4 s per pass), so the e-mail and bare-domain patterns
 * are searched in two forms (`Linear`): `search` starts only where a match can start (an
 * address's local part not after another local-part character; a domain's first label not after
 * a label character, a label character and hyphens, or a label character and a dot), since a
 * later start inside the same run reaches the same end and fails or succeeds with the first; and
 * right after a match, where the text runs on, `resume` (the unrestricted pattern, sticky) tries
 * that one position as the unrestricted search would have. The results are the unrestricted
 * pattern's, except where a domain follows an underscore ("foo_bar.example.com": no word
 * boundary at "b", so the unrestricted pattern found "example.com"; these find no link).
 */
interface Linear {
  search: RegExp;
  resume: RegExp;
}

const TLDS = 'com|org|net|io|co|ly|me|app|shop|store|link|tv|gg|uk|de|fr|es|it|nl|au|ca|in';
const URL_PATTERN: Linear = {
  search: new RegExp(
    String.raw`\b(?:https?:\/\/|www\.)[^\s<>"]+|\b(?<![a-z0-9]|[a-z0-9]-+|[a-z0-9-]\.)(?:[a-z0-9-]+\.)+(?:${TLDS})(?:\/[^\s<>"]*)?(?![\p{L}\p{N}@])`,
    'giu',
  ),
  resume: new RegExp(
    String.raw`\b(?:https?:\/\/|www\.)[^\s<>"]+|\b(?:[a-z0-9-]+\.)+(?:${TLDS})(?:\/[^\s<>"]*)?(?![\p{L}\p{N}@])`,
    'iuy',
  ),
};
const EMAIL_PATTERN: Linear = {
  search: /(?<![\p{L}\p{N}._%+-])[\p{L}\p{N}._%+-]+@[\p{L}\p{N}.-]+\.\p{L}{2,}/gu,
  resume: /[\p{L}\p{N}._%+-]+@[\p{L}\p{N}.-]+\.\p{L}{2,}/uy,
};

/** Matches of `pattern` from left to right, as its unrestricted form finds them. */
function matchAll(text: string, pattern: Linear): RegExpExecArray[] {
  const out: RegExpExecArray[] = [];
  let at = 0;
  while (at <= text.length) {
    let match: RegExpExecArray | null = null;
    if (at > 0) {
      pattern.resume.lastIndex = at;
      match = pattern.resume.exec(text);
    }
    if (!match) {
      pattern.search.lastIndex = at;
      match = pattern.search.exec(text);
    }
    if (!match) break;
    out.push(match);
    at = match.index + Math.max(1, match[0].length);
  }
  return out;
}

/** `text` with every match of `pattern` replaced by a space. */
function blank(text: string, pattern: Linear): string {
  let out = '';
  let from = 0;
  for (const match of matchAll(text, pattern)) {
    out += `${text.slice(from, match.index)} `;
    from = match.index + match[0].length;
  }
  return out + text.slice(from);
}

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
  const withoutEmail = blank(text, EMAIL_PATTERN);
  const links = matchAll(withoutEmail, URL_PATTERN).map((m) => m[0].replace(TRAILING_PUNCTUATION, ''));
  const rest = blank(withoutEmail, URL_PATTERN);
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
  return blank(blank(text, EMAIL_PATTERN), URL_PATTERN)
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
