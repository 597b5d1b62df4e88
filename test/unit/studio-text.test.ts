import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatProblem, FORMATS_BY_PLATFORM, scoreContent, StudioError } from '../../src/studio/index.ts';
import type { ContentScoreResult, Format } from '../../src/studio/index.ts';
import { signed } from '../../src/studio/signals.ts';
import { extractEntities } from '../../src/studio/text-entities.ts';
import { measureText } from '../../src/studio/text-analysis.ts';
import { FORMATS } from '../../src/studio/types.ts';
import { type Platform, PLATFORMS } from '../../src/core/catalog.ts';

const score = (content: string, platform: Platform = 'instagram', format: Format = 'post') =>
  scoreContent({ content_type: 'text', content, platform, format });

const find = (r: ContentScoreResult, text: string) => r.feedback.find((f) => f.suggestion.includes(text));

const GOOD_CAPTION =
  'Want glowing skin in 5 minutes? ✨ Our new vitamin C serum is here, and we love how it makes skin feel ' +
  'fresh and bright every single morning. Tell us which routine you would try first! ' +
  '#skincare #glowup #selfcare #vitaminc';

function expectWellFormed(r: ContentScoreResult) {
  expect(Number.isInteger(r.score)).toBe(true);
  expect(r.score).toBeGreaterThanOrEqual(0);
  expect(r.score).toBeLessThanOrEqual(100);
  expect(Object.keys(r.pillar_predictions).sort()).toEqual([
    'impact',
    'momentum',
    'presence',
    'reach',
    'sentiment',
  ]);
  for (const v of Object.values(r.pillar_predictions)) expect(v).toMatch(/^[+-]\d+\.\d$/);
  r.feedback.forEach((f, i) => {
    expect(f.priority).toBe(i + 1);
    expect(f.expected_lift).toMatch(/^\+\d+$/);
    if (i > 0) expect(Number(f.expected_lift)).toBeLessThanOrEqual(Number(r.feedback[i - 1]?.expected_lift));
  });
}

describe('text entities', () => {
  it('counts hashtags, mentions, links and emoji the way people see them', () => {
    const e = extractEntities(
      'Hi #café #2024 #ad_campaign @user.name. Mail me@shop.com or see https://x.com/a#frag and shop.example.com/sale! 👨‍👩‍👧 🇫🇷 👍🏽 ❤️',
    );
    expect(e.hashtags).toEqual(['#café', '#ad_campaign']);
    expect(e.mentions).toEqual(['@user.name']);
    expect(e.links).toEqual(['https://x.com/a#frag', 'shop.example.com/sale']);
    expect(e.emoji).toBe(4);
  });
});

describe('text measurements', () => {
  it('finds hook devices, calls to action and questions', async () => {
    const m = await measureText(
      '5 ways you can glow this summer\nWhich one is yours? Or both?\nLink in bio.',
    );
    expect(m.firstLine).toBe('5 ways you can glow this summer');
    expect(m.hookDevices).toEqual(['number', 'you']);
    expect(m.callsToAction).toContain('link in bio');
    expect(m.questions).toBe(2);
    const plain = await measureText('Our company was founded long ago.');
    expect(plain.hookDevices).toEqual([]);
    expect(plain.callsToAction).toEqual([]);
    expect((await measureText('Stop scrolling: this changes everything')).hookDevices).toEqual(['opener']);
  });

  it('reads sentiment and reading ease with wink-nlp', async () => {
    const happy = await measureText('We love this! Thank you all, it is wonderful and amazing.');
    const sad = await measureText('This is terrible. I hate the awful delays.');
    expect(happy.sentiment).toBeGreaterThan(0.3);
    expect(sad.sentiment).toBeLessThan(0);
    expect(sad.mostNegativeSentence).not.toBeNull();
    const simple = await measureText('The cat sat on the mat. The dog ran to the cat. They had fun all day.');
    const dense = await measureText(
      'Institutional organisational stakeholders systematically operationalise comprehensive multidisciplinary ' +
        'methodologies, facilitating unprecedented interdepartmental effectiveness.',
    );
    expect(simple.readingEase).toBeGreaterThan(80);
    expect(dense.readingEase).toBeLessThan(30);
  });
});

