import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDataDir, createTestDatabase, type TestDatabase } from '../helpers/database.ts';

const run = promisify(execFile);
const CLI = path.resolve('src/cli/main.ts');

let testDb: TestDatabase;
let env: NodeJS.ProcessEnv;
let dataDir: string;
beforeAll(async () => {
  testDb = await createTestDatabase({ migrated: true });
  dataDir = await createDataDir('bh-cli-');
  env = { ...process.env, LOG_LEVEL: 'silent', DATA_DIR: dataDir, DATABASE_URL: testDb.databaseUrl ?? '' };
});
afterAll(async () => {
  await testDb?.drop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args], { env, timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (error: any) {
    return { code: error.code ?? 1, stdout: error.stdout ?? '', stderr: error.stderr ?? '' };
  }
}

describe('brandhealth CLI', () => {
  // Exit 1 with one line as a process: the unreachable database below; a refused command's line and
  // code: test/cli/commands-in-process.test.ts, and through the admin socket test/cli/admin-socket.test.ts.
  it('runs as a process: JSON on stdout and exit 0, one line on stderr and exit 2', async () => {
    const created = await cli('--json', 'workspace', 'create', '--name', 'Process', '--plan', 'pro');
    expect(created.code).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({ name: 'Process', plan: 'pro' });
    const badDate = await cli('workspace', 'set-sector', 'ws_x', '--sector', 'none', '--from', '2030-02-30');
    expect(badDate.code).toBe(2);
    expect(badDate.stderr).toContain('must be a date YYYY-MM-DD');
    expect(badDate.stderr).not.toMatch(/\n\s+at /); // no stack trace
  }, 120_000);

  it('ends quietly on a closed pipe, and reports an unreachable database in one line', async () => {
    // A reader that closed its end before the first line (like `| head` that has had enough).
    const closed = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [CLI, 'workspace', 'list', '--all'], { env });
      child.stdout.destroy();
      let stderr = '';
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      child.on('close', (code) => resolve({ code, stderr }));
    });
    expect(closed).toEqual({ code: 0, stderr: '' });

    const unreachable = await run(process.execPath, [CLI, 'workspace', 'list'], {
      env: { ...env, DATABASE_URL: 'postgres://postgres@127.0.0.1:1/nothing' },
      timeout: 60_000,
    }).catch((error: { code: number; stderr: string }) => error);
    expect((unreachable as { code: number }).code).toBe(1);
    expect((unreachable as { stderr: string }).stderr.trim().split('\n')).toHaveLength(1);
    expect((unreachable as { stderr: string }).stderr).toMatch(
      /^brandhealth: DATABASE_URL: .*127\.0\.0\.1:1/,
    );
  });
});
