// After tsc: copy the generated API types (tsc emits nothing for a .d.ts source) and point the
// emitted declarations at .js files (the sources import each other as .ts, which Node and the
// repository's tests run directly; tsc rewrites those imports in JavaScript but not in .d.ts).
import fs from 'node:fs';

const dist = new URL('../dist/', import.meta.url);
fs.copyFileSync(new URL('../src/schema.d.ts', import.meta.url), new URL('schema.d.ts', dist));
for (const file of fs.readdirSync(dist)) {
  if (!file.endsWith('.d.ts')) continue;
  const path = new URL(file, dist);
  const text = fs.readFileSync(path, 'utf8');
  fs.writeFileSync(path, text.replace(/(from\s+['"]\.{1,2}\/[^'"]+)\.ts(['"])/g, '$1.js$2'));
}
