import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { testProjects } from '../../vitest.config.ts';
import LongestFirst from '../sequencer.ts';

// The end-to-end suite (npm run test:e2e): the full demo sandbox (533 workspaces x 730 days,
// about a minute to seed) and the web pages in Debian's Chromium. Out of `npm test` so the test
// loop stays short; CI runs it on both databases. Two files at a time, longest first.
export default defineConfig({
  test: {
    root: fileURLToPath(new URL('../..', import.meta.url)),
    fileParallelism: true,
    maxWorkers: 2,
    sequence: { sequencer: LongestFirst },
    projects: testProjects(['test/e2e/**/*.test.ts']),
  },
});
