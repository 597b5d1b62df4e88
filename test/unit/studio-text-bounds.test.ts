import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { scoreContent, StudioError } from '../../src/studio/index.ts';
import { extractEntities, proseOf } from '../../src/studio/text-entities.ts';
import { measureText } from '../../src/studio/text-analysis.ts';
import { TextPool } from '../../src/studio/text-pool.ts';

// The studio's text analysis is linear in the text (docs/studio.md, "Bounded analysis"). Texts of
// 10,000 characters (the accepted maximum) made of long runs are where a pattern that backtracks takes
// seconds: wink-nlp's tokenizer (its e-mail, URL and ordinal patterns) and the studio's own e-mail and
// domain patterns are quadratic on such a run unless bounded. The bound is CPU time of this thread,
// generous (the slowest such text takes ~0.5 s; an unbounded pattern takes 7-11 s on "#1111…"), so a
// loaded machine does not fail it.
const CPU_BUDGET_MS = 1_500;
const LENGTH = 10_000;

/** CPU time this thread spent measuring `text`, in milliseconds. */
async function cpuMs(text: string): Promise<number> {
  const before = process.threadCpuUsage();
  await measureText(text);
  const used = process.threadCpuUsage(before);
  return (used.user + used.system) / 1000;
}

// Pieces whose long repetition hits a pattern's worst case: hashtag, mention, e-mail and URL-like
// runs, digits, punctuation alone and unbalanced, emoji (ZWJ sequences, flags, keycaps), combining
// marks, and the lines and sentences that multiply per-sentence work.
// prettier-ignore
const PIECES = [
  '#', '#1', '1', "'", '’', '?', '!', '.', '..', ',', '-', 'a-', '--', '_', '(', ')', '[', '{', '"', ':', ';',
  'a', 'aaaa.', 'a.', 'A', 'I.', 'a@', '@', '@a', 'a@a.', 'a@a.a', '.a@', '%', '+', '/', '//', ':/',
  'http://', 'https://a', 'www.', 'a.com', '.com', 'x.co/', '&', '$', '£', '1st', '11th', '1:', '1.',
  '😀', '👨‍👩‍👧', '🇫🇷', '1️⃣', '\u200D', '\uFE0F', 'e\u0301', '\u0301', '日本', '\n', '\r\n', ' ', '\t',
  'a\n', '? ', 'a. ', 'Is it? ', 'no ', 'not good. ',
];

const pathological = fc
  .tuple(
    fc.array(fc.constantFrom(...PIECES), { minLength: 1, maxLength: 3 }),
    fc.constantFrom('', '#', '@', 'Stop ', 'http://', 'a', ' '),
  )
  .map(([unit, prefix]) => {
    const piece = unit.join('');
    return (prefix + piece.repeat(Math.ceil(LENGTH / piece.length))).slice(0, LENGTH);
  });

