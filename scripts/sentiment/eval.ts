/**
 * npm run eval:sentiment [-- --split train]
 *
 * Prints the evaluation of the default classifier next to the v1 (wink-only) classifier, the
 * multilingual model's figures per language, as Markdown tables for docs/scoring.md, and the
 * classifier's throughput. The held-out split is the default; while developing, use --split
 * train (the English train split and the multilingual dev sets; held-out is for reporting only).
 */
import { performance } from 'node:perf_hooks';
import { classifyWithDefaultModel } from '../../src/scoring/sentiment/index.ts';
import {
  CLASSES,
  defaultPredict,
  evaluate,
  evaluateLanguage,
  multilingualItems,
  splitItems,
  winkV1Predict,
  type Evaluation,
} from './evaluate.ts';
import { readDataset, readMultilingual } from './split.ts';
import { PACK_LANGUAGES } from '../../src/scoring/sentiment/index.ts';

const split =
  process.argv.includes('--split') && process.argv[process.argv.indexOf('--split') + 1] === 'train'
    ? 'train'
    : 'heldout';
const items = splitItems(split);
const v2 = evaluate(items, defaultPredict, split);
const v1 = evaluate(items, winkV1Predict, split);

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const rows: [string, (e: Evaluation) => string][] = [
  ['Accuracy (4 classes)', (e) => pct(e.accuracy)],
  ['Macro-F1', (e) => e.macroF1.toFixed(3)],
  ['Accuracy as stored (mixed = neutral)', (e) => pct(e.storedAccuracy)],
  ...CLASSES.flatMap((k): [string, (e: Evaluation) => string][] => [
    [
      `${k} precision / recall (n=${v2.perClass[k].support})`,
      (e) => `${pct(e.perClass[k].precision)} / ${pct(e.perClass[k].recall)}`,
    ],
  ]),
  [
    `Sarcasm/complaint subset accuracy (n=${v2.sarcasmComplaint.items})`,
    (e) => pct(e.sarcasmComplaint.accuracy),
  ],
  [
    `64-comment probe accuracy`,
    (e) => `${pct(e.probe.accuracy)} (${e.probe.negativesCaught}/${e.probe.negatives} negatives)`,
  ],
  [`Non-English left unscored (n=${v2.language.nonEnglish})`, (e) => `${e.language.nonEnglishUnscored}`],
  [`English wrongly unscored (of ${v2.english})`, (e) => `${e.language.englishUnscored}`],
];
console.log(`Split: ${split}, ${items.length} items (${v2.english} English)\n`);
console.log('| Figure | v2 default model | v1 wink-only |\n|---|---|---|');
for (const [name, f] of rows) console.log(`| ${name} | ${f(v2)} | ${f(v1)} |`);

const multilingual = multilingualItems(split === 'train' ? 'dev' : 'heldout');
console.log(
  `\nMultilingual model, ${split === 'train' ? 'dev' : 'held-out'} sets (${multilingual.length} items)\n`,
);
console.log(
  '| Language | Items | Accuracy | Negative recall / precision | Sarcasm/complaint accuracy | Unscored | Other language detected |',
);
console.log('|---|---|---|---|---|---|---|');
for (const language of PACK_LANGUAGES) {
  const e = evaluateLanguage(multilingual, language);
  console.log(
    `| ${language} | ${e.items} | ${pct(e.accuracy)} | ${pct(e.negativeRecall)} / ${pct(e.negativePrecision)} | ${pct(e.sarcasmComplaint.accuracy)} (n=${e.sarcasmComplaint.items}) | ${e.unscored} | ${e.wrongLanguage} |`,
  );
}

// Throughput over the whole set, after a warm-up pass (model and lexicon loading).
const all = readDataset().map((c) => c.text);
for (const t of all) classifyWithDefaultModel(t);
const rounds = 5;
const t0 = performance.now();
for (let r = 0; r < rounds; r++) for (const t of all) classifyWithDefaultModel(t);
const seconds = (performance.now() - t0) / 1000;
console.log(
  `\nThroughput: ${Math.round((rounds * all.length) / seconds)} classifications/s (language detection included, one core)`,
);
const ml = readMultilingual().map((c) => c.text);
for (const t of ml) classifyWithDefaultModel(t);
const t1 = performance.now();
for (let r = 0; r < rounds; r++) for (const t of ml) classifyWithDefaultModel(t);
const mlSeconds = (performance.now() - t1) / 1000;
console.log(
  `Throughput on the multilingual sets: ${Math.round((rounds * ml.length) / mlSeconds)} classifications/s`,
);
