import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { detectCallsToAction } from '../../src/studio/cta.ts';
import { scoreContent } from '../../src/studio/index.ts';
import { measureText, textSignals } from '../../src/studio/text-analysis.ts';

interface Item {
  id: string;
  cta: boolean;
  text: string;
}
const items = readFileSync(new URL('../fixtures/studio/cta.jsonl', import.meta.url), 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l) as Item);

describe('call-to-action detection', () => {
  // None of these is a call to action, though each uses a call-to-action word.
  it.each([
    'Never share your password or one-time code with anyone',
    "Don't click on suspicious links claiming to be from us",
    '#follow #like #share #instagood',
    'Big thanks to everyone who follows us 💛',
    'Product recall notice: batch 4410 to 4432. Do not consume and do not share the product',
    "Follow-up to yesterday's announcement: the fix is live",
  ])('finds none in %j', async (text) => {
    expect(detectCallsToAction(text)).toEqual([]);
    expect((await measureText(text)).callsToAction).toEqual([]);
  });

  it.each([
    ['Follow for part 2', ['follow']],
    ['Tag a friend who needs this #tagafriend', ['tag a friend']],
    ["Don't miss out, book now", ['book now']],
    ['Please share to spread the word', ['share']],
    ['Save this for later and let us know what you think', ['save this', 'let us know']],
  ])('finds them in %j', (text, expected) => {
    expect(detectCallsToAction(text)).toEqual(expected);
  });

  it('reaches 90% precision and recall on the labelled captions', () => {
    expect(items.length).toBeGreaterThanOrEqual(150);
    let tp = 0;
    let fp = 0;
    let fn = 0;
    for (const c of items) {
      const found = detectCallsToAction(c.text).length > 0;
      if (found && c.cta) tp++;
      else if (found) fp++;
      else if (c.cta) fn++;
    }
    expect(tp / (tp + fp)).toBeGreaterThanOrEqual(0.9);
    expect(tp / (tp + fn)).toBeGreaterThanOrEqual(0.9);
  });
});

describe('captions in other languages', () => {
  const spanish =
    'Nuestra nueva colección de primavera ya está en tiendas, con colores frescos y tejidos suaves para todos. ' +
    'Cuéntanos cuál es tu favorito. #primavera #moda';

  it('are not judged on English-only signals (sentiment, readability, call to action)', async () => {
    const m = await measureText(spanish);
    expect(m.language).toBe('es');
    const r = await scoreContent({
      content_type: 'text',
      content: spanish,
      platform: 'instagram',
      format: 'post',
    });
    const suggestions = r.feedback.map((f) => f.suggestion).join('\n');
    expect(suggestions).not.toMatch(/call to action|warmer wording|negative phrasing|Flesch/);
    // The same caption judged as English would lose the call-to-action points it cannot earn.
    const signals = textSignals(m, 'instagram', 'post');
    expect(signals.map((s) => s.id)).not.toContain('call_to_action');
    expect(textSignals({ ...m, language: 'en' }, 'instagram', 'post').map((s) => s.id)).toContain(
      'call_to_action',
    );
  });

  it('keep every signal for English and emoji-only text', async () => {
    for (const text of ['Our spring range is in stores now. Shop now!', '🌸🌸🌸']) {
      const m = await measureText(text);
      expect(textSignals(m, 'instagram', 'post').map((s) => s.id)).toContain('sentiment');
    }
  });
});