describe('text analysis is bounded', () => {
  it('measures any 10,000-character text within its CPU budget', async () => {
    await measureText('Warm the models up. Which one would you pick? #coffee'); // first use loads them
    // The texts of the security review, always, then generated ones.
    const examples = [
      `#${'1'.repeat(LENGTH - 1)}`,
      "'".repeat(LENGTH),
      '?'.repeat(LENGTH),
      'a-'.repeat(LENGTH / 2),
      'aaaa.'.repeat(LENGTH / 5),
      'a@a.'.repeat(LENGTH / 4),
    ];
    for (const text of examples) {
      expect(await cpuMs(text), JSON.stringify(text.slice(0, 12))).toBeLessThan(CPU_BUDGET_MS);
    }
    await fc.assert(
      fc.asyncProperty(pathological, async (text) => {
        expect(await cpuMs(text), JSON.stringify(text.slice(0, 24))).toBeLessThan(CPU_BUDGET_MS);
      }),
      { numRuns: 24, seed: 20_261_128 },
    );
  }, 120_000);

  it('finds the same links, e-mail addresses, hashtags and mentions as the quadratic patterns did', () => {
    // The patterns before they were made linear: the oracle, on texts of short runs where they are
    // fast. Starting only where a match can start must change no result there.
    const OLD_URL =
      /\b(?:https?:\/\/|www\.)[^\s<>"]+|\b(?:[a-z0-9-]+\.)+(?:com|org|net|io|co|ly|me|app|shop|store|link|tv|gg|uk|de|fr|es|it|nl|au|ca|in)(?:\/[^\s<>"]*)?(?![\p{L}\p{N}@])/giu;
    const OLD_EMAIL = /[\p{L}\p{N}._%+-]+@[\p{L}\p{N}.-]+\.\p{L}{2,}/gu;
    const OLD_TRAILING = /[.,!?;:)\]}'"]+$/u;
    const oldLinks = (text: string) =>
      [...text.replace(OLD_EMAIL, ' ').matchAll(OLD_URL)].map((m) => m[0].replace(OLD_TRAILING, ''));
    const oldProse = (text: string) => proseOf(text.replace(OLD_EMAIL, ' ').replace(OLD_URL, ' '));
    // prettier-ignore
    const token = fc.oneof(
      fc.constantFrom('shop', 'Sale', 'me', 'you', 'x', 'a-b', 'co', 'com', 'café', '2024', 'it', 'in', 'ok', 'wait'),
      // Not '_': in "foo_bar.example.com" the quadratic pattern found "example.com" (no word boundary
      // after the underscore, so it started past the first dot); the linear one finds no link there.
      fc.constantFrom('.', '..', '...', ',', '!', '?', ')', '(', '"', "'", '-', '/', ':', '@', '#', '%', '+', '&'),
fc.constantFrom('me@shop.com', 'a.b@x.co.uk', 'first.last+tag@mail.example.org', 'x@y', '@user', '@user.name'),
      fc.constantFrom('https://x.com/a?b=c', 'http://example.org/', 'www.shop.io', 'shop.example.com/sale', 'a.b.c.example.com'),
      fc.constantFrom('go.to', 'link.in', 'bio.link', 'Example.COM', 'x.co', '-x.com', 'a--b.net', '#tag', '#2024'),
    );
    const text = fc
      .array(
        fc.tuple(fc.array(token, { minLength: 1, maxLength: 4 }), fc.constantFrom(' ', '\n', '  ', '')),
        {
          maxLength: 12,
        },
      )
      .map((parts) => parts.map(([run, space]) => run.join('') + space).join(''));
    fc.assert(
      fc.property(text, (t) => {
        expect(extractEntities(t).links).toEqual(oldLinks(t));
        expect(proseOf(t)).toBe(oldProse(t));
      }),
      { numRuns: 3_000, seed: 20_261_128 },
    );
  });
});

describe('the analysis threads', () => {
  const pools: TextPool[] = [];
  afterAll(async () => Promise.all(pools.map((p) => p.close())));

  it('stops an analysis over its CPU budget with text_too_complex, then scores the next text', async () => {
    const slow = 'a\n'.repeat(LENGTH / 2);
    const error = await scoreContent(
      { content_type: 'text', content: slow, platform: 'instagram' },
      { textCpuBudgetMs: 1 },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StudioError);
    expect(error).toMatchObject({ kind: 'text_too_complex' });
    expect((error as StudioError).detail).toMatch(/took more than its 1 ms budget/);
    // A fresh thread took over: the same text within the normal budget is scored.
    const result = await scoreContent({ content_type: 'text', content: slow, platform: 'instagram' });
    expect(result.score).toBeGreaterThanOrEqual(0);
  }, 60_000);

  it('refuses texts past its queue with studio_busy and a retry time', async () => {
    const pool = new TextPool(1, 1);
    pools.push(pool);
    const first = pool.measure('The first text waits for the thread to start.');
    const refused = await pool.measure('The second has no room.').catch((e: unknown) => e);
    expect(refused).toMatchObject({ kind: 'studio_busy', details: { retryAfterSeconds: 1 } });
    expect((await first).words).toBe(9);
  }, 60_000);
});
