// The narration check (scripts/check-narration.ts, in `npm run lint`): what it flags and what it lets
// through, in markdown and in TypeScript comments.
import { describe, expect, it } from 'vitest';
import { filesToCheck, narrationIn } from '../../scripts/narration.ts';

const rules = (file: string, text: string) => narrationIn(file, text).map((f) => `${f.line} ${f.rule}`);

describe('narration check', () => {
  it('flags narrated lines in markdown', () => {
    const doc = [
      'The cache holds one entry per key.',
      'Added for issue 15, item 1.',
      'It was two copies before; the commit before kept both.',
      'Previously the limit was per instance.',
      'Measured 2026-11-26 15:04 UTC on two cores.',
    ].join('\n');
    expect(rules('docs/x.md', doc)).toEqual([
      '2 issue number',
      '3 the commit before',
      '3 copies that were',
      '4 previously',
      '5 dated run',
    ]);
  });

  it('passes reference text, URLs and logic that only sounds like history', () => {
    const doc = [
      'See https://github.com/fastify/fastify/issues/4521 for the upstream report.',
      'A previously seen token is refused; a previously resolved address is never reused.',
      'The id is used to find the row. Dates are YYYY-MM-DD, e.g. 2026-11-26.',
    ].join('\n');
    expect(rules('docs/x.md', doc)).toEqual([]);
  });

  it('reads only the comments of TypeScript, not its strings', () => {
    const code = [
      "const message = 'fixed in issue 12';",
      '// One rule for both callers (issue 12).',
      '/**',
      ' * The limit used to be per instance.',
      ' */',
      'export const x = `previously ${message}`;',
    ].join('\n');
    expect(rules('src/x.ts', code)).toEqual(['2 issue number', '4 used to']);
  });

  it('leaves out the history files', () => {
    const files = filesToCheck(process.cwd());
    expect(files).toContain('README.md');
    expect(files.some((f) => f.startsWith('docs/adr/') || f === 'docs/performance-log.md')).toBe(false);
  });
});
