import { defineConfig } from 'vitest/config';

// PGlite is a single-connection WASM Postgres: running many instances in parallel workers
// wastes memory and gains nothing on a 2-core machine, so test files run one at a time.
// When TEST_DATABASE_URL is set the same files run a second time against PostgreSQL.
const postgres = process.env.TEST_DATABASE_URL;

const shared = {
  include: ['test/**/*.test.ts'],
  exclude: ['test/faults/**'],
  testTimeout: 30_000,
  hookTimeout: 60_000,
  fileParallelism: false,
};

export default defineConfig({
  test: {
    projects: [
      { test: { ...shared, name: 'pglite', env: { TEST_DB: 'pglite' } } },
      ...(postgres ? [{ test: { ...shared, name: 'postgres', env: { TEST_DB: 'postgres' } } }] : []),
    ],
  },
});
