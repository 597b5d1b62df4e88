/**
 * Quality checks of a text that the format checklist cannot see: words that mean nothing
 * (gibberish, placeholder Latin, a lone punctuation mark), shouting, stuffing, repetition, spam
 * wording and unsubstantiated health or finance claims. Each failing check caps the score
 * (QUALITY_CAPS): a caption that is junk, spam or a harmful claim is not a good post however
 * well it is formatted. See docs/adr/0156-junk-text-is-capped-not-refused.md.
 *
 * Every pattern here is linear in the text (docs/studio.md, "Bounded analysis"): alternations
 * of fixed words, single quantified character classes, no nested quantifiers and no
 * backreferences; repetition is counted in code.
 */
import type { Signal } from './signals.ts';
import type { QualityCheck } from './types.ts';

/** Highest score while each check fails; the lowest cap of the failing checks applies. */
export const QUALITY_CAPS: Record<QualityCheck, number> = {
  junk: 10,
  claims: 30,
  spam: 35,
  hashtag_stuffing: 40,
  all_caps: 50,
  repetition: 50,
};

/** What was found, per failing check: a people-facing detail and the fix. */
export interface QualityFinding {
  check: QualityCheck;
  detail: string;
  suggestion: string;
}

/** Below this many words a text says nothing to judge ("." or "ok"). */
export const MIN_WORDS = 2;
/** Share of words that no English speaker could pronounce above which a text is gibberish. */
export const GIBBERISH_SHARE = 0.5;
/** Share of words in capitals (of at least ALL_CAPS_MIN_WORDS) above which a text shouts. */
export const ALL_CAPS_SHARE = 0.5;
export const ALL_CAPS_MIN_WORDS = 4;
/** Hashtags over the platform norm are stuffing from this many, or when they outnumber the words. */
export const STUFFED_HASHTAGS = 15;

// The commonest English words: real English prose of a few words nearly always has one.
// prettier-ignore
const COMMON = new Set([
  'a', 'an', 'the', 'and', 'or', 'but', 'to', 'of', 'in', 'on', 'at', 'for', 'with', 'from', 'by',
  'is', 'are', 'was', 'be', 'it', 'this', 'that', 'you', 'your', 'we', 'our', 'us', 'i', 'my', 'me',
  'new', 'now', 'get', 'all', 'one', 'not', 'no', 'do', 'can', 'will', 'just', 'here', 'what', 'how',
  'why', 'who', 'out', 'up', 'so', 'more', 'day', 'time', 'link', 'bio', 'shop', 'love', 'free',
]);

const LOREM =
  /\b(?:lorem|ipsum|dolor|amet|consectetur|adipiscing|eiusmod|tempor|incididunt|labore|dolore|aliqua|veniam|nostrud|exercitation|ullamco|laboris)\b/giu;
const KEYBOARD_ROWS = ['qwertyuiop', 'asdfghjkl', 'zxcvbnm'];

