import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/infra/config.ts';
import {
  DEFAULT_MODEL_ID,
  loadClassifier,
  MULTILINGUAL_MODEL_ID,
} from '../../src/scoring/sentiment/index.ts';
import { buildBagOfWordsModel } from '../helpers/onnx.ts';

// A Spanish bag-of-words model: "bueno"/"encanta" push positive, "malo"/"pésima" negative.
const VOCAB = ['bueno', 'encanta', 'malo', 'pésima', 'servicio'];
const LABELS = ['negative', 'neutral', 'positive'];
const W = [
  [-2, 0, 3], // bueno
  [-2, 0, 3], // encanta
  [3, 0, -2], // malo
  [3, 0, -2], // pésima
  [0, 0.5, 0], // servicio
];
const B = [0, 1, 0];

let dir: string;
let modelPath: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'sentiment-onnx-'));
  modelPath = path.join(dir, 'es.onnx');
  await writeFile(modelPath, buildBagOfWordsModel(W, B));
  await writeFile(
    path.join(dir, 'es.vocab.json'),
    JSON.stringify({ labels: LABELS, languages: ['es'], vocabulary: VOCAB, version: 'es-1' }),
  );
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

describe('ONNX sentiment models', () => {
  it('scores the languages it covers ahead of the built-in models, and leaves the rest unscored', async () => {
    const classifier = await loadClassifier({ SENTIMENT_MODEL: `onnx:${modelPath}` });
    expect(classifier.models.map((m) => m.id)).toEqual([
      'onnx:es.onnx',
      MULTILINGUAL_MODEL_ID,
      DEFAULT_MODEL_ID,
    ]);
    const [es1, es2, en, fr, it] = await classifier.classify([
      'Me encanta, muy bueno el servicio',
      'Pésima atención, servicio malo',
      'still waiting for my order, 3 weeks now',
      'Très déçu de la livraison, colis abîmé',
      'Servizio pessimo, non comprerò mai più da voi',
    ]);
    // Softmax(x·W + B) by hand: bueno + encanta + servicio = [-4, 1.5, 6] -> positive.
    const z = [-4, 1.5, 6];
    const p = Math.exp(6) / z.reduce((s, v) => s + Math.exp(v), 0);
    expect(es1).toMatchObject({
      label: 'positive',
      language: 'es',
      modelId: 'onnx:es.onnx',
      modelVersion: 'es-1',
    });
    expect(es1!.confidence).toBeCloseTo(p, 5);
    expect(es1!.probabilities.mixed).toBe(0);
    expect(es2).toMatchObject({ label: 'negative', language: 'es', modelId: 'onnx:es.onnx' });
    expect(en).toMatchObject({ label: 'negative', language: 'en', modelId: DEFAULT_MODEL_ID });
    expect(fr).toMatchObject({ label: 'negative', language: 'fr', modelId: MULTILINGUAL_MODEL_ID });
    expect(it).toMatchObject({ label: 'unscored', language: 'it', confidence: 0, modelId: 'none' });
  });

  it('reads logits, an explicit vocabulary path, and versions the model by content when unversioned', async () => {
    const vocabPath = path.join(dir, 'any.json');
    await writeFile(
      vocabPath,
      JSON.stringify({ labels: LABELS, languages: ['*'], vocabulary: VOCAB, output: 'logits', id: 'any' }),
    );
    const logitsModel = path.join(dir, 'logits.onnx');
    // Declared as logits, the adapter applies softmax to the model's output: still a distribution,
    // same argmax.
    await writeFile(logitsModel, buildBagOfWordsModel(W, B));
    const classifier = await loadClassifier({
      SENTIMENT_MODEL: `onnx:${logitsModel}`,
      SENTIMENT_VOCABULARY: vocabPath,
    });
    const [r, en] = await classifier.classify(['malo malo', 'I love it']);
    expect(r!.label).toBe('negative');
    expect(r!.modelId).toBe('any');
    expect(r!.modelVersion).toMatch(/^[0-9a-f]{12}$/);
    const total = Object.values(r!.probabilities).reduce((a, b) => a + b, 0);
    expect(total).toBeCloseTo(1, 6);
    // '*' covers English too, and the first configured model wins.
    expect(en!.modelId).toBe('any');
  });

  it('refuses unusable configuration with a clear error', async () => {
    const bad = async (env: Record<string, string>, message: RegExp) => {
      const err = await loadClassifier(env).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as Error).message).toMatch(message);
    };
    await bad({ SENTIMENT_MODEL: 'bert' }, /SENTIMENT_MODEL entries must be/);
    await bad({ SENTIMENT_MODEL: 'onnx:' }, /SENTIMENT_MODEL entries must be/);
    await bad({ SENTIMENT_MODEL: `onnx:${path.join(dir, 'missing.onnx')}` }, /cannot be read/);
    await bad({ SENTIMENT_MODEL: 'default', SENTIMENT_VOCABULARY: '/x.json' }, /exactly one onnx/);
    const garbage = path.join(dir, 'garbage.onnx');
    await writeFile(garbage, 'not a model');
    await writeFile(
      path.join(dir, 'garbage.vocab.json'),
      JSON.stringify({ labels: LABELS, languages: ['es'], vocabulary: VOCAB }),
    );
    await bad({ SENTIMENT_MODEL: `onnx:${garbage}` }, /not a loadable ONNX model/);
    for (const [vocab, message] of [
      ['{', /not valid JSON/],
      [JSON.stringify({ labels: ['good', 'bad'], languages: ['es'], vocabulary: VOCAB }), /labels must list/],
      [JSON.stringify({ labels: LABELS, languages: ['Spanish'], vocabulary: VOCAB }), /languages must list/],
      [JSON.stringify({ labels: LABELS, languages: ['es'], vocabulary: [] }), /vocabulary must be/],
      [
        JSON.stringify({ labels: LABELS, languages: ['es'], vocabulary: VOCAB, output: 'scores' }),
        /output must be/,
      ],
    ] as const) {
      await writeFile(path.join(dir, 'v.json'), vocab);
      await bad(
        { SENTIMENT_MODEL: `onnx:${modelPath}`, SENTIMENT_VOCABULARY: path.join(dir, 'v.json') },
        message,
      );
    }
  });

  it('fails loudly when the model output does not match the vocabulary labels', async () => {
    await writeFile(
      path.join(dir, 'two.json'),
      JSON.stringify({ labels: ['negative', 'positive'], languages: ['es'], vocabulary: VOCAB }),
    );
    const classifier = await loadClassifier({
      SENTIMENT_MODEL: `onnx:${modelPath}`,
      SENTIMENT_VOCABULARY: path.join(dir, 'two.json'),
    });
    await expect(classifier.classify(['muy bueno'])).rejects.toThrow(
      /returned shape \[1, 3\], expected \[1, 2\]/,
    );
  });

  it('uses only the built-in models when nothing is configured', async () => {
    const classifier = await loadClassifier({});
    expect(classifier.models.map((m) => m.id)).toEqual([DEFAULT_MODEL_ID, MULTILINGUAL_MODEL_ID]);
    const [es, en, emoji, nl] = await classifier.classify([
      'muy bueno el servicio',
      'thanks for nothing',
      '😍',
      'Slechte service, nooit meer bestellen bij jullie',
    ]);
    expect(es).toMatchObject({ label: 'positive', language: 'es', modelId: MULTILINGUAL_MODEL_ID });
    expect(nl).toMatchObject({ label: 'unscored', language: 'nl' });
    expect(en!.label).toBe('negative');
    expect(emoji).toMatchObject({ label: 'positive', language: 'und' });
  });
});