describe('text scoring', () => {
  it('flags a caption over the platform hard limit with the measured length', async () => {
    const caption = `${'Glow every day with us. '.repeat(110)}`.slice(0, 2540);
    const r = await score(caption, 'instagram');
    const item = find(r, 'Cut the caption to under 2,200 characters: it is 2,540');
    // A blocker: it caps the score at 40 and its fix comes first.
    expect(item?.priority).toBe(1);
    expect(r.score).toBeLessThanOrEqual(40);
    expect(
      find(await score(caption.slice(0, 281), 'twitter'), 'under 280 characters: it is 281'),
    ).toBeDefined();
    expect(find(await score(caption.slice(0, 2200), 'instagram'), 'Cut the caption')).toBeUndefined();
    // TikTok takes 4,000 characters, YouTube descriptions 5,000.
    expect(find(await score(caption, 'tiktok'), 'Cut the')).toBeUndefined();
    expect(
      find(await score('word '.repeat(1001), 'youtube'), 'Cut the description to under 5,000'),
    ).toBeDefined();
  });

  it('checks each post of a twitter thread against the 280 limit', async () => {
    const ok = ['First post of the thread.', 'b'.repeat(270), 'Third and last post.'].join('\n\n');
    const long = ['First post of the thread.', 'b'.repeat(300), 'Third and last post.'].join('\n\n');
    expect(find(await score(ok, 'twitter', 'thread'), 'Split post')).toBeUndefined();
    expect(find(await score(long, 'twitter', 'thread'), 'Split post 2 of the thread')?.suggestion).toContain(
      'it is 300 characters, the limit is 280',
    );
    // The same text as a single post is over the limit.
    expect(find(await score(ok, 'twitter', 'post'), 'Cut the post to under 280')).toBeDefined();
  });

  it('compares hashtags with the platform norm and hard cap', async () => {
    const tags = (n: number) =>
      Array.from({ length: n }, (_, i) => `#tag${String.fromCharCode(97 + (i % 26))}${i}`).join(' ');
    expect(
      find(await score(`Love it ${tags(12)}`, 'instagram'), 'Cut the hashtags to 5 or fewer')?.suggestion,
    ).toContain('it has 12');
    expect(
      find(await score(`Love it ${tags(31)}`, 'instagram'), 'Cut the hashtags to 5 or fewer: above 30')
        ?.suggestion,
    ).toContain('refuses the post');
    expect(find(await score(`Love it ${tags(16)}`, 'youtube'), 'ignores every hashtag')).toBeDefined();
    expect(find(await score('Love it #one', 'instagram'), 'Add 2 relevant hashtags')?.suggestion).toContain(
      'it has 1',
    );
    expect(find(await score(`Love it ${tags(4)}`, 'instagram'), 'hashtag')).toBeUndefined();
  });

  it('knows where caption links are clickable', async () => {
    const text = 'New drop today, grab yours at https://shop.example.com/new';
    expect(
      find(await score(text, 'instagram'), 'links in instagram captions are not clickable')?.suggestion,
    ).toContain('https://shop.example.com/new');
    expect(find(await score(text, 'tiktok'), 'not clickable')).toBeDefined();
    expect(find(await score(text, 'twitter'), 'link')).toBeUndefined();
    expect(
      find(await score(`${text} and https://a.example.com`, 'facebook'), 'Keep to one link'),
    ).toBeDefined();
  });

  it('flags too many mentions and unusual emoji counts', async () => {
    expect(
      find(
        await score('Thanks @a @b @c @d @e for coming', 'twitter'),
        'Tag at most 3 accounts: the text tags 5',
      ),
    ).toBeDefined();
    expect(find(await score('Thanks @a @b for coming', 'twitter'), 'Tag at most')).toBeUndefined();
    expect(find(await score('Fresh look for spring', 'instagram'), 'Add an emoji')?.suggestion).toContain(
      'has 0',
    );
    expect(
      find(
        await score('Fresh look 🌸🌸🌸🌸🌸🌸', 'instagram'),
        'Cut the emoji to 3 or fewer: the text has 6',
      ),
    ).toBeDefined();
  });

  it('asks for a hook, a call to action and a question when they are missing', async () => {
    const r = await score('Our company was founded in 1990 in a small town by two friends.', 'facebook');
    expect(
      find(r, 'Open with a hook: the first line ("Our company was founded in 1990 in a sm…")'),
    ).toBeDefined();
    const listicle = await score('3 things we learned in 1990 from two friends in a small town.', 'facebook');
    expect(find(listicle, 'Open with a hook')).toBeUndefined();
    expect(find(r, 'End with a call to action such as "Share this with a friend')).toBeDefined();
    expect(find(r, 'Ask your audience one question')).toBeDefined();
    const long = await score(
      'Why does a mug made from recycled river clay keep your coffee hot for much longer than the steel flask you carry to work every single morning, through the commute, the first meeting and the inbox that waits after it?',
      'instagram',
    );
    expect(find(long, 'Shorten the opening line to under 125 characters')).toBeDefined();
  });

  it('quotes the most negative sentence and moves the sentiment pillar', async () => {
    const sad = await score('Big news today. Honestly the delays were terrible and we hate them.', 'twitter');
    const happy = await score('Big news today. We love you all and are so excited and grateful!', 'twitter');
    expect(
      find(sad, 'Reword the negative phrasing, starting with "Honestly the delays were terrible'),
    ).toBeDefined();
    expect(sad.pillar_predictions.sentiment.startsWith('-')).toBe(true);
    expect(happy.pillar_predictions.sentiment.startsWith('+')).toBe(true);
    expect(Number(happy.pillar_predictions.sentiment)).toBeGreaterThan(
      Number(sad.pillar_predictions.sentiment),
    );
  });

  it('asks for simpler wording when reading ease is low', async () => {
    const r = await score(
      'Institutional stakeholders systematically operationalise comprehensive multidisciplinary methodologies, ' +
        'facilitating unprecedented interdepartmental effectiveness throughout organisational hierarchies.',
      'facebook',
    );
    expect(
      find(r, 'Simplify the wording of 1 sentence under Flesch reading ease 30, starting with "Institutional')
        ?.suggestion,
    ).toMatch(/swap long words such as "\w+/);
  });

  it('ranks feedback by lift, and following a suggestion gains about that lift', async () => {
    const before = await score(
      'Our spring range is in stores now with fresh colours and soft fabrics for everyone. 🌸 #spring #style #newin',
      'instagram',
    );
    expectWellFormed(before);
    const cta = find(before, 'End with a call to action');
    // The check's 12 points, plus the length check: the added words bring the caption into its sweet spot.
    expect(Number(cta?.expected_lift)).toBeGreaterThanOrEqual(12);
    const after = await score(
      'Our spring range is in stores now with fresh colours and soft fabrics for everyone. Save this for later! 🌸 #spring #style #newin',
      'instagram',
    );
    expect(find(after, 'End with a call to action')).toBeUndefined();
    expect(Math.abs(after.score - before.score - Number(cta?.expected_lift))).toBeLessThanOrEqual(2);
  });

  it('scores a crafted caption above a careless one', async () => {
    const good = await score(GOOD_CAPTION, 'instagram');
    const poor = await score('we r open', 'instagram');
    expectWellFormed(good);
    expectWellFormed(poor);
    expect(good.score).toBeGreaterThanOrEqual(85);
    expect(poor.score).toBeLessThan(good.score - 30);
    expect(good.feedback.length).toBeLessThan(poor.feedback.length);
    expect(good).toMatchObject({ platform: 'instagram', format: 'post' });
  });

  it('gives the same output for the same input', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ maxLength: 400 }),
        fc.constantFrom(...PLATFORMS),
        async (text, platform) => {
          const format = FORMATS_BY_PLATFORM[platform][0] as Format;
          const a = await score(text, platform, format);
          const b = await score(text, platform, format);
          expect(b).toEqual(a);
          expectWellFormed(a);
        },
      ),
      { numRuns: 60 },
    );
    expect(await score(GOOD_CAPTION, 'tiktok')).toEqual(await score(GOOD_CAPTION, 'tiktok'));
  });

  it('refuses text over 10,000 characters (code points) as content_too_large', async () => {
    await expect(score('a'.repeat(10_001), 'facebook')).rejects.toMatchObject({
      kind: 'content_too_large',
      detail: 'text is 10,001 characters, the limit is 10,000',
    });
    // 10,000 emoji are 20,000 UTF-16 units but 10,000 characters.
    await expect(score('🙂'.repeat(10_000), 'facebook')).resolves.toMatchObject({ platform: 'facebook' });
  });

  it('defaults the format to post', async () => {
    const r = await scoreContent({ content_type: 'text', content: 'Hello there', platform: 'tiktok' });
    expect(r.format).toBe('post');
  });
});

