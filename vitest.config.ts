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
export function testProjects(include: string[], exclude: string[] = []) {
  const shared = {
    include,
    exclude,
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    isolate: false,
  };
  const env = { NODE_COMPILE_CACHE: path.join(os.tmpdir(), 'brand-health-node-compile-cache') };
  return [
    { test: { ...shared, name: 'pglite', env: { ...env, TEST_DB: 'pglite' } } },
    ...(process.env.TEST_DATABASE_URL
      ? [{ test: { ...shared, name: 'postgres', env: { ...env, TEST_DB: 'postgres' } } }]
      : []),
  ];
}

export default defineConfig({
  test: {
    fileParallelism: true,
    maxWorkers: 2,
    sequence: { sequencer: LongestFirst },
    projects: testProjects(['test/**/*.test.ts'], ['test/faults/**', 'test/e2e/**']),
  },
});
