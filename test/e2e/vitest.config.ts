import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { testProjects } from '../../vitest.config.ts';
import LongestFirst from '../sequencer.ts';

// The end-to-end suite (npm run test:e2e): the full demo sandbox (533 workspaces x 730 days), seeded
// once per database by the real CLI in test/e2e/global-setup.ts, and the web pages in Debian's
// Chromium. Out of `npm test` so the test loop stays short; CI runs it on both databases. Two files
// at a time, longest first.
export default defineConfig({
  test: {
    root: fileURLToPath(new URL('../..', import.meta.url)),
    fileParallelism: true,
    maxWorkers: 2,
    sequence: { sequencer: LongestFirst },
    projects: testProjects(['test/e2e/**/*.test.ts'], [], ['test/e2e/global-setup.ts']),
  },
});