const SPAM: readonly { pattern: RegExp; what: string }[] = [
  {
    pattern:
      /\b(?:dm|inbox|message)(?: me| us)? (?:for|4) (?:a )?(?:promos?|promotion|collabs?|collaborations?|shout ?outs?|features?|paid posts?)\b/iu,
    what: 'a "DM for promo" offer',
  },
  {
    pattern:
      /\b(?:follow (?:for|4) follow|like (?:for|4) like|f4f|l4l|follow ?back|follow (?:me )?and i(?:'ll| will) follow)\b/iu,
    what: 'a "follow for follow" request',
  },
  {
    pattern:
      /\b(?:tag \d+ friends?|(?:like|share|follow|comment)(?: and| &| \+) (?:follow|share|tag|like|comment)(?: and| &| \+)? ?(?:\w+ )?to win|claim your (?:free )?(?:prize|gift|reward)|you(?:'ve| have) won|free (?:iphone|gift cards?|money|followers))\b/iu,
    what: 'giveaway bait',
  },
];

const CLAIMS: readonly { pattern: RegExp; kind: 'health' | 'finance' }[] = [
  {
    pattern:
      /\b(?:cures?|cured|curing|heals?|reverses?|eliminates?|prevents?) (?:your |all |any |every )?(?:cancer|diabetes|anxiety|depression|covid|arthritis|disease|illness|infections?|obesity|autism|adhd|insomnia|alzheimer's|dementia|hiv|asthma)\b/iu,
    kind: 'health',
  },
  {
    pattern:
      /\b(?:miracle (?:cure|pill|supplement|treatment|remedy|diet)|100 ?% effective|doctor[- ]approved cure|doctors hate|cures? (?:it )?all|the cure for)\b/iu,
    kind: 'health',
  },
  {
    pattern:
      /\b(?:guaranteed (?:returns?|profits?|income|gains|results|to (?:double|grow|earn))|risk[- ]free (?:investment|returns?|profits?|income|trading)|get rich|double your (?:money|investment|crypto)|can't lose|cannot lose)\b/iu,
    kind: 'finance',
  },
];

function isGibberishWord(word: string): boolean {
  if (word.length < 4 || !/^[a-z]+$/u.test(word)) return false;
  if (!/[aeiouy]/u.test(word)) return true;
  if (
    KEYBOARD_ROWS.some((row) =>
      [...Array(row.length - 4).keys()].some((i) => word.includes(row.slice(i, i + 5))),
    )
  )
    return true;
  // Longest consonant run, counted in code.
  let run = 0;
  let longest = 0;
  for (const ch of word) {
    run = 'aeiouy'.includes(ch) ? 0 : run + 1;
    longest = Math.max(longest, run);
  }
  return longest >= 4;
}

/** The words of a text's prose, lower-cased (letters and apostrophes). */
function wordsOf(prose: string): string[] {
  return prose.match(/[\p{L}']+/gu) ?? [];
}

/**
 * The quality findings of a text. `prose` is the text without hashtags, mentions, links and
 * emoji (proseOf); `links` as extracted; `language` as detected.
 */
export function measureQuality(
  text: string,
  prose: string,
  links: readonly string[],
  language: string,
): QualityFinding[] {
  const out: QualityFinding[] = [];
  const raw = wordsOf(prose);
  const words = raw.map((w) => w.toLowerCase());

  // Junk: nothing to read, placeholder Latin, or gibberish.
  const lorem = (prose.match(LOREM) ?? []).length;
  const odd = words.filter(isGibberishWord).length;
  const checkable = words.filter((w) => w.length >= 4 && /^[a-z]+$/u.test(w)).length;
  const noCommon = !words.some((w) => COMMON.has(w));
  // The common words are English ones; a text in another language is judged on its letters alone.
  const english = language === 'en' || language === 'und';
  if (words.length < MIN_WORDS) {
    out.push({
      check: 'junk',
      detail: `The text has ${words.length === 0 ? 'no words' : 'one word'}, so there is no caption to judge.`,
      suggestion: 'Write the caption: say what you are sharing and why it matters to your audience',
    });
  } else if (lorem >= 3) {
    out.push({
      check: 'junk',
      detail: `The text is placeholder Latin ("lorem ipsum"): ${lorem} of its words are filler.`,
      suggestion: 'Replace the placeholder text with the real caption',
    });
  } else if (
    checkable > 0 &&
    (odd / checkable >= GIBBERISH_SHARE || (english && noCommon && odd / checkable >= 0.25))
  ) {
    out.push({
      check: 'junk',
      detail: `The text reads as gibberish: ${odd} of its ${checkable} longer words are not pronounceable words (such as "${excerptWord(raw, words)}").`,
      suggestion: 'Replace the random letters with real words that say what you are sharing',
    });
  }

  const lowerText = text.toLowerCase().replace(/’/gu, "'");
  const claims = CLAIMS.filter((c) => c.pattern.test(lowerText));
  if (claims.length > 0) {
    const first = lowerText.match(claims[0]!.pattern)?.[0] ?? '';
    const kinds = [...new Set(claims.map((c) => c.kind))].join(' and ');
    out.push({
      check: 'claims',
      detail: `The text makes an unsubstantiated ${kinds} claim ("${first}"), which platforms remove and regulators fine, and which can harm readers.`,
      suggestion: `Remove the ${kinds} claim ("${first}") or replace it with a specific, sourced statement`,
    });
  }

  const spam = SPAM.filter((s) => s.pattern.test(lowerText)).map((s) => s.what);
  const distinctLinks = new Set(links.map((l) => l.toLowerCase()));
  if (links.length >= 3 || distinctLinks.size < links.length)
    spam.push(`${links.length} links${distinctLinks.size < links.length ? ', some repeated' : ''}`);
  if (spam.length > 0) {
    out.push({
      check: 'spam',
      detail: `The text reads as spam: it contains ${spam.join(' and ')}, which platforms demote and readers skip.`,
      suggestion: `Remove ${spam.join(' and ')}, and say what you offer instead`,
    });
  }

  const longWords = raw.filter((w) => [...w].length >= 2 && /\p{L}/u.test(w));
  const caps = longWords.filter((w) => w === w.toUpperCase() && w !== w.toLowerCase()).length;
  if (longWords.length >= ALL_CAPS_MIN_WORDS && caps / longWords.length >= ALL_CAPS_SHARE) {
    out.push({
      check: 'all_caps',
      detail: `${caps} of the ${longWords.length} words are in capitals, which reads as shouting.`,
      suggestion: 'Write in sentence case, keeping capitals for names and at most one word of emphasis',
    });
  }

  const repeated = repetition(text, words);
  if (repeated) {
    out.push({
      check: 'repetition',
      detail: `The text repeats itself: ${repeated}.`,
      suggestion: 'Say each thing once: cut the repeated words, lines and characters',
    });
  }
  return out;
}

function excerptWord(raw: string[], words: string[]): string {
  const i = words.findIndex(isGibberishWord);
  return raw[i] ?? '';
}

/** A description of the worst repetition, or null: a word, a line or a character said too often. */
function repetition(text: string, words: string[]): string | null {
  const counts = new Map<string, number>();
  for (const w of words) if (w.length >= 3 && !COMMON.has(w)) counts.set(w, (counts.get(w) ?? 0) + 1);
  const top = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0];
  if (top && top[1] >= 4 && top[1] / words.length >= 0.2) return `"${top[0]}" ${top[1]} times`;
  const lines = text
    .split(/\r?\n/u)
    .map((l) => l.trim().toLowerCase())
    .filter((l) => l.length >= 3);
  const seen = new Set<string>();
  for (const l of lines) {
    if (seen.has(l)) return 'the same line twice';
    seen.add(l);
  }
  let run = 1;
  let prev = '';
  for (const ch of text) {
    // Letters and punctuation ("sooooo", "!!!!!"); emoji have their own check.
    run = ch === prev && /[\p{L}\p{P}]/u.test(ch) ? run + 1 : 1;
    prev = ch;
    if (run >= 5) return `"${ch}" ${run} or more times in a row`;
  }
  return null;
}

/** Whether hashtags over the platform norm are stuffing rather than a few too many. */
export function isStuffing(hashtags: number, words: number): boolean {
  return hashtags >= STUFFED_HASHTAGS || hashtags >= words;
}

export const STUFFING_DETAIL = (hashtags: number, words: number): string =>
  `The text has ${hashtags} hashtags to ${words} words, which reads as stuffing.`;

/**
 * One zero-weight signal per failing quality check: it adds no points, it caps the score, and
 * its suggestion's lift is what lifting the cap gains.
 */
export function qualitySignals(findings: readonly QualityFinding[]): Signal[] {
  return findings.map((f) => ({
    id: f.check,
    weight: 0,
    quality: 0,
    pillars: {},
    cap: QUALITY_CAPS[f.check],
    suggestion: f.suggestion,
    flag: { check: f.check, detail: f.detail },
  }));
}
