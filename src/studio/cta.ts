/**
 * Calls to action in a caption. A phrase counts only where it asks the reader to do something:
 * not inside a hashtag or mention ("#follow"), not negated ("never share your password",
 * "don't click suspicious links"), and, for single verbs that are also ordinary words ("share",
 * "watch", "follow"), only in imperative position: at the start of a clause, optionally after
 * "please", "go", "just", "now", "and", "then" or "so". Multi-word phrases ("link in bio",
 * "tag a friend", "let us know") are unambiguous wherever they stand.
 */

// prettier-ignore
export const CTA_PHRASES = [
  'link in bio', 'shop now', 'buy now', 'order now', 'learn more', 'read more', 'sign up', 'subscribe',
  'follow', 'comment', 'share', 'tag a friend', 'tag someone', 'save this', 'save it', 'dm us', 'dm me',
  'message us', 'click', 'tap', 'swipe up', 'download', 'join', 'register', 'book now', 'try it',
  'get yours', 'check out', 'visit', 'let us know', 'let me know', 'tell us', 'tell me', 'drop a',
  'reply', 'retweet', 'repost', 'turn on notifications', 'watch', 'listen', 'grab', 'claim', 'vote',
];

/** Phrases that are calls to action wherever they appear (not negated). */
const ANYWHERE = new Set(CTA_PHRASES.filter((p) => p.includes(' ') || p === 'subscribe'));

// Words that may stand before an imperative at the start of a clause.
const LEAD_INS = new Set(['please', 'pls', 'go', 'just', 'now', 'and', 'then', 'so', 'also', 'oh', 'today']);
const NEGATION =
  /\b(never|don't|dont|do not|doesn't|not|no need to|avoid|stop|won't|cannot|can't|shouldn't|refrain from)\b/u;

/** Sentence and clause boundaries: punctuation (commas too: "Don't miss out, book now"), line breaks, emoji. */
const CLAUSES = /[.,!?;:\n\r…•|()]+|[\p{Extended_Pictographic}]+|\s[-–—]\s/u;

export function detectCallsToAction(text: string): string[] {
  if (typeof text !== 'string') return [];
  // Hashtags, mentions and links are labels, not requests.
  const cleaned = text.replace(/https?:\/\/\S+/giu, ' ').replace(/[#@][\p{L}\p{N}_]+/gu, ' ');
  const found = new Set<string>();
  for (const clause of cleaned.toLowerCase().replace(/’/g, "'").split(CLAUSES)) {
    // Hyphenated compounds stay one word: "follow-up" is a noun, not "follow".
    const words = clause.match(/[\p{L}\p{N}']+(?:-[\p{L}\p{N}']+)*/gu) ?? [];
    if (!words.length) continue;
    const joined = ` ${words.join(' ')} `;
    for (const phrase of CTA_PHRASES) {
      const at = joined.indexOf(` ${phrase} `);
      if (at < 0) continue;
      const before = joined.slice(0, at).trim().split(' ').filter(Boolean);
      // Negation anywhere earlier in the clause ("never share your data") cancels it.
      if (NEGATION.test(before.join(' '))) continue;
      if (ANYWHERE.has(phrase) || before.every((w) => LEAD_INS.has(w))) found.add(phrase);
    }
  }
  return CTA_PHRASES.filter((p) => found.has(p));
}
