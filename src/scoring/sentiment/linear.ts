/**
 * A multinomial logistic regression over sparse features: the default model's arithmetic,
 * shared by training and classification.
 */
import type { Features } from './features.ts';
import { SCORED_LABELS, type ModelOutput, type ScoredLabel } from './types.ts';

export interface LinearWeights {
  /** Model version: changes whenever the weights or the feature extraction change. */
  version: string;
  labels: ScoredLabel[];
  bias: number[];
  weights: Record<string, number[]>;
  /** Provenance for the record: what the weights were trained on and how. */
  trainedOn: string;
}

export function softmax(z: readonly number[]): number[] {
  const m = Math.max(...z);
  const e = z.map((v) => Math.exp(v - m));
  const s = e.reduce((a, b) => a + b, 0);
  return e.map((v) => v / s);
}

export function logits(w: Pick<LinearWeights, 'bias' | 'weights'>, f: Features): number[] {
  const z = [...w.bias];
  for (const [name, value] of f) {
    const row = w.weights[name];
    if (!row) continue;
    for (let k = 0; k < z.length; k++) z[k]! += row[k]! * value;
  }
  return z;
}

export function predict(w: LinearWeights, f: Features): ModelOutput {
  const p = softmax(logits(w, f));
  const probabilities = Object.fromEntries(SCORED_LABELS.map((l) => [l, 0])) as Record<ScoredLabel, number>;
  w.labels.forEach((l, k) => (probabilities[l] = p[k]!));
  let best = 0;
  for (let k = 1; k < p.length; k++) if (p[k]! > p[best]!) best = k;
  return { label: w.labels[best]!, confidence: p[best]!, probabilities };
}
