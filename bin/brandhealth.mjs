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
const result = spawnSync(node, [join(root, 'src', 'cli', 'main.ts'), ...process.argv.slice(2)], { stdio: 'inherit' });
process.exit(result.status ?? 1);
