import { describe, expect, it } from 'vitest';
import { csvCell } from '../../src/infra/http/csv.ts';

// The cell rules the HTTP tests (test/api/csv.test.ts) cannot reach: workspace names are trimmed, so
// no stored name starts with a tab or CR.
describe('csvCell', () => {
  it('defuses every formula start OWASP lists, tab and CR included', () => {
    expect(csvCell('\tcmd')).toBe(`"'\tcmd"`);
    expect(csvCell('\r=1+1')).toBe(`"'\r'=1+1"`);
    expect(csvCell('=1+1')).toBe(`"'=1+1"`);
    expect(csvCell('a=1')).toBe('a=1');
  });

  it('defuses a formula after any separator a spreadsheet may split on, and quotes the cell', () => {
    expect(csvCell('x;=1+1;y')).toBe(`"x;'=1+1;y"`);
    expect(csvCell('a|@SUM(1)')).toBe(`"a|'@SUM(1)"`);
    expect(csvCell('a,+1')).toBe(`"a,'+1"`);
    expect(csvCell('a\t-1')).toBe(`"a\t'-1"`);
    expect(csvCell('a;b')).toBe(`"a;b"`);
    expect(csvCell('Acme - Blue')).toBe('Acme - Blue');
  });

  it('writes numbers, booleans and null as data, never as defused text', () => {
    expect(csvCell(-0.4)).toBe('-0.4');
    expect(csvCell(1e21)).toBe('1e+21');
    expect(csvCell(false)).toBe('false');
    expect(csvCell(null)).toBe('');
    expect(csvCell(undefined)).toBe('');
    expect(csvCell('')).toBe('');
  });
});
