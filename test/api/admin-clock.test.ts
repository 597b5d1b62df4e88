import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSubscriber } from '../../src/admin/tacsi.ts';
import { runCli } from '../../src/cli/program.ts';
import { startTestService, workspaceWithKey, type TestService } from '../helpers/service.ts';

/**
 * The admin commands date what they do by the service's clock (ctx.now()), like every domain path:
 * with the clock moved to another day, revocations, disconnections, sector moves and the default
 * start of an entitlement carry that day, not the machine's or the database server's.
 */
const CLOCK = new Date('2025-02-10T09:30:00.000Z');
const CLOCK_DAY = '2025-02-10';

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
  t.setNow(CLOCK);
});
afterAll(() => t?.close());

async function cli(...argv: string[]) {
  let out = '';
  let err = '';
  const code = await runCli(argv, { out: (s) => (out += s), err: (s) => (err += s) }, (fn) => fn(t.ctx));
  expect(err).toBe('');
  expect(code).toBe(0);
  return out;
}

describe('admin commands on the service clock', () => {
  it('key revoke records the revocation at the service clock', async () => {
    const { workspace, keyId } = await workspaceWithKey(t.db, { plan: 'pro' });
    await cli('key', 'revoke', keyId);
    const listed = JSON.parse(await cli('--json', 'key', 'list', '--workspace', workspace.id)) as Array<{
      id: string;
      revoked_at: string | null;
    }>;
    expect(listed.find((k) => k.id === keyId)?.revoked_at).toBe(CLOCK.toISOString());
  });

  it('platform disconnect records the disconnection at the service clock', async () => {
    const { workspace, key } = await workspaceWithKey(
      t.db,
      { plan: 'pro' },
      { platforms: [{ platform: 'youtube' }] },
    );
    await cli('platform', 'disconnect', '--workspace', workspace.id, '--platform', 'youtube');
    const res = await t.request({ method: 'GET', url: '/v1/platforms', key });
    expect(res.statusCode).toBe(200);
    const youtube = (res.json().platforms as Array<{ name: string; disconnected_at?: string | null }>).find(
      (p) => p.name === 'youtube',
    );
    expect(youtube?.disconnected_at).toBe(CLOCK.toISOString());
  });

  it('workspace set-sector without --from moves the workspace from the service clock’s day', async () => {
    await t.db
      .insertInto('sectors')
      .values([
        { slug: 'clock-north', name: 'North', is_consumer: true },
        { slug: 'clock-south', name: 'South', is_consumer: true },
      ])
      .execute();
    const { workspace } = await workspaceWithKey(t.db, { plan: 'pro', sector: 'clock-north' });
    await cli('workspace', 'set-sector', workspace.id, '--sector', 'clock-south');
    const history = await t.db
      .selectFrom('workspace_sector_history')
      .select(['sector_slug', 'valid_until'])
      .select((eb) => eb.cast<string>('valid_from', 'text').as('valid_from'))
      .where('workspace_id', '=', workspace.id)
      .orderBy('valid_from')
      .execute();
    expect(history).toEqual([
      { sector_slug: 'clock-north', valid_from: '-infinity', valid_until: CLOCK_DAY },
      { sector_slug: 'clock-south', valid_from: CLOCK_DAY, valid_until: null },
    ]);
  });

  it('entitlement grant without --valid-from starts on the service clock’s day; revoke is dated by it', async () => {
    const subscriber = await createSubscriber(t.db, 'Clock Capital');
    const granted = JSON.parse(
      await cli('--json', 'entitlement', 'grant', '--subscriber', subscriber, '--kind', 'full_database'),
    ) as { id: string };
    await cli('entitlement', 'revoke', granted.id);
    const row = await t.db
      .selectFrom('tacsi_entitlements')
      .select(['revoked_at'])
      .select((eb) => eb.cast<string>('valid_from', 'text').as('valid_from'))
      .where('id', '=', granted.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ valid_from: CLOCK_DAY, revoked_at: CLOCK });
  });
});
