// `npm run lint:narration`: fails on history narration in the docs and in code comments
// (scripts/narration.ts says what counts). Exceptions: scripts/narration-allow.txt.
import fs from 'node:fs';
import path from 'node:path';
import { filesToCheck, narrationIn, parseAllowList } from './narration.ts';

const root = path.resolve(import.meta.dirname, '..');
const allowed = parseAllowList(fs.readFileSync(path.join(root, 'scripts/narration-allow.txt'), 'utf8'));
const findings = filesToCheck(root)
  .flatMap((file) => narrationIn(file, fs.readFileSync(path.join(root, file), 'utf8')))
  .filter((f) => !allowed.some((a) => a.file === f.file && f.text.includes(a.fragment)));
for (const f of findings) console.error(`${f.file}:${f.line}: ${f.rule}: ${f.text}`);
if (findings.length > 0) {
  console.error(
    `${findings.length} line(s) narrate history. Say what is true now; history goes in commit messages, ` +
      'CHANGELOG.md, docs/adr/ or docs/performance-log.md.',
  );
  process.exit(1);
}
