/**
 * Trains the default sentiment model on the TRAIN split only and writes its weights to
 * src/scoring/sentiment/default-weights.json. The held-out split is never read here.
 *
 *   node scripts/sentiment/train.ts          train and write the weights
 *   node scripts/sentiment/train.ts --cv     5-fold cross-validation on the train split only,
 *                                            to choose the regularisation
 *
 * Deterministic: zero initial weights, full-batch gradient descent with a fixed step count.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { extractFeatures, type Features } from '../../src/scoring/sentiment/features.ts';
import { logits, softmax, type LinearWeights } from '../../src/scoring/sentiment/linear.ts';
import { SCORED_LABELS, type ScoredLabel } from '../../src/scoring/sentiment/types.ts';
import { readDataset } from './split.ts';

export const WEIGHTS_PATH = fileURLToPath(
  new URL('../../src/scoring/sentiment/default-weights.json', import.meta.url),
);

interface Example {
  f: Features;
  y: number;
}

export interface TrainOptions {
  /** L2 penalty on word/bigram/emoji features (sparse). */
  l2Sparse: number;
  /** L2 penalty on the dense, hand-built features. */
  l2Dense: number;
  steps: number;
  /** Minimum document frequency for a sparse feature to be kept. */
  minCount: number;
}

export const DEFAULT_OPTIONS: TrainOptions = { l2Sparse: 0.02, l2Dense: 0.001, steps: 600, minCount: 2 };

const isSparse = (name: string) => /^(w|b|e):/.test(name);

export function train(
  examples: readonly Example[],
  o: TrainOptions,
): Omit<LinearWeights, 'version' | 'trainedOn'> {
  const K = SCORED_LABELS.length;
  const df = new Map<string, number>();
  for (const ex of examples) for (const name of ex.f.keys()) df.set(name, (df.get(name) ?? 0) + 1);
  const names = [...df.keys()].filter((n) => !isSparse(n) || df.get(n)! >= o.minCount).sort();
  const W: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, new Array<number>(K).fill(0)]));
  const bias = new Array<number>(K).fill(0);
  // Adam, full batch: converges in a few hundred steps whatever the feature scales.
  const m = new Map<string, number[]>(names.map((n) => [n, new Array<number>(K).fill(0)]));
  const v = new Map<string, number[]>(names.map((n) => [n, new Array<number>(K).fill(0)]));
  const mb = new Array<number>(K).fill(0);
  const vb = new Array<number>(K).fill(0);
  const lr = 0.05;
  const [b1, b2, eps] = [0.9, 0.999, 1e-8];
  const n = examples.length;
  for (let step = 1; step <= o.steps; step++) {
    const G: Record<string, number[]> = {};
    const gb = new Array<number>(K).fill(0);
    for (const ex of examples) {
      const p = softmax(logits({ bias, weights: W }, ex.f));
      for (let k = 0; k < K; k++) {
        const err = (p[k]! - (k === ex.y ? 1 : 0)) / n;
        gb[k]! += err;
        for (const [name, x] of ex.f) {
          if (!W[name]) continue;
          (G[name] ??= new Array<number>(K).fill(0))[k]! += err * x;
        }
      }
    }
    const update = (w: number[], g: number[], mm: number[], vv: number[], l2: number) => {
      for (let k = 0; k < K; k++) {
        const grad = g[k]! + l2 * w[k]!;
        mm[k] = b1 * mm[k]! + (1 - b1) * grad;
        vv[k] = b2 * vv[k]! + (1 - b2) * grad * grad;
        const mh = mm[k]! / (1 - b1 ** step);
        const vh = vv[k]! / (1 - b2 ** step);
        w[k]! -= (lr * mh) / (Math.sqrt(vh) + eps);
      }
    };
    for (const name of names) {
      update(
        W[name]!,
        G[name] ?? new Array<number>(K).fill(0),
        m.get(name)!,
        v.get(name)!,
        isSparse(name) ? o.l2Sparse : o.l2Dense,
      );
    }
    update(bias, gb, mb, vb, 0);
  }
  // Round so the committed JSON is small and byte-stable; drop weights that rounded to zero.
  const weights: Record<string, number[]> = {};
  for (const name of names) {
    const row = W[name]!.map((x) => Math.round(x * 1e4) / 1e4);
    if (row.some((x) => x !== 0)) weights[name] = row;
  }
  return { labels: [...SCORED_LABELS], bias: bias.map((x) => Math.round(x * 1e4) / 1e4), weights };
}

export function trainExamples(): { examples: Example[]; ids: string[] } {
  const items = readDataset().filter((c) => c.split === 'train' && c.label !== 'unscored');
  return {
    examples: items.map((c) => ({
      f: extractFeatures(c.text),
      y: SCORED_LABELS.indexOf(c.label as ScoredLabel),
    })),
    ids: items.map((c) => c.id),
  };
}

function crossValidate(
  examples: readonly Example[],
  o: TrainOptions,
  folds = 5,
): { acc: number; negRecall: number; negPrecision: number } {
  let correct = 0;
  let tp = 0;
  let fp = 0;
  let fn = 0;
  const NEG = SCORED_LABELS.indexOf('negative');
  for (let k = 0; k < folds; k++) {
    const tr = examples.filter((_, i) => i % folds !== k);
    const te = examples.filter((_, i) => i % folds === k);
    const w = train(tr, o);
    for (const ex of te) {
      const p = softmax(logits(w, ex.f));
      const yhat = p.indexOf(Math.max(...p));
      if (yhat === ex.y) correct++;
      if (yhat === NEG && ex.y === NEG) tp++;
      if (yhat === NEG && ex.y !== NEG) fp++;
      if (yhat !== NEG && ex.y === NEG) fn++;
    }
  }
  return { acc: correct / examples.length, negRecall: tp / (tp + fn), negPrecision: tp / (tp + fp) };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { examples, ids } = trainExamples();
  if (process.argv.includes('--cv')) {
    for (const l2Sparse of [0.005, 0.01, 0.02, 0.05]) {
      for (const l2Dense of [0.001, 0.01]) {
        const o = { ...DEFAULT_OPTIONS, l2Sparse, l2Dense };
        const r = crossValidate(examples, o);
        console.log(
          JSON.stringify(o),
          `acc ${(r.acc * 100).toFixed(1)} negR ${(r.negRecall * 100).toFixed(1)} negP ${(r.negPrecision * 100).toFixed(1)}`,
        );
      }
    }
  } else {
    const w = train(examples, DEFAULT_OPTIONS);
    // The version covers the weights and the code that turns text into features: a change to
    // either can change a label, so stored results must be able to tell them apart.
    const hash = createHash('sha256').update(JSON.stringify(w));
    for (const file of ['features.ts', 'lexicon.ts', 'text.ts', 'linear.ts'])
      hash.update(readFileSync(new URL(`../../src/scoring/sentiment/${file}`, import.meta.url)));
    const digest = hash.digest('hex').slice(0, 12);
    const out: LinearWeights = {
      version: `lr-${digest}`,
      trainedOn: `${examples.length} train-split comments (${ids[0]}..), options ${JSON.stringify(DEFAULT_OPTIONS)}`,
      ...w,
    };
    writeFileSync(WEIGHTS_PATH, JSON.stringify(out) + '\n');
    console.log(`wrote ${Object.keys(w.weights).length} feature weights, version ${out.version}`);
  }
}
