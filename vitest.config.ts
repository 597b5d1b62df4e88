import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { defineConfig } from 'vitest/config';
import LongestFirst from './test/sequencer.ts';

// `npm test`, the test loop: every file but the end-to-end suite (test/e2e: the full demo sandbox
// and the browser; `npm run test:e2e`) and the fault suite (test/faults; `npm run test:faults`).
// CI runs all three. Files run two at a time (the machine has 2 cores). Each file starts its own
// service from a database image built once per run by test/global-setup.ts (well under a second,
// against about seven for initdb plus migrations), so a file's cost is its own tests. When
// TEST_DATABASE_URL is set the same files run a second time against PostgreSQL.
//
// `isolate: false`: a worker keeps its loaded modules from one file to the next instead of importing
// the service's whole module graph again for every file (46 s of a 200 s run). Safe because no
// module holds per-service state (it lives in the AppContext each test service creates) and no test
// mocks modules. NODE_COMPILE_CACHE lets the node processes the CLI tests spawn reuse compiled code.
//
// The `postgres` project runs only the files whose run can differ on it: those that read TEST_DB or
// TEST_DATABASE_URL, themselves or through a module of test/ they import (test/helpers/database.ts,
// which every service, database and data folder of a test comes from). That environment is the only
// difference between the projects and nothing in src/ reads it, so any other file (pure unit tests:
// engines, privacy audits, parsers, the SDK's retry) would run the same code on the same inputs twice.
export function testProjects(
  include: string[],
  exclude: string[] = [],
  globalSetup: string[] = [],
  /** The files the `postgres` project runs, when not every file using the database (the end-to-end suite). */
  onPostgres?: string[],
) {
  const shared = {
    include,
    exclude,
    globalSetup: ['test/global-setup.ts', ...globalSetup],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    isolate: false,
  };
  const env = { NODE_COMPILE_CACHE: path.join(os.tmpdir(), 'brand-health-node-compile-cache') };
  return [
    { test: { ...shared, name: 'pglite', env: { ...env, TEST_DB: 'pglite' } } },
    ...(process.env.TEST_DATABASE_URL
      ? [
          {
            test: {
              ...shared,
              include: onPostgres ?? filesUsingTheDatabase(include, exclude),
              name: 'postgres',
              env: { ...env, TEST_DB: 'postgres' },
            },
          },
        ]
      : []),
  ];
}

const DATABASE_SWITCH = /\bTEST_DB\b|\bTEST_DATABASE_URL\b/;
const RELATIVE_IMPORT = /(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g;

/** The test files matching `include` that reach the database switch through their imports within test/. */
export function filesUsingTheDatabase(include: string[], exclude: string[] = []): string[] {
  const root = import.meta.dirname;
  const testDir = path.join(root, 'test');
  const reaches = new Map<string, boolean>();
  const visit = (file: string): boolean => {
    const known = reaches.get(file);
    if (known !== undefined) return known;
    reaches.set(file, false); // an import cycle adds nothing
    const source = fs.readFileSync(file, 'utf8');
    let found = DATABASE_SWITCH.test(source);
    for (const [, spec] of source.matchAll(RELATIVE_IMPORT)) {
      if (found) break;
      const target = path.resolve(path.dirname(file), spec!);
      if (target.startsWith(testDir + path.sep) && fs.existsSync(target)) found = visit(target);
    }
    reaches.set(file, found);
    return found;
  };
  return fs
    .globSync(include, { cwd: root, exclude })
    .filter((file) => visit(path.join(root, file)))
    .sort();
}

export default defineConfig({
  test: {
    fileParallelism: true,
    maxWorkers: 2,
    sequence: { sequencer: LongestFirst },
    projects: testProjects(['test/**/*.test.ts'], ['test/faults/**', 'test/e2e/**']),
  },
});
