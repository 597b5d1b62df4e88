import { describe, expect, it } from 'vitest';
import { classifySentiment } from '../../src/scoring/engine/index.ts';
import {
  classifyWithDefaultModel,
  defaultModel,
  DEFAULT_MODEL_ID,
  MULTILINGUAL_MODEL_ID,
} from '../../src/scoring/sentiment/index.ts';

// Each case below is one the v1 (wink-only) classifier got wrong: see docs/scoring.md.
describe('default sentiment classifier', () => {
  it.each([
    'great, another price increase 🙃',
    'love how my package got lost again. thanks a lot',
    'still waiting for my order, 3 weeks now',
    'thanks for nothing',
    'where is my refund?',
    'charged twice and still no reply',
    'Oh wonderful, the app logged me out again',
    'not worth the money',
    'this is so mid',
    'cancelled my subscription, done with this',
  ])('reads the complaint %j as negative', (text) => {
    expect(classifyWithDefaultModel(text).label).toBe('negative');
    expect(classifySentiment(text)).toBe('negative');
  });

  it.each([
    'Thanks for sorting my refund so fast!',
    'this drop goes hard 🔥',
    'not bad at all, really enjoyed it',
    'never had a problem with them',
    'Amazing quality, will buy again!',
  ])('reads the praise %j as positive', (text) => {
    expect(classifyWithDefaultModel(text).label).toBe('positive');
  });

  it('separates a question from a complaint phrased as one', () => {
    expect(classifyWithDefaultModel('Do you ship to Ireland?').label).toBe('neutral');
    expect(classifyWithDefaultModel('why is my bill £40 higher this month??').label).toBe('negative');
  });

  it('labels praise and complaint in contrasting clauses mixed, stored as neutral', () => {
    const r = classifyWithDefaultModel('Love the food but the service was painfully slow');
    expect(r.label).toBe('mixed');
    expect(classifySentiment('Love the food but the service was painfully slow')).toBe('neutral');
  });

  it('returns label, confidence, probabilities, language and the model that decided', () => {
    const r = classifyWithDefaultModel('Worst customer service ever');
    expect(r).toMatchObject({ label: 'negative', language: 'en', modelId: DEFAULT_MODEL_ID });
    expect(r.modelVersion).toBe(defaultModel.version);
    expect(r.modelVersion).toMatch(/^lr-[0-9a-f]{12}$/);
    expect(r.confidence).toBe(r.probabilities.negative);
    expect(r.confidence).toBeGreaterThan(0.5);
    const total = Object.values(r.probabilities).reduce((a, b) => a + b, 0);
    expect(total).toBeCloseTo(1, 9);
    expect(classifyWithDefaultModel('Worst customer service ever')).toEqual(r);
  });

  it('scores emoji-only text as language-neutral', () => {
    expect(classifyWithDefaultModel('😡😡')).toMatchObject({ label: 'negative', language: 'und' });
    expect(classifyWithDefaultModel('🔥🔥🔥')).toMatchObject({ label: 'positive', language: 'und' });
  });

  it('scores Spanish, German, Portuguese and French with the multilingual model', () => {
    const es = classifyWithDefaultModel('Pésima atención al cliente, no vuelvo a comprar');
    expect(es).toMatchObject({ label: 'negative', language: 'es', modelId: MULTILINGUAL_MODEL_ID });
    expect(es.modelVersion).toMatch(/^lex-[0-9a-f]{12}$/);
    expect(es.confidence).toBeGreaterThan(0.5);
    expect(classifySentiment('Très déçu de la livraison, colis abîmé')).toBe('negative');
    expect(classifySentiment('Keine Antwort vom Support, seit einer Woche')).toBe('negative');
    expect(classifySentiment('Ninguém responde no chat')).toBe('negative');
    expect(classifySentiment('Personne ne répond au téléphone')).toBe('negative');
    expect(classifySentiment('Nadie contesta los mensajes')).toBe('negative');
    // Sarcasm: praise around trouble, irony phrases.
    expect(classifySentiment('Genial, otra semana sin internet. Gracias por nada')).toBe('negative');
    expect(classifySentiment('Na toll, die Lieferung ist wieder zu spät')).toBe('negative');
    expect(classifySentiment('Adorei o atendimento, resolveram tudo')).toBe('positive');
    expect(classifySentiment('Qual é o prazo de entrega para Lisboa?')).toBe('neutral');
  });

  it('leaves languages no model covers unscored, and ingestion does not count them', () => {
    const r = classifyWithDefaultModel('Servizio pessimo, non comprerò mai più da voi');
    expect(r).toMatchObject({ label: 'unscored', confidence: 0, language: 'it', modelId: 'none' });
    expect(classifySentiment('Slechte service, nooit meer bestellen bij jullie')).toBe('unscored');
  });

  it('treats empty and non-string input as neutral without throwing', () => {
    expect(classifyWithDefaultModel('').label).toBe('neutral');
    expect(classifyWithDefaultModel(42 as unknown as string).label).toBe('neutral');
  });
});
