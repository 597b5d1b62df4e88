import { describe, expect, it } from 'vitest';
import {
  analyseSentiment,
  classifySentiment,
  sentimentScore,
  SENTIMENT_THRESHOLD,
} from '../../src/scoring/engine/index.ts';

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
    expect(sentimentScore('good')).toBeGreaterThan(0);
    expect(sentimentScore('not good')).toBeLessThan(0);
  });

  it('returns a score in [-1, 1] consistent with the label, and is deterministic', () => {
    for (const text of [
      'best day ever!!! 🎉',
      'meh',
      'I hate waiting in line',
      'ok then',
      'Worst. Service. Ever.',
    ]) {
      const { label, score } = analyseSentiment(text);
      expect(score).toBeGreaterThanOrEqual(-1);
      expect(score).toBeLessThanOrEqual(1);
      expect(label).toBe(
        score >= SENTIMENT_THRESHOLD ? 'positive' : score <= -SENTIMENT_THRESHOLD ? 'negative' : 'neutral',
      );
      expect(analyseSentiment(text)).toEqual({ label, score });
    }
  });

  it('treats non-string input as neutral instead of throwing', () => {
    expect(classifySentiment(undefined as unknown as string)).toBe('neutral');
  });
});
