import fs from 'node:fs';

/**
 * The Node/V8 flags `npm start` runs the service with (package.json's `start` script, the words
 * before `src/main.ts`), so the bench measures the process as it is deployed. BENCH_NODE_FLAGS
 * replaces them for an experiment (`none` for no flags at all).
 */
export function serviceNodeFlags(env: Record<string, string | undefined> = process.env): string[] {
  const override = env.BENCH_NODE_FLAGS?.trim();
  if (override) return override === 'none' ? [] : override.split(/\s+/);
  const pkg = JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    scripts: Record<string, string>;
  };
  const words = pkg.scripts.start!.trim().split(/\s+/);
  const entry = words.indexOf('src/main.ts');
  if (words[0] !== 'node' || entry < 0) throw new Error(`unexpected start script: ${pkg.scripts.start}`);
  return words.slice(1, entry);
}
