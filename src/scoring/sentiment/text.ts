/**
 * Tokenising short social text: words (lower-cased, letter runs of three or more shortened to
 * two so "soooo" and "sooo" agree), emoji and emoticons as their own tokens, and clause breaks
 * at punctuation and contrast words so negation and mixed sentiment can be scoped.
 */

export type Token =
  { kind: 'word'; text: string } | { kind: 'emoji'; text: string } | { kind: 'break'; text: string };

// Emoticons first (longest first) so ">:(" is not read as ":(".
const EMOTICONS = [
  '>:(',
  ":'(",
  ':-)',
  ':-(',
  ':-D',
  ':-/',
  ':-P',
  ';-)',
  ':)',
  ':(',
  ':D',
  ':/',
  ':P',
  ':p',
  ';)',
  '<3',
  ':|',
  '(:',
  '):',
  'xD',
  'XD',
];
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

// One regex, one pass: URL | mention | emoticon | emoji sequence (with ZWJ / modifiers) | word | break.
const TOKEN_RE = new RegExp(
  [
    String.raw`(?<url>https?:\/\/\S+)`,
    String.raw`(?<mention>@\w+)`,
    `(?<emoticon>${EMOTICONS.map(escape).join('|')})(?![\\p{L}\\p{N}])`,
    String.raw`(?<emoji>\p{Extended_Pictographic}(?:\uFE0F|\p{Emoji_Modifier}|\u200D\p{Extended_Pictographic}\uFE0F?)*)`,
    String.raw`(?<word>[\p{L}\p{N}]+(?:['’][\p{L}]+)*)`,
    String.raw`(?<brk>[.!?;:…]+|,|\n)`,
  ].join('|'),
  'gu',
);

export function tokenize(text: string): Token[] {
  const out: Token[] = [];
  for (const m of text.matchAll(TOKEN_RE)) {
    const g = m.groups ?? {};
    if (g.url || g.mention) continue;
    if (g.emoticon) out.push({ kind: 'emoji', text: g.emoticon.replace('-', '') });
    else if (g.emoji) out.push({ kind: 'emoji', text: g.emoji.replace(/\uFE0F/g, '') });
    else if (g.word)
      out.push({
        kind: 'word',
        text: g.word
          .toLowerCase()
          .replace(/’/g, "'")
          .replace(/(\p{L})\1{2,}/gu, '$1$1'),
      });
    else if (g.brk) out.push({ kind: 'break', text: g.brk });
  }
  return out;
}

/** Words with letters (not numbers), for language evidence. */
export const letterWords = (tokens: readonly Token[]): string[] =>
  tokens.filter((t) => t.kind === 'word' && /\p{L}/u.test(t.text)).map((t) => t.text);

/**
 * Longest run without whitespace handed to wink-nlp. wink's tokenizer applies its regular
 * expressions to each whitespace-delimited run, and several of them (its e-mail, URL and ordinal
 * patterns) backtrack quadratically or worse on a long run: a 10,000-character `#111…` held the
 * thread for seconds. No word, number or phrase of real text comes near this length (links,
 * e-mail addresses and hashtags are taken out before wink reads a text), so ordinary text is
 * unchanged and the cost of a run is bounded.
 */
export const WINK_MAX_RUN = 256;

/**
 * `text` as wink-nlp may read it: every run of more than WINK_MAX_RUN non-whitespace code points
 * is cut into pieces of that length, separated by a space. Linear in the length of the text.
 */
export function forWink(text: string): string {
  if (text.length <= WINK_MAX_RUN) return text;
  return text.replace(/\S+/gu, (run) => {
    if (run.length <= WINK_MAX_RUN) return run;
    const points = [...run];
    if (points.length <= WINK_MAX_RUN) return run;
    const pieces: string[] = [];
    for (let i = 0; i < points.length; i += WINK_MAX_RUN)
      pieces.push(points.slice(i, i + WINK_MAX_RUN).join(''));
    return pieces.join(' ');
  });
}
