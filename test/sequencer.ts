import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Longest files first, so the two workers finish together instead of one running a long file
 * alone at the end. Vitest orders by the durations it cached from the last run; a clean checkout
 * (CI) has none and falls back to file size, which says little here: these files spend most of
 * their time seeding the full sandbox, publishing a 1,000-cell archive or starting child processes.
 */
const LONGEST = [
  'test/e2e/dashboard.test.ts',
  'test/e2e/sandbox.test.ts',
  'test/cli/cli.test.ts',
  'test/api/tacsi-m2-coverage.test.ts',
  'test/cli/startup.test.ts',
  'test/cli/secrets-at-rest.test.ts',
  'test/sdk/audit-webhooks.test.ts',
  'test/cli/admin-socket.test.ts',
  'test/api/webhooks-delivery.test.ts',
  'test/api/ingest-cli.test.ts',
  'test/api/audits-restart.test.ts',
  'test/unit/tacsi-privacy-distinguishing.test.ts',
];

const rank = (spec: TestSpecification) => {
  const i = LONGEST.findIndex((f) => spec.moduleId.endsWith(f));
  return i < 0 ? LONGEST.length : i;
};

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    // Stable: the rest keeps vitest's order.
    return sorted
      .map((spec, i) => ({ spec, i }))
      .sort((a, b) => rank(a.spec) - rank(b.spec) || a.i - b.i)
      .map((x) => x.spec);
  }
}
