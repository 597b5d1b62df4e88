// The release calendar and methodology notices: the next publication instants of each feed a key may
// read (from the job schedules), the lag policy, and notices announced ahead of their effective date;
// the same check and uniform denial as every TACSI feed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/admin/keys.ts';
import { createSubscriber, grantEntitlement } from '../../src/admin/tacsi.ts';
import { createSector } from '../../src/admin/workspaces.ts';
import { runCli } from '../../src/cli/program.ts';
import { startTestService, workspaceWithKey, type TestService } from '../helpers/service.ts';

let t: TestService;
const keys = {} as Record<'daily' | 'full' | 'none' | 'workspace', string>;
const NOW = new Date('2025-01-22T10:00:00Z'); // a Wednesday

beforeAll(async () => {
  t = await startTestService({ tacsiM2From: '2025-01-06' });
  t.setNow(NOW);
  await createSector(t.db, 'retail', 'Retail');
  await createSector(t.db, 'travel', 'Travel');
  const daily = await createSubscriber(t.db, 'Daily reader');
  for (const kind of ['sector_feed', 'daily_addon'] as const)
    await grantEntitlement(t.db, { subscriberId: daily, kind, sector: 'retail', validFrom: '2020-01-01' });
  await grantEntitlement(t.db, {
    subscriberId: daily,
    kind: 'sector_feed',
    sector: 'travel',
    validFrom: '2020-01-01',
  });
  keys.daily = (await createApiKey(t.db, { subscriberId: daily }, { scopes: ['read'] })).key;
  const full = await createSubscriber(t.db, 'Full');
  await grantEntitlement(t.db, { subscriberId: full, kind: 'full_database', validFrom: '2020-01-01' });
  keys.full = (await createApiKey(t.db, { subscriberId: full }, { scopes: ['read'] })).key;
  const none = await createSubscriber(t.db, 'Nothing');
  keys.none = (await createApiKey(t.db, { subscriberId: none }, { scopes: ['read'] })).key;
  keys.workspace = (await workspaceWithKey(t.db, { plan: 'pro' })).key;
}, 120_000);
afterAll(async () => t?.close());

const get = (url: string, key: string) => t.request({ method: 'GET', url, key });

async function cli(argv: string[]): Promise<{ code: number; err: string }> {
  let err = '';
  const code = await runCli(argv, { out: () => {}, err: (s) => (err += s) }, (fn) => fn(t.ctx));
  return { code, err };
}

describe('GET /v1/tacsi/calendar', () => {
  it('gives each licensed feed its next publication instant and period, and the lag policy', async () => {
    const res = await get('/v1/tacsi/calendar', keys.daily);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    const daily = { nextPublication: '2025-01-23T03:00:00.000Z', periodEnd: '2025-01-22' };
    const weekly = { nextPublication: '2025-01-27T03:30:00.000Z', periodEnd: '2025-01-26' };
    expect(body.sectors).toEqual([
      {
        slug: 'retail',
        feeds: [
          { feed: 'weekly', ...weekly },
          { feed: 'history', ...weekly },
          { feed: 'pillars', ...weekly },
          { feed: 'daily', ...daily },
        ],
      },
      {
        slug: 'travel',
        feeds: [
          { feed: 'weekly', ...weekly },
          { feed: 'history', ...weekly },
          { feed: 'pillars', ...weekly },
        ],
      },
    ]);
    expect(body.lagPolicy.daily).toContain('03:00 UTC');
    // Just before a run, that run is next; at the run instant, the following one.
    t.setNow(new Date('2025-01-27T03:29:59Z'));
    expect((await get('/v1/tacsi/calendar', keys.daily)).json().sectors[1].feeds[0].nextPublication).toBe(
      '2025-01-27T03:30:00.000Z',
    );
    t.setNow(new Date('2025-01-27T03:30:00Z'));
    expect((await get('/v1/tacsi/calendar', keys.daily)).json().sectors[1].feeds[0]).toEqual({
      feed: 'weekly',
      nextPublication: '2025-02-03T03:30:00.000Z',
      periodEnd: '2025-02-02',
    });
    t.setNow(NOW);
  });

  it('offers the headline weekly only (no daily headline), and denies as every feed does', async () => {
    const headline = (await get('/v1/tacsi/calendar', keys.full)).json().sectors[0];
    expect(headline.slug).toBe('headline');
    expect(headline.feeds.map((f: { feed: string }) => f.feed)).toEqual(['weekly', 'history', 'pillars']);
    expect((await get('/v1/tacsi/calendar', keys.none)).json().sectors).toEqual([]);
    const denied = await get('/v1/tacsi/calendar', keys.workspace);
    const feedDenied = await get('/v1/tacsi/weekly?sector=retail', keys.workspace);
    expect(denied.statusCode).toBe(403);
    const { request_id: _a, instance: _b, ...shape } = denied.json();
    const { request_id: _c, instance: _d, ...feedShape } = feedDenied.json();
    expect(shape).toEqual(feedShape);
  });
});

describe('methodology notices', () => {
  it('are announced only ahead of their effective day, listed, and the upcoming ones are in the methodology', async () => {
    const today = await cli([
      'tacsi',
      'notice',
      '--effective',
      '2025-01-22',
      '--title',
      'x',
      '--detail',
      'y',
    ]);
    expect(today.code).toBe(1);
    expect(today.err).toContain('must take effect after the day it is announced');
    const ok = await cli([
      'tacsi',
      'notice',
      '--effective',
      '2025-03-03',
      '--title',
      'Histogram bins change',
      '--detail',
      'From the week ending 2025-03-09 the peer distribution has 12 bins.',
      '--methodology',
      'tacsi-m2',
    ]);
    expect(ok.code).toBe(0);
    const listed = (await get('/v1/tacsi/notices', keys.none)).json().notices;
    expect(listed).toEqual([
      {
        id: expect.stringMatching(/^ntc_/),
        title: 'Histogram bins change',
        detail: 'From the week ending 2025-03-09 the peer distribution has 12 bins.',
        methodologyVersion: 'tacsi-m2',
        announcedAt: NOW.toISOString(),
        effectiveOn: '2025-03-03',
      },
    ]);
    expect((await get('/v1/tacsi/methodology', keys.none)).json().notices).toEqual(listed);
    // Once in effect it leaves the methodology's upcoming notices but stays listed.
    t.setNow(new Date('2025-03-03T00:00:00Z'));
    expect((await get('/v1/tacsi/methodology', keys.none)).json().notices).toEqual([]);
    expect((await get('/v1/tacsi/notices', keys.none)).json().notices).toEqual(listed);
    t.setNow(NOW);
    expect((await get('/v1/tacsi/notices', keys.workspace)).statusCode).toBe(403);
  });
});
