import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { cliOn } from '../helpers/cli.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

// `brandhealth metrics import`, run in this process on a test service (the CLI as a process:
// test/cli/cli.test.ts and test/cli/admin-socket.test.ts).
let t: TestService;
let dir: string;
beforeAll(async () => {
  t = await startTestService();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bh-ingest-cli-'));
});
afterAll(async () => {
  await t?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const cli = (...args: string[]) => cliOn(t.ctx, ...args);

it('brandhealth metrics import: all or nothing, exit 1 with a line report, --skip-invalid imports the rest', async () => {
  const created = await cli('--json', 'workspace', 'create', '--name', 'CLI import', '--plan', 'pro');
  expect(created.code).toBe(0);
  const id = JSON.parse(created.stdout).id as string;
  const file = path.join(dir, 'metrics.csv');
  fs.writeFileSync(
    file,
    [
      'workspace_id,platform,day,followers,posts,impressions,likes,comments,shares,saves,mentions,text',
      `${id},instagram,2025-01-01,1000,1,500,40,4,2,1,0,Love it`,
      `${id},instagram,2025-01-02,abc,1,500,40,4,2,1,0,`,
    ].join('\n'),
  );

  const refused = await cli('metrics', 'import', file);
  expect(refused.code).toBe(1);
  expect(refused.stdout).toContain('line 3: followers must be a whole number >= 0, got "abc"');
  expect(refused.stdout).toContain('1 of 2 rows rejected; nothing was imported');
  expect(refused.stderr).toContain('--skip-invalid');

  const partial = await cli('--json', 'metrics', 'import', file, '--skip-invalid');
  expect(partial.code).toBe(0);
  expect(JSON.parse(partial.stdout)).toMatchObject({
    format: 'csv',
    rows: 2,
    imported: 1,
    committed: true,
    rejected: [{ line: 3, reason: 'followers must be a whole number >= 0, got "abc"' }],
  });

  const unknown = await cli('metrics', 'import', path.join(dir, 'metrics.txt'));
  expect(unknown.code).toBe(1);
  expect(unknown.stderr).toContain('cannot tell the format');
});

it('brandhealth metrics sync: a platform not connected is refused with exit 1 and its reason', async () => {
  const created = await cli('--json', 'workspace', 'create', '--name', 'CLI sync', '--plan', 'pro');
  expect(created.code).toBe(0);
  const id = JSON.parse(created.stdout).id as string;

  const refused = await cli('metrics', 'sync', '--workspace', id, '--platform', 'instagram');
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain(`instagram is not connected to workspace ${id}`);
});
