import { describe, expect, it } from 'vitest';
import { evaluateLanguage, multilingualItems } from '../../scripts/sentiment/evaluate.ts';
import { readMultilingual } from '../../scripts/sentiment/split.ts';
import { classifyWithDefaultModel, PACK_LANGUAGES } from '../../src/scoring/sentiment/index.ts';

const data = readMultilingual();

describe('multilingual sentiment sets', () => {
  it('hold at least 80 held-out comments per language, balanced, with complaints and sarcasm', () => {
    expect(new Set(data.map((c) => c.id)).size).toBe(data.length);
    expect(new Set(data.map((c) => c.text)).size).toBe(data.length);
    expect([...PACK_LANGUAGES].sort()).toEqual(['de', 'es', 'fr', 'pt']);
    for (const language of PACK_LANGUAGES) {
      const heldOut = data.filter((c) => c.lang === language && c.split === 'heldout');
      expect(heldOut.length, language).toBeGreaterThanOrEqual(80);
      for (const label of ['positive', 'neutral', 'negative'])
        expect(
          heldOut.filter((c) => c.label === label).length,
          `${language} ${label}`,
        ).toBeGreaterThanOrEqual(25);
      expect(heldOut.filter((c) => c.tags.includes('complaint')).length, language).toBeGreaterThanOrEqual(10);
      expect(heldOut.filter((c) => c.tags.includes('sarcasm')).length, language).toBeGreaterThanOrEqual(4);
      expect(
        data.filter((c) => c.lang === language && c.split === 'dev').length,
        language,
      ).toBeGreaterThanOrEqual(20);
    }
  });
});

describe('the multilingual model on the held-out sets (the documented targets)', () => {
  const heldOut = multilingualItems('heldout');

  it.each(PACK_LANGUAGES)(
    '%s: at least 75% right, at least 75% of negatives found, none unscored',
    (language) => {
      const e = evaluateLanguage(heldOut, language);
      expect(e.items).toBeGreaterThanOrEqual(80);
      expect(e.unscored).toBe(0);
      expect(e.accuracy).toBeGreaterThanOrEqual(0.75);
      expect(e.negativeRecall).toBeGreaterThanOrEqual(0.75);
    },
  );

  it('scores every comment of the five languages (English included), none unscored', () => {
    const english = ['Still waiting for my refund', 'Love the new flavour', 'Do you ship to Ireland?'];
    for (const text of [...heldOut.map((c) => c.text), ...english])
      expect(classifyWithDefaultModel(text).label, text).not.toBe('unscored');
  });
});
