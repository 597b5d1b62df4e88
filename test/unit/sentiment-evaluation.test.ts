import { describe, expect, it } from 'vitest';
import { defaultPredict, evaluate, splitItems, winkV1Predict } from '../../scripts/sentiment/evaluate.ts';
import { assignSplits, isSarcasmOrComplaint, readDataset } from '../../scripts/sentiment/split.ts';

const data = readDataset();

describe('sentiment evaluation set', () => {
  it('has the size and coverage the labelling guide promises', () => {
    expect(data.length).toBeGreaterThanOrEqual(1000);
    expect(new Set(data.map((c) => c.id)).size).toBe(data.length);
    expect(new Set(data.map((c) => c.text)).size).toBe(data.length);
    expect(data.filter(isSarcasmOrComplaint).length).toBeGreaterThanOrEqual(150);
    expect(data.filter((c) => c.tags.includes('probe'))).toHaveLength(64);
    const nonEnglish = data.filter((c) => c.label === 'unscored');
    expect(nonEnglish.length).toBeGreaterThanOrEqual(60);
    expect(nonEnglish.every((c) => c.lang !== 'en')).toBe(true);
    for (const tag of ['emoji', 'slang', 'negation', 'contrast', 'question'])
      expect(data.filter((c) => c.tags.includes(tag)).length, tag).toBeGreaterThanOrEqual(30);
  });

  it('keeps the split the seeded rule gives (nobody moved items between splits)', () => {
    const splits = assignSplits(data);
    expect(data.filter((c) => c.split !== splits.get(c.id))).toEqual([]);
    const heldOut = data.filter((c) => c.split === 'heldout').length / data.length;
    expect(heldOut).toBeGreaterThan(0.3);
    expect(heldOut).toBeLessThan(0.36);
  });
});

describe('default classifier on the held-out split (the documented targets)', () => {
  const heldOut = splitItems('heldout');
  const v2 = evaluate(heldOut, defaultPredict, 'heldout');

  it('is right on at least 80% of English comments', () => {
    expect(v2.accuracy).toBeGreaterThanOrEqual(0.8);
  });

  it('finds at least 80% of negatives at a precision of at least 75%', () => {
    expect(v2.perClass.negative.recall).toBeGreaterThanOrEqual(0.8);
    expect(v2.perClass.negative.precision).toBeGreaterThanOrEqual(0.75);
  });

  it('is right on at least 65% of sarcasm and complaint comments', () => {
    expect(v2.sarcasmComplaint.accuracy).toBeGreaterThanOrEqual(0.65);
  });

  it('leaves non-English unscored without losing English comments', () => {
    expect(v2.language.nonEnglishUnscored / v2.language.nonEnglish).toBeGreaterThanOrEqual(0.9);
    expect(v2.language.englishUnscored / v2.english).toBeLessThanOrEqual(0.01);
  });

  it('beats the v1 wink-only classifier it replaces', () => {
    const v1 = evaluate(heldOut, winkV1Predict, 'heldout');
    expect(v2.accuracy).toBeGreaterThan(v1.accuracy + 0.15);
    expect(v2.perClass.negative.recall).toBeGreaterThan(v1.perClass.negative.recall);
  });
});
