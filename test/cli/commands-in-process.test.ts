import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../src/admin/workspaces.ts';
import { sandboxId } from '../../src/sandbox/ids.ts';
import { runCli } from '../../src/cli/program.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

// CLI commands through the CLI's own program, run in this process on a test service's context (as
// the admin socket runs them): `workspace list` pages (a sandbox holds hundreds of workspaces), and a
// key minted for the sandbox, as the README shows, never makes `demo` refuse its own database.
let t: TestService;
beforeAll(async () => {
  t = await startTestService();
  for (let i = 0; i < 5; i++) await createWorkspace(t.db, { name: `Listed ${i}`, plan: 'pro' });
});
afterAll(async () => t?.close());

async function cli(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let out = '';
  let err = '';
  const code = await runCli(
    argv,
    { out: (text) => void (out += text), err: (text) => void (err += text) },
    (fn) => fn(t.ctx),
  );
  return { code, stdout: out, stderr: err };
}

describe('brandhealth workspace list', () => {
  it('prints a page, names the next one on stderr, and walks every workspace once', async () => {
    const all = JSON.parse((await cli('--json', 'workspace', 'list', '--all')).stdout) as { id: string }[];
    expect(all.length).toBeGreaterThanOrEqual(5);

    const seen: string[] = [];
    let after: string | undefined;
    for (;;) {
      const page = await cli(
        '--json',
        'workspace',
        'list',
        '--limit',
        '2',
        ...(after ? ['--after', after] : []),
      );
      expect(page.code).toBe(0);
      const rows = JSON.parse(page.stdout) as { id: string }[];
      expect(rows.length).toBeLessThanOrEqual(2);
      seen.push(...rows.map((r) => r.id));
      if (page.stderr === '') break;
      expect(page.stderr).toBe(`more workspaces follow: --after ${rows.at(-1)!.id} (or --all)\n`);
      after = rows.at(-1)!.id;
    }
    expect(seen).toEqual(all.map((w) => w.id));
  });

  it('refuses a page size out of range and an unknown cursor', async () => {
    for (const limit of ['0', '1001', '2.5', 'ten']) {
      const res = await cli('workspace', 'list', '--limit', limit);
      expect(res.code, limit).toBe(2);
      expect(res.stderr, limit).toContain('must be an integer from 1 to 1000');
    }
    expect(await cli('workspace', 'list', '--after', 'ws_missing')).toEqual({
      code: 1,
      stdout: '',
      stderr: 'brandhealth: workspace ws_missing (--after) does not exist\n',
    });
  });
});

describe('keys for the sandbox', () => {
  it('are test keys, so `demo` still takes the database; a revoked live key no longer counts', async () => {
    const sandboxWs = sandboxId('ws', 'cli test brand');
    await t.db
      .insertInto('workspaces')
      .values({ id: sandboxWs, name: 'Sandbox brand', plan: 'pro', created_at: new Date() } as never)
      .execute();
    const minted = JSON.parse((await cli('--json', 'key', 'create', '--workspace', sandboxWs)).stdout) as {
      id: string;
      key: string;
    };
    expect(minted.key).toMatch(/^bh_test_/);
    const me = await t.request({ method: 'GET', url: '/v1/workspace', key: minted.key });
    expect(me.statusCode, me.body).toBe(200);

    // This database also holds real workspaces (created above): `demo` names them, and only them.
    const real = (await createWorkspace(t.db, { name: 'Real brand', plan: 'pro' })).id;
    const live = JSON.parse((await cli('--json', 'key', 'create', '--workspace', real)).stdout) as {
      id: string;
      key: string;
    };
    expect(live.key).toMatch(/^bh_live_/);
    const refused = await cli('demo', '--out', '/nonexistent/sandbox.json');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/not the sandbox's \(\d+ workspaces, 1 live API key\)/);
    expect((await cli('key', 'revoke', live.id)).code).toBe(0);
    const after = await cli('demo', '--out', '/nonexistent/sandbox.json');
    expect(after.stderr).toMatch(/not the sandbox's \(\d+ workspaces\)/);
  });
});

describe('brandhealth commands', () => {
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
    const out = path.join(os.tmpdir(), `bh-never-${process.pid}.json`);
    const refused = await cli('demo', '--out', out);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /^brandhealth: this database holds data that is not the sandbox's \(\d+ workspaces/,
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
  it('moves a workspace to another plan; an unknown workspace or plan is refused in one line', async () => {
    const id = JSON.parse(
      (await cli('--json', 'workspace', 'create', '--name', 'Upgraded', '--plan', 'free')).stdout,
    ).id as string;
    const moved = await cli('--json', 'workspace', 'set-plan', id, '--plan', 'pro');
    expect(moved.code).toBe(0);
    expect(JSON.parse(moved.stdout)).toEqual({ id, plan: 'pro' });
    const row = await t.db
      .selectFrom('workspaces')
      .select('plan')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row.plan).toBe('pro');
    const unknown = await cli('workspace', 'set-plan', 'ws_nope', '--plan', 'pro');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe('brandhealth: workspace ws_nope does not exist\n');
    const badPlan = await cli('workspace', 'set-plan', id, '--plan', 'gold');
    expect(badPlan.code).toBe(2);
    expect(badPlan.stderr).not.toMatch(/\n\s+at /);
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
});
