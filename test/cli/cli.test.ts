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
  it('creates an agency and a client, issues, lists and revokes a key, connects platforms', async () => {
    const agency = JSON.parse(
      (
        await cli(
          '--json',
          'workspace',
          'create',
          '--name',
          'Agency One',
          '--plan',
          'agency',
          '--account-type',
          'agency',
        )
      ).stdout,
    );
    expect(agency).toMatchObject({ name: 'Agency One', plan: 'agency', account_type: 'agency' });

    const client = await cli(
      '--json',
      'workspace',
      'create',
      '--name',
      'Client',
      '--plan',
      'pro',
      '--parent',
      agency.id,
    );
    expect(JSON.parse(client.stdout).parent_id).toBe(agency.id);
    // The list shows the agency's clients with the workspace's own fields, no internal bookkeeping.
    const clients = JSON.parse((await cli('--json', 'workspace', 'list', '--parent', agency.id)).stdout);
    expect(clients.map((w: { name: string }) => w.name)).toEqual(['Client']);
    expect(Object.keys(clients[0]).sort()).toEqual(
      [
        'account_type',
        'billing_period',
        'created_at',
        'id',
        'is_white_labeled',
        'name',
        'org_type',
        'parent_id',
        'plan',
        'realtime_scoring',
        'sector_slug',
        'team_members',
      ].sort(),
    );

    const key = JSON.parse(
      (await cli('--json', 'key', 'create', '--workspace', agency.id, '--scopes', 'read')).stdout,
    );
    expect(key.key).toMatch(/^bh_live_[0-9A-Z]{26}_[A-Za-z0-9_-]{43}$/);
    expect(key.scopes).toEqual(['read']);

    const connect = await cli(
      'platform',
      'connect',
      '--workspace',
      agency.id,
      '--platform',
      'tiktok',
      '--handle',
      '@agency1',
    );
    expect(connect.code).toBe(0);
    expect(connect.stdout).toContain('connected tiktok');

    expect((await cli('key', 'revoke', key.id)).code).toBe(0);
    const listed = JSON.parse((await cli('--json', 'key', 'list', '--workspace', agency.id)).stdout);
    expect(listed).toHaveLength(1);
    expect(listed[0].id).toBe(key.id);
    expect(listed[0].revoked_at).not.toBeNull();
    // The secret is never listed.
    expect(JSON.stringify(listed)).not.toContain(key.key.slice(-43));
  }, 120_000);

  it('rejects bad arguments with a clear message and a non-zero exit', async () => {
    const badPlan = await cli('workspace', 'create', '--name', 'X', '--plan', 'gold');
    expect(badPlan.code).not.toBe(0);
    expect(badPlan.stderr).toContain('plan must be one of free, pro, agency, enterprise');

    const missing = await cli('key', 'revoke', 'key_doesnotexist');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('key key_doesnotexist does not exist');

    const unknown = await cli('frobnicate');
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toMatch(/unknown command/);
  }, 120_000);

  it('refuses to seed the sandbox into a database with real data, and resets only a sandbox', async () => {
    // The first test left an agency, a client and keys here: not a sandbox.
    const out = path.join(dataDir, 'sandbox.json');
    const refused = await cli('demo', '--out', out);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /^brandhealth: this database holds data that is not the sandbox's \(2 workspaces/,
    );
    expect(refused.stderr).toMatch(/--force/);
    expect(fs.existsSync(out)).toBe(false);
    const reset = await cli('sandbox', 'reset');
    expect(reset.code).toBe(0);
    expect(reset.stdout).toMatch(/no sandbox in this database/);
  }, 120_000);

  it('refuses a date that does not exist with one line and exit 2, before it reaches the database', async () => {
    const created = await cli('--json', 'workspace', 'create', '--name', 'Dated', '--plan', 'pro');
    const id = JSON.parse(created.stdout).id as string;
    // 2030-02-30 is not a day: it must not roll over to March 2 (nor fail inside PostgreSQL).
    const moved = await cli('workspace', 'set-sector', id, '--sector', 'none', '--from', '2030-02-30');
    expect(moved.code).toBe(2);
    expect(moved.stderr).toMatch(
      /'--from <YYYY-MM-DD>' argument '2030-02-30' is invalid\. must be a date YYYY-MM-DD/,
    );
    expect(moved.stderr).not.toMatch(/\n\s+at /); // no stack trace
    const expiring = await cli('key', 'create', '--workspace', id, '--expires', '2030-02-30T00:00:00Z');
    expect(expiring.code).toBe(2);
    expect(expiring.stderr).toContain('must be an ISO 8601 date (YYYY-MM-DD) or date-time');
    const keys = JSON.parse((await cli('--json', 'key', 'list', '--workspace', id)).stdout);
    expect(keys).toEqual([]);
  }, 120_000);
  it('reports every refused command as one line "brandhealth: <detail>" and exit 1', async () => {
    const agency = JSON.parse(
      (await cli('--json', 'workspace', 'create', '--name', 'Refusals', '--plan', 'free')).stdout,
    );
    const cases: Array<[string[], RegExp]> = [
      // invalid_parameter, raised by the admin functions themselves
      [
        ['workspace', 'create', '--name', ' ', '--plan', 'pro'],
        /^brandhealth: name: must be 1-200 characters\n$/,
      ],
      // not_found
      [
        ['workspace', 'move', 'ws_nope', '--parent', 'none'],
        /^brandhealth: workspace ws_nope does not exist\n$/,
      ],
      // platform_limit_reached (Free allows one platform)
      [
        ['platform', 'connect', '--workspace', agency.id, '--platform', 'youtube', '--handle', '@two'],
        /^brandhealth: The free plan allows 1 connected platform; disconnect one or upgrade\.\n$/,
      ],
      // invalid_date_range, raised by the scoring domain
      [
        ['scores', 'recompute', '--from', '2999-01-01'],
        /^brandhealth: --from 2999-01-01 is after today \(\d{4}-\d{2}-\d{2}\)\n$/,
      ],
      // invalid_parameter, raised by the TACSI domain
      [
        ['tacsi', 'publish', '--sector', 'headline', '--cadence', 'weekly', '--period-end', '2025-02-10'],
        /^brandhealth: 2025-02-10 is not a Sunday \(weekly periods end on Sundays\)\n$/,
      ],
    ];
    expect(
      (await cli('platform', 'connect', '--workspace', agency.id, '--platform', 'tiktok', '--handle', '@one'))
        .code,
    ).toBe(0);
    for (const [args, message] of cases) {
      const result = await cli(...args);
      expect({ args, code: result.code, stderr: result.stderr }).toEqual({
        args,
        code: 1,
        stderr: expect.stringMatching(message),
      });
    }
  }, 180_000);

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
