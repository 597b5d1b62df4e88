/**
 * Drafts built from parts, so a test can follow a studio suggestion the way a writer would: add
 * the missing hashtags, drop a sentence, swap a long-winded sentence for a plain one. `follow`
 * edits the parts a suggestion names and nothing else; it throws on a suggestion it does not
 * know, so a new kind of advice cannot escape the property tests unnoticed.
 */
import fc from 'fast-check';
import { FORMATS_BY_PLATFORM } from '../../src/studio/index.ts';
import type { Format } from '../../src/studio/index.ts';
import { characterCount, proseOf } from '../../src/studio/text-entities.ts';
import { type Platform, PLATFORMS } from '../../src/core/catalog.ts';

export type Sentence = { kind: 'plain' | 'warm' | 'negative' | 'complex'; text: string };

export interface Draft {
  hook: string | null;
  body: Sentence[];
  /** Lines added below the words to expand a draft. */
  more: Sentence[];
  questions: number;
  /** Questions after the first `questions`, rewritten as statements. */
  statements: number;
  cta: string | null;
  linkInBio: boolean;
  emoji: number;
  hashtags: number;
  mentions: number;
  links: number;
}

// prettier-ignore
const POOLS: Record<Sentence['kind'], string[]> = {
  plain: [
    'We made a new mug for your desk.', 'It comes in blue and green.', 'The shop opens at nine.',
    'Our team tried it all week.', 'It fits in a small bag.', 'The lid keeps the heat in.',
    'We test each one by hand.', 'It is made from clay we dig near the sea.', 'Each cup holds a pint.',
    'The new line lands on Monday.',
  ],
  warm: ['We love how soft it feels.', 'Our team is so happy with it.', 'Thank you for all the kind notes.'],
  negative: [
    'The old one was awful and broke all the time.', 'We hated the long delays.',
    'Last year was a terrible mess for us.',
  ],
  complex: [
    'Our comprehensive sustainability methodology prioritises environmentally responsible manufacturing.',
    'Institutional stakeholders systematically operationalise multidisciplinary innovations.',
    'Unprecedented interdepartmental collaboration facilitated extraordinary productivity.',
  ],
};
const REWORDED: Record<string, string> = {
  'The old one was awful and broke all the time.': 'The old one was plain and we used it a lot.',
  'We hated the long delays.': 'It took a while to ship.',
  'Last year was a terrible mess for us.': 'Last year was a busy one for us.',
  'Our comprehensive sustainability methodology prioritises environmentally responsible manufacturing.':
    'We take care to make each one in a way that is kind to the land, the air and the sea we love.',
  'Institutional stakeholders systematically operationalise multidisciplinary innovations.':
    'The big teams that run things now put new ideas to work in a plain and steady way.',
  'Unprecedented interdepartmental collaboration facilitated extraordinary productivity.':
    'Our teams worked well as one, and we got far more done than we have in years.',
};
const HOOKS = [
  '5 ways to start your day',
  'Why we changed everything',
  'You asked and we listened',
  'Our spring range is here',
  'A quiet week at the studio',
  'Introducing the desk mug',
];
// prettier-ignore
const QUESTIONS = ['Which one would you pick?', 'Blue or green?', 'Coffee or tea?', 'Who is in?', 'Ready?'];
const CTAS = ['Save this for later.', 'Tell us what you think.', 'Shop now.', 'Follow for more.'];
const EMOJI = ['✨', '☕', '🌿', '💙', '🎉', '🙌'];

const sentence = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.constantFrom(...POOLS.plain).map((text) => ({ kind: 'plain', text }) as Sentence),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(...POOLS.warm).map((text) => ({ kind: 'warm', text }) as Sentence),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(...POOLS.negative).map((text) => ({ kind: 'negative', text }) as Sentence),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(...POOLS.complex).map((text) => ({ kind: 'complex', text }) as Sentence),
  },
);

export const draftArbitrary: fc.Arbitrary<Draft> = fc.record({
  hook: fc.option(fc.constantFrom(...HOOKS), { nil: null }),
  body: fc.array(sentence, { minLength: 0, maxLength: 14 }),
  more: fc.constant([]),
  questions: fc.integer({ min: 0, max: 5 }),
  statements: fc.constant(0),
  cta: fc.option(fc.constantFrom(...CTAS), { nil: null }),
  linkInBio: fc.boolean(),
  emoji: fc.integer({ min: 0, max: 6 }),
  hashtags: fc.integer({ min: 0, max: 34 }),
  mentions: fc.integer({ min: 0, max: 6 }),
  links: fc.integer({ min: 0, max: 2 }),
});

/** Platform and a format it publishes (threads are split into posts and have their own tests). */
export const placementArbitrary: fc.Arbitrary<{ platform: Platform; format: Format }> = fc
  .constantFrom(...PLATFORMS)
  .chain((platform) =>
    fc
      .constantFrom(...FORMATS_BY_PLATFORM[platform].filter((f) => f !== 'thread'))
      .map((format) => ({ platform, format })),
  );

