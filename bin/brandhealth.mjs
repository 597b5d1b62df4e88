#!/usr/bin/env node
// Runs the CLI on the project's own Node 24 (a dev dependency), whatever `node` is on PATH.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const local = join(root, 'node_modules', 'node', 'bin', 'node');
const major = Number(process.versions.node.split('.')[0]);
const node = major >= 24 ? process.execPath : existsSync(local) ? local : null;
if (!node) {
  console.error('brandhealth needs Node.js 24: run `npm install` in the project first.');
  process.exit(1);
}
// `brandhealth simulator` is the platform simulator (simulator/, a development and test tool outside
// the service's src/); every other command is the service's CLI.
const args = process.argv.slice(2);
const entry =
  args[0] === 'simulator'
    ? [join(root, 'simulator', 'main.ts'), ...args.slice(1)]
    : [join(root, 'src', 'cli', 'main.ts'), ...args];
const result = spawnSync(node, entry, { stdio: 'inherit' });
process.exit(result.status ?? 1);
