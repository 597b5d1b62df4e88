/**
 * The fixed train/held-out split of the sentiment evaluation set, recomputable from the data:
 * the 64-comment probe is always held out; every other item is stratified by label and by
 * whether it is a sarcasm/complaint item, and within a stratum the 30% with the lowest
 * FNV-1a hash of `${SPLIT_SEED}:${id}` are held out. Nothing about the text or any model
 * output decides the split, so it cannot drift towards what a classifier gets right.
 *
 *   node scripts/sentiment/split.ts          check the committed split matches the rule
 *   node scripts/sentiment/split.ts --write  rewrite the split column
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const DATASET_PATH = fileURLToPath(
  new URL('../../test/fixtures/sentiment/comments.jsonl', import.meta.url),
);
export const SPLIT_SEED = 'brand-health-sentiment-v1';
export const HELD_OUT_SHARE = 0.3;

/**
 * The Spanish, German, Portuguese and French sets: per language a held-out set (reported,
 * never tuned on) and a small dev set (for tuning the rules). Written before the multilingual
 * model; the split is by hand, marked in each line, since the sets were written as such.
 */
export const MULTILINGUAL_PATH = fileURLToPath(
  new URL('../../test/fixtures/sentiment/multilingual.jsonl', import.meta.url),
);

export type GoldLabel = 'positive' | 'neutral' | 'negative' | 'mixed' | 'unscored';

export interface LabelledComment {
  id: string;
  /** `dev` only in the multilingual sets. */
  split: 'train' | 'heldout' | 'dev';
  label: GoldLabel;
  /** ISO 639-1 code of the text's language (in comments.jsonl all 'en' except the items marked unscored). */
  lang: string;
  tags: string[];
  text: string;
}

export function readDataset(path = DATASET_PATH): LabelledComment[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as LabelledComment);
}

export const readMultilingual = (): LabelledComment[] => readDataset(MULTILINGUAL_PATH);

function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (const byte of Buffer.from(s, 'utf8')) h = Math.imul(h ^ byte, 0x01000193) >>> 0;
  return h;
}

export const isSarcasmOrComplaint = (c: { tags: string[] }): boolean =>
  c.tags.includes('sarcasm') || c.tags.includes('complaint');

/** The split every item must have under the rule above. */
export function assignSplits(items: readonly LabelledComment[]): Map<string, 'train' | 'heldout'> {
  const out = new Map<string, 'train' | 'heldout'>();
  const strata = new Map<string, LabelledComment[]>();
  for (const c of items) {
    if (c.tags.includes('probe')) {
      out.set(c.id, 'heldout');
      continue;
    }
    const key = `${c.label}/${isSarcasmOrComplaint(c)}`;
    strata.set(key, [...(strata.get(key) ?? []), c]);
  }
  for (const members of strata.values()) {
    const ranked = [...members].sort(
      (a, b) => fnv1a(`${SPLIT_SEED}:${a.id}`) - fnv1a(`${SPLIT_SEED}:${b.id}`) || a.id.localeCompare(b.id),
    );
    const heldOut = Math.round(ranked.length * HELD_OUT_SHARE);
    ranked.forEach((c, i) => out.set(c.id, i < heldOut ? 'heldout' : 'train'));
  }
  return out;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const items = readDataset();
  const splits = assignSplits(items);
  const wrong = items.filter((c) => c.split !== splits.get(c.id));
  if (process.argv.includes('--write')) {
    const lines = items.map((c) => JSON.stringify({ ...c, split: splits.get(c.id) }));
    writeFileSync(DATASET_PATH, lines.join('\n') + '\n');
    console.log(`rewrote ${wrong.length} split(s) of ${items.length}`);
  } else if (wrong.length) {
    console.error(`${wrong.length} item(s) are not in the split the rule gives, e.g. ${wrong[0]?.id}`);
    process.exitCode = 1;
  } else console.log(`split ok: ${items.length} items`);
}
