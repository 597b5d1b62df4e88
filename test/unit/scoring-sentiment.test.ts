import { describe, expect, it } from 'vitest';
import { classifySentiment } from '../../src/scoring/engine/index.ts';

describe('classifySentiment (default classifier, three stored labels)', () => {
  it.each([
    ['I love this brand 😍', 'positive'],
    ['Amazing quality, will buy again!', 'positive'],
    [':)', 'positive'],
    ['not good at all', 'negative'],
    ['this is terrible :(', 'negative'],
    ['😡😡', 'negative'],
    ['the store opens at 9', 'neutral'],
    ['', 'neutral'],
    ['   ', 'neutral'],
  ] as const)('%j is %s', (text, label) => {
    expect(classifySentiment(text)).toBe(label);
  });

  it('understands negation', () => {
    expect(classifySentiment('good')).toBe('positive');
    expect(classifySentiment('not good')).toBe('negative');
  });

  it('is deterministic', () => {
    for (const text of [
      'best day ever!!! 🎉',
      'meh',
      'I hate waiting in line',
      'ok then',
      'Worst. Service. Ever.',
    ]) {
      expect(classifySentiment(text)).toBe(classifySentiment(text));
    }
  });

  it('treats non-string input as neutral instead of throwing', () => {
    expect(classifySentiment(undefined as unknown as string)).toBe('neutral');
  });
});
