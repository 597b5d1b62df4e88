import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { testProjects } from '../../vitest.config.ts';
import LongestFirst from '../sequencer.ts';

// The end-to-end suite (npm run test:e2e): the full demo sandbox (533 workspaces x 730 days), seeded
// once per database by the real CLI in test/e2e/global-setup.ts, and the web pages in Debian's
// Chromium. Out of `npm test` so the test loop stays short. Two files at a time, longest first.
//
// Every file runs on PGlite, the quick start's database. With TEST_DATABASE_URL the `postgres` project
// runs only what can differ there: the demo seeded by the CLI into PostgreSQL and the live sandbox
// served from it (sandbox.test.ts). The browser files drive the same HTTP API that `npm test` already
// runs on both databases; running them twice would test the browser twice, not PostgreSQL
// (docs/adr/0188-end-to-end-browser-files-on-the-embedded-database.md).
const ON_POSTGRES = ['test/e2e/sandbox.test.ts'];

export default defineConfig({
  test: {
    root: fileURLToPath(new URL('../..', import.meta.url)),
    fileParallelism: true,
    maxWorkers: 2,
    sequence: { sequencer: LongestFirst },
    projects: testProjects(['test/e2e/**/*.test.ts'], [], ['test/e2e/global-setup.ts'], ON_POSTGRES),
  },
});
