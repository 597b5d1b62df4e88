import { describe, expect, it } from 'vitest';
import { detectLanguage } from '../../src/scoring/sentiment/index.ts';

describe('language detection for short comments', () => {
  // tinyld alone says Klingon, Volapük or Polish for several of these.
  it.each([
    'meh',
    'lol',
    'ok then',
    'W brand fr fr',
    'ngl this slaps',
    'Worst. Service. Ever.',
    'sooo good omg',
  ])('keeps the short English %j English', (text) => {
    expect(detectLanguage(text).language).toBe('en');
  });

  it.each([
    ['muy bueno el servicio', 'es'],
    ['Très déçu de la livraison', 'fr'],
    ['Das ist super', 'de'],
    ['ottimo prodotto', 'it'],
    ['nie polecam', 'pl'],
    ['Ужасный сервис, больше не закажу', 'ru'],
    ['注文した商品がまだ届きません', 'ja'],
  ])('recognises %j as %s', (text, lang) => {
    expect(detectLanguage(text).language).toBe(lang);
  });

  it('gives text without words the language "und"', () => {
    for (const t of ['😡😡', ':)', '🔥🔥🔥', '100%', '!!!'])
      expect(detectLanguage(t)).toEqual({ language: 'und', basis: 'no-words' });
  });

  it('ignores mentions and links', () => {
    expect(detectLanguage('@QuickCart https://quickcart.example/track/abc where is it??').language).toBe(
      'en',
    );
  });
});
