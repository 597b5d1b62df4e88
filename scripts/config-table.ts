// Rewrites the README's configuration table from src/infra/config.ts (CONFIG_OPTIONS).
// test/unit/config-docs.test.ts fails when the README is not current.
import fs from 'node:fs';
import { configTable } from '../src/infra/config.ts';
import { README_TABLE, withConfigTable } from './config-table-markers.ts';

const readme = fs.readFileSync(README_TABLE.path, 'utf8');
fs.writeFileSync(README_TABLE.path, withConfigTable(readme, configTable()));
console.log(`${README_TABLE.path}: configuration table written`);
