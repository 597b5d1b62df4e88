// The studio is a format checklist whose advice can be trusted: following any suggestion raises
// the score by at least half of what it claims and never lowers it; blockers cap the score;
// notices are not pushed towards engagement bait.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { scoreContent } from '../../src/studio/index.ts';
import type { ContentScoreResult, Format } from '../../src/studio/index.ts';
import type { Platform } from '../../src/core/catalog.ts';
import { draftArbitrary, follow, placementArbitrary, render } from '../helpers/studio-drafts.ts';

const score = (content: string, platform: Platform = 'instagram', format: Format = 'post', mode?: string) =>
  scoreContent({
    content_type: 'text',
    content,
    platform,
    format,
    ...(mode ? { mode: mode as 'standard' } : {}),
  });

const advice = (r: ContentScoreResult) => r.feedback.map((f) => f.suggestion).join('\n');

const PROPERTY_RUNS = Number(process.env.PROPERTY_RUNS ?? 250);

describe('following a suggestion', () => {
  it(
    'raises the score by at least half its expected lift, never lowering it',
    async () => {
      let followed = 0;
      await fc.assert(
        fc.asyncProperty(draftArbitrary, placementArbitrary, async (draft, { platform, format }) => {
          const text = render(draft);
          const before = await score(text, platform, format);
          for (const item of before.feedback) {
            const after = await score(render(follow(draft, item.suggestion)), platform, format);
            const gain = after.score - before.score;
            followed++;
            expect(
              gain,
              `${platform} ${format}: "${item.suggestion}" (${item.expected_lift}) on\n${text}`,
            ).toBeGreaterThanOrEqual(Number(item.expected_lift) / 2);
          }
        }),
        // Reproducible by default (the same 250 drafts every run); PROPERTY_SEED / PROPERTY_RUNS explore
        // further (docs/studio.md has the explorations run: 20,000 drafts on several seeds).
        { numRuns: PROPERTY_RUNS, seed: Number(process.env.PROPERTY_SEED ?? 20261123) },
      );
      expect(followed).toBeGreaterThan(2 * PROPERTY_RUNS);
      // Long explorations get the time they need (up to 0.4 s a draft on a machine at load 25).
    },
    120_000 + 400 * PROPERTY_RUNS,
  );

  it('to cut the hashtags does not shorten the caption below its sweet spot', async () => {
    // Review finding: 75 -> 67. The hashtags counted towards the length check, so cutting them
    // made the caption "too short" and the reading ease and sentiment read them as words.
    const text =
      'Fresh mugs for the new season 🌿\n#mug #coffee #desk #morning #ceramic #handmade #clay #studio #gift #home';
    const before = await score(text, 'instagram');
    const cut = before.feedback.find((f) => f.suggestion.startsWith('Cut the hashtags to 5'));
    expect(cut).toBeDefined();
    const after = await score(
      'Fresh mugs for the new season 🌿\n#mug #coffee #desk #morning #ceramic',
      'instagram',
    );
    expect(after.score - before.score).toBe(Number(cut?.expected_lift));
  });
});

describe('hard platform blockers', () => {
  it('cap the score at 40 and are listed', async () => {
    const tags = Array.from({ length: 31 }, (_, i) => `#tag${i}`).join(' ');
    const good =
      'Want a mug that keeps coffee hot all morning? ✨ Our new desk mug is here. Tell us which colour you pick!';
    const clean = await score(`${good}\n#mug #coffee #desk`, 'instagram');
    expect(clean.score).toBeGreaterThan(60);
    expect(clean.blockers).toEqual([]);
    const refused = await score(`${good}\n${tags}`, 'instagram');
    expect(refused.score).toBeLessThanOrEqual(40);
    expect(refused.blockers).toEqual(['hashtags']);
    // The fix is the first advice and claims what it gains.
    expect(refused.feedback[0]?.suggestion).toMatch(
      /^Cut the hashtags to 5 or fewer: above 30 instagram refuses the post/,
    );
    const fixed = await score(`${good}\n${tags.split(' ').slice(0, 5).join(' ')}`, 'instagram');
    expect(fixed.score - refused.score).toBeGreaterThanOrEqual(Number(refused.feedback[0]?.expected_lift));
    const long = await score(`${good} ${'More about the mug. '.repeat(12)}`, 'twitter');
    expect(long.blockers).toEqual(['length']);
    expect(long.score).toBeLessThanOrEqual(40);
    // YouTube ignores hashtags beyond 15 but publishes the post: advice, not a blocker.
    const youtube = await score(`${good}\n${tags}`, 'youtube');
    expect(youtube.blockers).toEqual([]);
  });
});

