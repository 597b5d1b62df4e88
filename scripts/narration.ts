// Docs and code comments say what is true now and why; how things came to be belongs in commit
// messages, CHANGELOG.md, docs/adr/ and docs/performance-log.md. This finds narration: issue numbers,
// "previously", "used to be", "the commit before", session talk and dated runs.
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

export interface Finding {
  file: string;
  line: number;
  text: string;
  rule: string;
}

/** Each rule: a name and the pattern that finds it (case-insensitive). */
export const NARRATION_RULES: ReadonlyArray<{ rule: string; pattern: RegExp }> = [
  // "issue 12", "issue #12"; not "issues/12" in a URL.
  { rule: 'issue number', pattern: /\bissue ?#?\d+/i },
  {
    rule: 'the commit before',
    pattern: /\bthe (commit|change|version) before\b|\bbefore this (change|commit)\b/i,
  },
  { rule: 'session talk', pattern: /\b(last|this|previous) (turn|session)\b|\bthis session's\b/i },
  // "previously" as a time marker; "previously seen/resolved/stored" (a past participle) is logic.
  { rule: 'previously', pattern: /\bpreviously\b(?!\s+[a-z]+(?:ed|en|wn|ne|nt)\b)/i },
  {
    rule: 'used to',
    pattern:
      /\bused to (be|take|have|hold|give|return|answer|send|write|show|read|run|cost|fail|live|sit)\b/i,
  },
  { rule: 'copies that were', pattern: /\bwas (two|three|four|five|\d+) copies\b/i },
  // A run's date and time ("2026-11-26 15:04").
  { rule: 'dated run', pattern: /\b20\d\d-\d\d-\d\d,? \d\d:\d\d\b/ },
];

/** Where narration is the point (the history files), and this file, which quotes the rules. */
export const HISTORY_FILES = ['CHANGELOG.md', 'docs/adr/', 'docs/performance-log.md', 'scripts/narration.ts'];

/** The findings in one text: markdown whole, TypeScript comments only. */
export function narrationIn(file: string, text: string): Finding[] {
  const findings: Finding[] = [];
  const check = (chunk: string, firstLine: number) => {
    chunk.split('\n').forEach((line, i) => {
      for (const { rule, pattern } of NARRATION_RULES)
        if (pattern.test(line)) findings.push({ file, line: firstLine + i, text: line.trim(), rule });
    });
  };
  if (/\.(md)$/.test(file)) {
    check(text, 1);
    return findings;
  }
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, false, ts.LanguageVariant.Standard, text);
  for (let token = scanner.scan(); token !== ts.SyntaxKind.EndOfFileToken; token = scanner.scan()) {
    if (token === ts.SyntaxKind.SingleLineCommentTrivia || token === ts.SyntaxKind.MultiLineCommentTrivia) {
      const start = scanner.getTokenStart();
      check(scanner.getTokenText(), text.slice(0, start).split('\n').length);
    }
  }
  return findings;
}

/** Allowed lines: `path: exact text that may stay`, one per line, # comments. */
export function parseAllowList(text: string): Array<{ file: string; fragment: string }> {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => {
      const at = l.indexOf(': ');
      return { file: l.slice(0, at), fragment: l.slice(at + 2) };
    });
}

const ROOTS = [
  'README.md',
  'docs',
  'src',
  'simulator',
  'test',
  'scripts',
  'sdk/src',
  'sdk/README.md',
  'dashboard/src',
  'bench',
];

/** Every file the check reads, relative to root. */
export function filesToCheck(root: string): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    const full = path.join(root, rel);
    if (!fs.existsSync(full)) return;
    if (fs.statSync(full).isDirectory()) {
      for (const name of fs.readdirSync(full))
        if (name !== 'node_modules' && name !== 'dist') walk(path.join(rel, name));
    } else if (/\.(md|ts|tsx)$/.test(rel) && !HISTORY_FILES.some((h) => rel === h || rel.startsWith(h))) {
      out.push(rel);
    }
  };
  ROOTS.forEach(walk);
  return out;
}
