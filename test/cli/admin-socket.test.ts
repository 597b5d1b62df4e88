import { execFile } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, killService, spawnService, until, type ChildService } from '../faults/support.ts';
import { createDataDir, createTestDatabase, type TestDatabase } from '../helpers/database.ts';

// The admin CLI while the service runs (review item 18): the service owns DATA_DIR/admin.sock
// (0600) and runs the CLI's commands on its own context, so the CLI works on the embedded
// database (which one process at a time may open) and answers in well under a second.
const run = promisify(execFile);
const CLI = path.resolve('src/cli/main.ts');

let testDb: TestDatabase;
let dataDir: string;
let service: ChildService | undefined;
let env: NodeJS.ProcessEnv;
beforeAll(async () => {
  testDb = await createTestDatabase({ migrated: true });
  dataDir = await createDataDir('bh-admin-sock-');
  env = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    LOG_LEVEL: 'warn',
    DATA_DIR: dataDir,
    ...(testDb.databaseUrl ? { DATABASE_URL: testDb.databaseUrl } : {}),
  };
  service = await spawnService(env as Record<string, string>);
  // The service opens its admin socket once its workers run, just after /readyz first answers.
  await until(
    'the admin socket',
    async () => (fs.existsSync(path.join(dataDir, 'admin.sock')) ? true : undefined),
    {
      timeoutMs: 30_000,
      intervalMs: 50,
    },
  );
});
afterAll(async () => {
  if (service) await killService(service, 'SIGTERM').catch(() => {});
  await testDb?.drop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function cli(...args: string[]) {
  return cliWith({}, ...args);
}

async function cliWith(extraEnv: Record<string, string>, ...args: string[]) {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args], {
      env: { ...env, ...extraEnv },
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error: any) {
    return {
      code: error.code ?? 1,
      stdout: error.stdout ?? '',
      stderr: error.stderr ?? '',
    };
  }
}

const socketPath = () => path.join(dataDir, 'admin.sock');

describe('the admin CLI through the running service', () => {
  it('owns a 0600 admin socket in DATA_DIR', () => {
    const stat = fs.lstatSync(socketPath());
    expect(stat.isSocket()).toBe(true);
    expect((stat.mode & 0o777).toString(8)).toBe('600');
  });

  it('creates a workspace and a key while the service runs, fast, and the key works at once', async () => {
    const created = await cli('--json', 'workspace', 'create', '--name', 'Live', '--plan', 'pro');
    // A direct open of the data folder would have failed on its lock (PGlite) while the service runs.
    expect(created.stderr).toBe('');
    expect(created.code, created.stderr).toBe(0);
    const workspace = JSON.parse(created.stdout);
    expect(workspace).toMatchObject({ name: 'Live', plan: 'pro' });

    const key = await cli('--json', 'key', 'create', '--workspace', workspace.id);
    expect(key.code, key.stderr).toBe(0);
    const secret = JSON.parse(key.stdout).key as string;
    const res = await http(service!.origin, 'GET', '/v1/workspace', { key: secret });
    expect(res.status).toBe(200);
    expect(res.json.id).toBe(workspace.id);

    // The CLI never opens the database itself while the service runs: told of a database it cannot
    // reach, it still answers, because the command ran in the service.
    const list = await cliWith(
      { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/unreachable' },
      'workspace',
      'list',
    );
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(new RegExp(`^${workspace.id}\\s+Live\\s+pro`, 'm'));
  });

  it('gives the same errors and exit codes as a direct run', async () => {
    const missing = await cli('key', 'revoke', 'key_doesnotexist');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('key key_doesnotexist does not exist');
    const badPlan = await cli('workspace', 'create', '--name', 'X', '--plan', 'gold');
    expect(badPlan.code).toBe(2);
    expect(badPlan.stderr).toContain('plan must be one of free, pro, agency, enterprise');
    const unknown = await cli('frobnicate');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown command/);
    const help = await cli('--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/Usage: brandhealth/);
  });

  it('runs relative paths against the folder of the CLI (metric import)', async () => {
    const created = JSON.parse(
      (await cli('--json', 'workspace', 'create', '--name', 'Import', '--plan', 'pro')).stdout,
    );
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'bh-admin-cwd-'));
    try {
      fs.writeFileSync(
        path.join(folder, 'metrics.csv'),
        [
          'workspace_id,platform,day,followers,posts,impressions,likes,comments,shares,saves,mentions,text',
          `${created.id},instagram,2025-01-01,1000,1,500,40,4,2,1,0,Love it`,
        ].join('\n'),
      );
      const { stdout } = await run(process.execPath, [CLI, '--json', 'metrics', 'import', 'metrics.csv'], {
        env,
        cwd: folder,
      });
      expect(JSON.parse(stdout)).toMatchObject({ rows: 1, imported: 1, committed: true });
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });

  it('refuses when the socket permissions are wrong, and accepts again once they are right', async () => {
    fs.chmodSync(socketPath(), 0o666);
    try {
      // The CLI refuses before sending (test/cli/admin-socket-trust.test.ts)...
      const refused = await cli('workspace', 'list');
      expect(refused.code).toBe(77);
      expect(refused.stderr).toMatch(/refusing the admin socket .*mode is 666, not 600/);
      expect(refused.stdout).toBe('');
      // ...and the service refuses any other client that connects anyway.
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = net.connect(socketPath());
        let text = '';
        socket.setEncoding('utf8');
        socket.on('connect', () =>
          socket.write(`${JSON.stringify({ argv: ['workspace', 'list'], cwd: dataDir })}\n`),
        );
        socket.on('data', (chunk: string) => (text += chunk));
        socket.on('close', () => resolve(text));
        socket.on('error', reject);
      });
      expect(answer).toMatch(/refuses its admin socket: .*mode 666, not 600/);
      expect(answer).toContain('"exit":77');
    } finally {
      fs.chmodSync(socketPath(), 0o600);
    }
    expect((await cli('workspace', 'list')).code).toBe(0);
  });

  it('falls back to opening the database itself once the service has stopped', async () => {
    await killService(service!, 'SIGTERM');
    expect((await service!.exited).code).toBe(0);
    service = undefined;
    expect(fs.existsSync(socketPath())).toBe(false);
    const list = await cli('workspace', 'list');
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/Live\s+pro/);
  }, 60_000);
});
