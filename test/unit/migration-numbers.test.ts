// The migration list (src/infra/db/migrations/index.ts) and the migration files agree: every file is
// registered under its own name, names run in lexical order, and numbers are unique and contiguous.
// Applied migrations are recorded by name, so numbers already shipped are never renamed: the early
// numbering (gaps of ten, and two migrations numbered 0030) is kept as it is, listed here, and every
// number after LAST_HISTORICAL must be the previous one plus one.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { migrations } from '../../src/infra/db/migrations/index.ts';

const DIR = path.resolve(import.meta.dirname, '../../src/infra/db/migrations');
/** Numbers shipped before the contiguous rule, with their known duplicate. */
const HISTORICAL = ['0001', '0020', '0030', '0030', '0031', '0032', '0040', '0050', '0051', '0060'];
const LAST_HISTORICAL = '0060';

/** What is wrong with a list of migration names, one line each. */
function numberingProblems(names: string[]): string[] {
  const problems: string[] = [];
  const sorted = [...names].sort();
  if (names.join() !== sorted.join()) problems.push('names are not in lexical order');
  const numbers = names.map((n) => /^(\d{4})_[a-z0-9_]+$/.exec(n)?.[1] ?? null);
  names.forEach((n, i) => {
    if (numbers[i] === null) problems.push(`${n}: not NNNN_snake_name`);
  });
  const early = numbers.filter((n) => n !== null && n <= LAST_HISTORICAL);
  if (early.join() !== HISTORICAL.join())
    problems.push(`numbers up to ${LAST_HISTORICAL} changed: ${early.join(', ')}`);
  const later = numbers.filter((n): n is string => n !== null && n > LAST_HISTORICAL);
  let previous = Number(LAST_HISTORICAL);
  for (const n of later) {
    if (Number(n) !== previous + 1) problems.push(`${n} follows ${String(previous).padStart(4, '0')}`);
    previous = Number(n);
  }
  return problems;
}

describe('migration numbering', () => {
  it('registers every migration file under its file name, and nothing else', () => {
    const files = fs
      .readdirSync(DIR)
      .filter((f) => /^\d{4}_.*\.ts$/.test(f))
      .map((f) => f.replace(/\.ts$/, ''))
      .sort();
    expect(Object.keys(migrations).sort()).toEqual(files);
  });

  it('keeps numbers unique and contiguous after the historical ones', () => {
    expect(numberingProblems(Object.keys(migrations))).toEqual([]);
  });

  it('flags a duplicate, a gap and a rename of a shipped number', () => {
    const shipped = HISTORICAL.map((n, i) => `${n}_m${i}`);
    expect(numberingProblems([...shipped, '0061_a', '0061_b'])).toEqual(['0061 follows 0061']);
    expect(numberingProblems([...shipped, '0061_a', '0063_b'])).toEqual(['0063 follows 0061']);
    expect(numberingProblems([...shipped.slice(1), '0061_a'])).toEqual([
      `numbers up to 0060 changed: ${HISTORICAL.slice(1).join(', ')}`,
    ]);
  });
});
