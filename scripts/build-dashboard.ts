/**
 * Builds the web dashboard (dashboard/ -> dashboard/dist) with Vite. Run by `npm install`/`npm ci`
 * (the `prepare` script), so the quick start's two commands serve it. An install without
 * devDependencies (`--omit=dev`) has no Vite: the build is skipped and the service runs without /app/.
 *
 * The build is skipped when dist was built from the same inputs (a SHA-256 over the dashboard's sources,
 * the SDK sources it imports and the lockfile, kept beside dist in dashboard/dist.sha256,
 * outside what /app/ serves), so an install or an `npx`
 * call that runs `prepare` does not rebuild an unchanged dashboard. `--force` builds regardless.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const dist = path.join(root, 'dashboard/dist');
const stamp = path.join(root, 'dashboard/dist.sha256');
const INPUTS = [
  'dashboard/src',
  'dashboard/index.html',
  'dashboard/vite.config.ts',
  'dashboard/tsconfig.json',
  'sdk/src',
  'package-lock.json',
];

function files(rel: string): string[] {
  const abs = path.join(root, rel);
  if (!fs.existsSync(abs)) return [];
  if (!fs.statSync(abs).isDirectory()) return [rel];
  return fs
    .readdirSync(abs, { recursive: true, encoding: 'utf8' })
    .map((f) => path.join(rel, f))
    .filter((f) => fs.statSync(path.join(root, f)).isFile());
}

function inputsDigest(): string {
  const h = createHash('sha256');
  for (const f of INPUTS.flatMap(files).sort()) {
    h.update(f)
      .update('\0')
      .update(fs.readFileSync(path.join(root, f)))
      .update('\0');
  }
  return h.digest('hex');
}

const digest = inputsDigest();
const force = process.argv.includes('--force');
if (!force && fs.existsSync(path.join(dist, 'index.html')) && fs.existsSync(stamp)) {
  if (fs.readFileSync(stamp, 'utf8').trim() === digest) {
    console.log('dashboard: dashboard/dist is up to date (npm run build:dashboard rebuilds it)');
    process.exit(0);
  }
}

let vite: typeof import('vite');
try {
  vite = await import('vite');
} catch {
  console.log('dashboard: vite is not installed (devDependencies omitted); /app/ will not be served');
  process.exit(0);
}
await vite.build({ configFile: path.join(root, 'dashboard/vite.config.ts') });
fs.writeFileSync(stamp, `${digest}\n`);
console.log('dashboard: built into dashboard/dist (served at /app/)');