describe('format rules', () => {
  it('accepts exactly the published combinations', () => {
    const accepted = PLATFORMS.flatMap((p) =>
      FORMATS.filter((f) => formatProblem(p, f) === null).map((f) => `${p}:${f}`),
    );
    // prettier-ignore
    expect(accepted.sort()).toEqual(
      [
        'instagram:post', 'instagram:story', 'instagram:reel',
        'facebook:post', 'facebook:story', 'facebook:reel',
        'tiktok:post', 'youtube:post', 'youtube:short', 'twitter:post', 'twitter:thread',
      ].sort(),
    );
  });

  it('explains an unsupported combination', () => {
    expect(formatProblem('instagram', 'thread')).toBe(
      'format "thread" is not published on instagram (instagram supports post, story, reel; "thread" exists on twitter)',
    );
    expect(formatProblem('tiktok', 'reel')).toContain('"reel" exists on instagram, facebook');
    expect(formatProblem('twitter', 'carousel')).toContain(
      'format must be one of post, story, reel, short, thread',
    );
    expect(formatProblem('myspace', 'post')).toContain('platform must be one of');
  });

  it('makes scoreContent throw invalid_format for such a combination', async () => {
    const error = await score('hello', 'tiktok', 'short').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StudioError);
    expect(error).toMatchObject({ kind: 'invalid_format' });
  });
});

describe('signed numbers', () => {
  it('always carries a sign and never prints -0', () => {
    expect(signed(2.14, 1)).toBe('+2.1');
    expect(signed(-0.5, 1)).toBe('-0.5');
    expect(signed(-0.04, 1)).toBe('+0.0');
    expect(signed(6, 0)).toBe('+6');
  });
});
