import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// The fault and abuse suite (npm run test:faults): slower than the main suite, so it has its own
// config and the main one excludes test/faults. Files run one at a time (several start real
// child processes or saturate the 2 CPUs on purpose). With TEST_DATABASE_URL every case runs on
// PostgreSQL and the PostgreSQL-only cases (kill -9, database outage) run too; without it the
// rest runs on PGlite.
const postgres = !!process.env.TEST_DATABASE_URL;

export default defineConfig({
  test: {
    root: fileURLToPath(new URL('../..', import.meta.url)),
    include: ['test/faults/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 120_000,
    env: { TEST_DB: postgres ? 'postgres' : 'pglite' },
  },
});
