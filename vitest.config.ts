import { defineConfig } from 'vitest/config';

// Test files run two at a time (the machine has 2 cores). Each file starts its own service from a
// database image built once per run by test/global-setup.ts (well under a second, against about
// seven for initdb plus migrations), so a file's cost is its own tests. When TEST_DATABASE_URL is
// set the same files run a second time against PostgreSQL.
const postgres = process.env.TEST_DATABASE_URL;

const shared = {
  include: ['test/**/*.test.ts'],
  exclude: ['test/faults/**'],
  globalSetup: ['test/global-setup.ts'],
  testTimeout: 30_000,
  hookTimeout: 60_000,
};

export default defineConfig({
  test: {
    fileParallelism: true,
    maxWorkers: 2,
    projects: [
      { test: { ...shared, name: 'pglite', env: { TEST_DB: 'pglite' } } },
      ...(postgres ? [{ test: { ...shared, name: 'postgres', env: { TEST_DB: 'postgres' } } }] : []),
    ],
  },
});