export function render(d: Draft): string {
  const words = [
    ...d.body.map((s) => s.text),
    ...QUESTIONS.slice(0, d.questions),
    ...QUESTIONS.slice(d.questions, d.questions + d.statements).map((q) => q.replace('?', '.')),
    ...(d.cta ? [d.cta] : []),
    ...(d.linkInBio ? ['Link in bio.'] : []),
  ].join(' ');
  const emoji = Array.from({ length: d.emoji }, (_, i) => EMOJI[i % EMOJI.length]).join('');
  const lines = [
    ...(d.hook ? [d.hook] : []),
    words + (emoji ? ` ${emoji}` : ''),
    ...(d.links
      ? [Array.from({ length: d.links }, (_, i) => `https://shop.example.com/p${i}`).join(' ')]
      : []),
    ...(d.mentions ? [Array.from({ length: d.mentions }, (_, i) => `@friend${i}`).join(' ')] : []),
    ...(d.hashtags ? [Array.from({ length: d.hashtags }, (_, i) => `#tag${i}`).join(' ')] : []),
  ].filter((l) => l.trim() !== '');
  // Added lines go below the words, and never above the opening line.
  if (d.more.length) {
    const at = words.trim() ? (d.hook ? 2 : 1) : Math.min(1, lines.length);
    lines.splice(at, 0, d.more.map((s) => s.text).join(' '));
  }
  return lines.join('\n');
}

const number = (suggestion: string, pattern: RegExp): number => {
  const m = suggestion.match(pattern);
  if (!m?.[1]) throw new Error(`cannot read a number from ${suggestion}`);
  return Number(m[1].replace(/,/g, ''));
};

const proseLength = (d: Draft) => characterCount(proseOf(render(d)));

/** The draft after doing what `suggestion` asks. */
export function follow(d: Draft, suggestion: string): Draft {
  const next: Draft = { ...d, body: [...d.body], more: [...d.more] };
  if (/^Cut the (caption|post|description) to under/.test(suggestion)) {
    const limit = number(suggestion, /under ([\d,]+) characters/);
    // Sentences first, then the surplus tags and links.
    while (characterCount(render(next)) >= limit) {
      if (next.body.length) next.body.pop();
      else if (next.hashtags) next.hashtags--;
      else if (next.mentions) next.mentions--;
      else if (next.links) next.links--;
      else break;
    }
  } else if (suggestion.startsWith('Expand the wording')) {
    const min = number(suggestion, /at least ([\d,]+) characters/);
    for (let i = 0; proseLength(next) < min; i++)
      next.more.push({ kind: 'plain', text: POOLS.plain[i % POOLS.plain.length]! });
  } else if (suggestion.startsWith('Tighten the wording')) {
    const max = number(suggestion, /about ([\d,]+) characters/);
    while (proseLength(next) > max && next.more.length + next.body.length)
      if (!next.more.pop()) next.body.pop();
  } else if (suggestion.startsWith('Write the caption')) {
    next.more.push({ kind: 'plain', text: POOLS.plain[0]! });
  } else if (/^(Open with a hook|Shorten the opening line|Write an opening line)/.test(suggestion)) {
    next.hook = 'You will want this';
  } else if (suggestion.startsWith('Add ') && suggestion.includes('hashtag')) {
    next.hashtags += number(suggestion, /^Add (\d+)/);
  } else if (suggestion.startsWith('Cut the hashtags to')) {
    next.hashtags = number(suggestion, /to (\d+) or fewer/);
  } else if (suggestion.startsWith('End with a call to action')) {
    next.cta = 'Tag a friend who needs this.';
  } else if (suggestion.startsWith('Reword the negative phrasing')) {
    // Reworded, not deleted: about as long, in as plain words.
    next.body = next.body.map((s) =>
      s.kind === 'negative' ? { kind: 'plain', text: REWORDED[s.text] ?? 'It went well.' } : s,
    );
  } else if (suggestion.startsWith('Simplify the wording')) {
    next.body = next.body.map((s) =>
      s.kind === 'complex' ? { kind: 'plain', text: REWORDED[s.text] ?? 'It is a good cup.' } : s,
    );
  } else if (suggestion.startsWith('Ask your audience one question')) {
    next.questions = 1;
  } else if (suggestion.startsWith('Keep to one or two questions')) {
    next.statements = next.questions - 2;
    next.questions = 2;
  } else if (suggestion.startsWith('Add an emoji')) {
    next.emoji += 1;
  } else if (suggestion.startsWith('Cut the emoji to')) {
    next.emoji = number(suggestion, /to (\d+) or fewer/);
  } else if (suggestion.startsWith('Move the link to your bio')) {
    next.links = 0;
    next.linkInBio = true;
  } else if (suggestion.startsWith('Keep to one link')) {
    next.links = 1;
  } else if (suggestion.startsWith('Tag at most 3 accounts')) {
    next.mentions = 3;
  } else {
    throw new Error(`no way to follow: ${suggestion}`);
  }
  return next;
}