describe('announcements', () => {
  const recall =
    'Product recall: we are recalling batches 4410 to 4432 of our oat milk because they may contain ' +
    'traces of milk protein. Do not consume the product. Return it to any store for a full refund.';

  it('are detected from the wording and not pushed towards warmer wording, calls to action or questions', async () => {
    // Review finding: a recall notice was told to add warmer wording and "Share this with a friend".
    const r = await score(recall, 'facebook');
    expect(r.mode).toBe('announcement');
    expect(r.mode_source).toBe('detected');
    expect(advice(r)).not.toMatch(/warmer|call to action|Share this|question|emoji/i);
    expect(r.not_judged.filter((n) => n.reason === 'announcement').map((n) => n.check)).toEqual([
      'call_to_action',
      'sentiment',
      'questions',
      'emoji',
    ]);
    for (const text of [
      'We are sorry: the app is currently unavailable after a service outage. Our engineers are on it.',
      'We sincerely apologise for the late deliveries this week. Every order will ship by Friday.',
      'Security incident update: no card details were affected.',
    ])
      expect((await score(text, 'twitter')).mode, text).toBe('announcement');
    for (const text of [
      'Big news today: our summer range is here!',
      'Sorry not sorry, the sale is back',
      'Recall the summer with our new candle',
    ])
      expect((await score(text, 'twitter')).mode, text).toBe('standard');
  });

  it('can be chosen, or refused, in the request', async () => {
    const notice = 'Our stores close at 4 pm on Sunday for stock-taking.';
    const chosen = await score(notice, 'facebook', 'post', 'announcement');
    expect(chosen).toMatchObject({ mode: 'announcement', mode_source: 'request' });
    expect(advice(chosen)).not.toMatch(/call to action|question/);
    expect(advice(await score(notice, 'facebook'))).toMatch(/call to action/);
    const forced = await score(recall, 'facebook', 'post', 'standard');
    expect(forced).toMatchObject({ mode: 'standard', mode_source: 'request' });
    await expect(score(notice, 'facebook', 'post', 'press')).rejects.toMatchObject({ kind: 'invalid_mode' });
  });
});

describe('what the score says', () => {
  it('is a format checklist: a nonsense caption that ticks the boxes is not called good content', async () => {
    // Review finding: a nonsense caption built to tick the checklist scored 97.
    const nonsense =
      'Why blorf the quazzle? ✨\nYou zint the morp 5 times, flibber wex and glom the trindle. ' +
      'Save this for later! #blorf #quazzle #zint';
    const r = await score(nonsense, 'instagram');
    expect(r.basis).toBe('format_checklist');
    // The score is the share of format checks passed, so the same format with real words scores
    // the same: it makes no claim about the words.
    const sensible = await score(
      'Why does the mug keep coffee hot? ✨\nYou fill the mug 5 times, then sip and enjoy the warmth. ' +
        'Save this for later! #mug #coffee #desk',
      'instagram',
    );
    expect(Math.abs(r.score - sensible.score)).toBeLessThanOrEqual(3);
  });

  it('shows pillar predictions as ranges, with a direction only when the range excludes zero', async () => {
    const warm = await score('We love this! Thank you all, it is wonderful and amazing. 🎉', 'twitter');
    for (const r of [await score('we r open', 'instagram'), warm]) {
      for (const [pillar, o] of Object.entries(r.pillar_outlook)) {
        const p = Number(r.pillar_predictions[pillar as keyof typeof r.pillar_predictions]);
        expect(Number(o.high) - Number(o.low)).toBeLessThanOrEqual(5);
        expect(Number(o.low)).toBeLessThanOrEqual(p);
        expect(Number(o.high)).toBeGreaterThanOrEqual(p);
        expect(o.direction).toBe(Number(o.low) > 0 ? 'up' : Number(o.high) < 0 ? 'down' : 'flat');
      }
    }
    expect(warm.pillar_outlook.sentiment.direction).toBe('up');
  });

  it('marks text in another language as not judged on English checks', async () => {
    const r = await score(
      'Nuestra nueva colección de primavera ya está en tiendas, con colores frescos y tejidos suaves. #moda',
      'instagram',
    );
    expect(r.language).toBe('es');
    expect(r.not_judged).toEqual([
      { check: 'call_to_action', reason: 'language' },
      { check: 'sentiment', reason: 'language' },
      { check: 'readability', reason: 'language' },
    ]);
    expect(advice(r)).not.toMatch(/call to action|negative phrasing|Flesch|Simplify/);
  });
});
