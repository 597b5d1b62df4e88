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

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(
    argv,
    { out: (text) => void (out += text), err: (text) => void (err += text) },
    (fn) => fn(t.ctx),
  );
  return { code, out, err };
}

describe('brandhealth workspace list', () => {
  it('prints a page, names the next one on stderr, and walks every workspace once', async () => {
    const all = JSON.parse((await cli('--json', 'workspace', 'list', '--all')).out) as { id: string }[];
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
      const rows = JSON.parse(page.out) as { id: string }[];
      expect(rows.length).toBeLessThanOrEqual(2);
      seen.push(...rows.map((r) => r.id));
      if (page.err === '') break;
      expect(page.err).toBe(`more workspaces follow: --after ${rows.at(-1)!.id} (or --all)\n`);
      after = rows.at(-1)!.id;
    }
    expect(seen).toEqual(all.map((w) => w.id));
  });

  it('refuses a page size out of range and an unknown cursor', async () => {
    for (const limit of ['0', '1001', '2.5', 'ten']) {
      const res = await cli('workspace', 'list', '--limit', limit);
      expect(res.code, limit).toBe(2);
      expect(res.err, limit).toContain('must be an integer from 1 to 1000');
    }
    expect(await cli('workspace', 'list', '--after', 'ws_missing')).toEqual({
      code: 1,
      out: '',
      err: 'brandhealth: workspace ws_missing (--after) does not exist\n',
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
    const minted = JSON.parse((await cli('--json', 'key', 'create', '--workspace', sandboxWs)).out) as {
      id: string;
      key: string;
    };
    expect(minted.key).toMatch(/^bh_test_/);
    const me = await t.request({ method: 'GET', url: '/v1/workspace', key: minted.key });
    expect(me.statusCode, me.body).toBe(200);

    // This database also holds real workspaces (created above): `demo` names them, and only them.
    const real = (await createWorkspace(t.db, { name: 'Real brand', plan: 'pro' })).id;
    const live = JSON.parse((await cli('--json', 'key', 'create', '--workspace', real)).out) as {
      id: string;
      key: string;
    };
    expect(live.key).toMatch(/^bh_live_/);
    const refused = await cli('demo', '--out', '/nonexistent/sandbox.json');
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/not the sandbox's \(\d+ workspaces, 1 live API key\)/);
    expect((await cli('key', 'revoke', live.id)).code).toBe(0);
    const after = await cli('demo', '--out', '/nonexistent/sandbox.json');
    expect(after.err).toMatch(/not the sandbox's \(\d+ workspaces\)/);
  });
});
