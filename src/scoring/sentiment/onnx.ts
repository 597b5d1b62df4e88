/**
 * Runs an operator-supplied ONNX sentiment model. The model takes a bag-of-words count
 * vector [N, V] (tokens from text.ts, looked up in a vocabulary file) and returns [N, K]
 * probabilities or logits over the labels the vocabulary file names.
 *
 * Runtime: onnxruntime-web's WebAssembly build, not onnxruntime-node, whose install script
 * downloads CUDA libraries from api.nuget.org on linux/x64 and so fails (or reaches outside
 * the npm registry) on an offline install. The wasm build ships inside the npm package.
 *
 * Vocabulary file (JSON):
 *   { "labels": ["negative", "neutral", "positive"],   // model output order; subset of
 *                                                      // positive|neutral|negative|mixed
 *     "languages": ["es"],                             // ISO 639-1 codes, or ["*"]
 *     "vocabulary": ["malo", "bueno", ...],            // index = input column
 *     "output": "probabilities" | "logits",            // default probabilities
 *     "id": "...", "version": "..." }                  // optional; version defaults to a
 *                                                      // digest of the model and vocabulary
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError } from '../../infra/config.ts';
import { softmax } from './linear.ts';
import { tokenize } from './text.ts';
import { SCORED_LABELS, type ModelOutput, type ScoredLabel, type SentimentModel } from './types.ts';

interface Vocabulary {
  labels: ScoredLabel[];
  languages: string[];
  vocabulary: string[];
  output: 'probabilities' | 'logits';
  id?: string;
  version?: string;
}

function parseVocabulary(raw: string, file: string): Vocabulary {
  let v: Record<string, unknown>;
  try {
    v = JSON.parse(raw) as Record<string, unknown>;
  } catch {
    throw new ConfigError(`sentiment vocabulary ${file} is not valid JSON`);
  }
  const fail = (what: string) => new ConfigError(`sentiment vocabulary ${file}: ${what}`);
  if (typeof v !== 'object' || v === null) throw fail('must be a JSON object');
  const { labels, languages, vocabulary, output = 'probabilities', id, version } = v;
  if (
    !Array.isArray(labels) ||
    labels.length < 2 ||
    !labels.every((l) => SCORED_LABELS.includes(l as ScoredLabel))
  )
    throw fail(`labels must list at least two of ${SCORED_LABELS.join(', ')}`);
  if (new Set(labels).size !== labels.length) throw fail('labels must not repeat');
  if (
    !Array.isArray(languages) ||
    !languages.length ||
    !languages.every((l) => typeof l === 'string' && /^([a-z]{2,3}|\*)$/.test(l))
  )
    throw fail('languages must list ISO 639-1 codes such as "es", or "*"');
  if (!Array.isArray(vocabulary) || !vocabulary.length || !vocabulary.every((t) => typeof t === 'string'))
    throw fail('vocabulary must be a non-empty array of tokens');
  if (output !== 'probabilities' && output !== 'logits')
    throw fail('output must be "probabilities" or "logits"');
  if (id !== undefined && typeof id !== 'string') throw fail('id must be a string');
  if (version !== undefined && typeof version !== 'string') throw fail('version must be a string');
  return {
    labels: labels as ScoredLabel[],
    languages: languages as string[],
    vocabulary: vocabulary as string[],
    output,
    ...(id ? { id } : {}),
    ...(version ? { version } : {}),
  };
}

type Ort = typeof import('onnxruntime-web');
let ortModule: Promise<Ort> | null = null;
function ort(): Promise<Ort> {
  // Loaded on first use: the runtime is ~10 MB of wasm that nobody needs unless configured.
  ortModule ??= import('onnxruntime-web').then((m) => {
    // One thread: the service runs its own concurrency; wasm worker threads would compete.
    m.env.wasm.numThreads = 1;
    return m;
  });
  return ortModule;
}

/** Loads an ONNX model and its vocabulary; throws ConfigError on anything unusable. */
export async function loadOnnxModel(modelPath: string, vocabularyPath?: string): Promise<SentimentModel> {
  const vocabFile = vocabularyPath ?? modelPath.replace(/\.onnx$/i, '') + '.vocab.json';
  let modelBytes: Buffer;
  let vocabRaw: string;
  try {
    modelBytes = await readFile(modelPath);
  } catch (e) {
    throw new ConfigError(`sentiment model ${modelPath} cannot be read: ${(e as Error).message}`);
  }
  try {
    vocabRaw = await readFile(vocabFile, 'utf8');
  } catch (e) {
    throw new ConfigError(`sentiment vocabulary ${vocabFile} cannot be read: ${(e as Error).message}`);
  }
  const vocab = parseVocabulary(vocabRaw, vocabFile);
  const runtime = await ort();
  let session: Awaited<ReturnType<Ort['InferenceSession']['create']>>;
  try {
    session = await runtime.InferenceSession.create(new Uint8Array(modelBytes));
  } catch (e) {
    throw new ConfigError(
      `sentiment model ${modelPath} is not a loadable ONNX model: ${(e as Error).message}`,
    );
  }
  const inputName = session.inputNames[0];
  const outputName = session.outputNames[0];
  if (!inputName || !outputName) throw new ConfigError(`sentiment model ${modelPath} has no input or output`);
  const index = new Map(vocab.vocabulary.map((t, i) => [t, i]));
  const V = vocab.vocabulary.length;
  const K = vocab.labels.length;
  const version =
    vocab.version ?? createHash('sha256').update(modelBytes).update(vocabRaw).digest('hex').slice(0, 12);

  return {
    id: vocab.id ?? `onnx:${path.basename(modelPath)}`,
    version,
    languages: vocab.languages,
    async classify(texts) {
      if (!texts.length) return [];
      const x = new Float32Array(texts.length * V);
      texts.forEach((text, row) => {
        for (const t of tokenize(text)) {
          const col = t.kind === 'break' ? undefined : index.get(t.text);
          if (col !== undefined) x[row * V + col]! += 1;
        }
      });
      const out = await session.run({ [inputName]: new runtime.Tensor('float32', x, [texts.length, V]) });
      const y = out[outputName];
      if (!y || y.dims.length !== 2 || y.dims[0] !== texts.length || y.dims[1] !== K)
        throw new Error(
          `sentiment model ${modelPath} returned shape [${y?.dims.join(', ')}], expected [${texts.length}, ${K}]`,
        );
      const data = y.data as Float32Array;
      return texts.map((_, row): ModelOutput => {
        const raw = Array.from(data.subarray(row * K, row * K + K));
        const p = vocab.output === 'logits' ? softmax(raw) : raw;
        const probabilities = { positive: 0, neutral: 0, negative: 0, mixed: 0 };
        vocab.labels.forEach((l, k) => (probabilities[l] = p[k]!));
        let best = 0;
        for (let k = 1; k < K; k++) if (p[k]! > p[best]!) best = k;
        return { label: vocab.labels[best]!, confidence: p[best]!, probabilities };
      });
    },
  };
}
