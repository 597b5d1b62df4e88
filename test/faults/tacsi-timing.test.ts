import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/admin/keys.ts';
import { createSubscriber, grantEntitlement } from '../../src/admin/tacsi.ts';
import { createSector } from '../../src/admin/workspaces.ts';
import { startTestService, workspaceWithKey, type TestService } from '../helpers/service.ts';
import { usingPostgres } from '../helpers/database.ts';

// The uniform denial must not be told apart by its timing either: every denial reason loads the
// same access rows (one query, or the per-subscriber cache) and runs the same in-memory evaluation. Requests are interleaved round-robin so drift in
// the machine's speed hits every reason alike, and medians are compared (robust to GC pauses).
const ROUNDS = 200;
const WARMUP = 20;

interface Setup {
  t: TestService;
  cases: Array<{ reason: string; key: string; url: string }>;
}

async function setUp(kind: 'pglite' | 'postgres', authCacheTtlMs: number): Promise<Setup> {
  const t = await startTestService({ authCacheTtlMs, ...(kind === 'pglite' ? { databaseUrl: null } : {}) });
  const cases: Setup['cases'] = [];
  for (const slug of ['alpha-goods', 'beta-foods', 'locked-sector', 'other-one', 'other-two']) {
    await createSector(t.db, slug, slug);
  }
  const holder = await createSubscriber(t.db, 'Exclusive holder');
  await grantEntitlement(t.db, {
    subscriberId: holder,
    kind: 'sector_feed',
    sector: 'locked-sector',
    exclusive: true,
  });
  const subscriber = await createSubscriber(t.db, 'Caller');
  await grantEntitlement(t.db, { subscriberId: subscriber, kind: 'sector_feed', sector: 'alpha-goods' });
  await grantEntitlement(t.db, { subscriberId: subscriber, kind: 'sector_feed', sector: 'locked-sector' });
  await grantEntitlement(t.db, {
    subscriberId: subscriber,
    kind: 'pillar_feed',
    sector: 'beta-foods',
    pillar: 'reach',
  });
  // One key per reason: each stays under the per-key rate limit.
  const key = async () => (await createApiKey(t.db, { subscriberId: subscriber }, { scopes: ['read'] })).key;
  cases.push(
    { reason: 'unknown sector', key: await key(), url: '/v1/tacsi/weekly?sector=zz-not-a-sector' },
    { reason: 'unlicensed sector', key: await key(), url: '/v1/tacsi/weekly?sector=beta-foods' },
    { reason: 'missing add-on', key: await key(), url: '/v1/tacsi/daily?sector=alpha-goods' },
    { reason: 'exclusivity lockout', key: await key(), url: '/v1/tacsi/weekly?sector=locked-sector' },
    { reason: 'unknown pillar', key: await key(), url: '/v1/tacsi/pillars?sector=beta-foods&pillar=zzz' },
    {
      reason: 'workspace key',
      key: (await workspaceWithKey(t.db, { plan: 'agency' })).key,
      url: '/v1/tacsi/weekly?sector=alpha-goods',
    },
  );
  return { t, cases };
}

// The database path (TTL 0, as in every other test) and the production path, where the caller's
// access rows come from memory: the cache is keyed by subscriber, so every reason hits it alike.
// Moved from the main suite: timing comparisons need the machine to themselves (faults run one file at
// a time). On PostgreSQL runs, the embedded path is measured too.
const kinds = usingPostgres() ? (['postgres', 'pglite'] as const) : (['pglite'] as const);

describe.each(kinds)('TACSI denial timing on %s', (kind) => {
  const setups = new Map<number, Setup>();
  beforeAll(async () => {
    for (const ttl of [0, 60_000]) setups.set(ttl, await setUp(kind, ttl));
  });
  afterAll(async () => {
    for (const { t } of setups.values()) await t.close();
  });

  const median = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return (s[(s.length - 1) >> 1]! + s[s.length >> 1]!) / 2;
  };

  it.each([0, 60_000])('takes the same time whatever the reason (access cache TTL %i ms)', async (ttl) => {
    const { t, cases } = setups.get(ttl)!;
    const samples = new Map<string, number[]>(cases.map((c) => [c.reason, []]));
    for (let round = 0; round < ROUNDS + WARMUP; round++) {
      // A fresh order each round, so no reason always runs right after another (caches, GC).
      const order = [...cases].sort(() => Math.random() - 0.5);
      for (const c of order) {
        const start = process.hrtime.bigint();
        const res = await t.request({ method: 'GET', url: c.url, key: c.key });
        const micros = Number(process.hrtime.bigint() - start) / 1000;
        expect(res.statusCode).toBe(403);
        if (round >= WARMUP) samples.get(c.reason)!.push(micros);
      }
    }
    const medians = Object.fromEntries([...samples].map(([reason, xs]) => [reason, Math.round(median(xs))]));
    const all = median([...samples.values()].flat());
    // Within 20% (or 150 microseconds) of the common median: an early return that skipped the access
    // query would save a full database round trip, far more than that.
    const tolerance = Math.max(0.2 * all, 150);
    const outliers = Object.entries(medians).filter(([, m]) => Math.abs(m - all) > tolerance);
    expect(outliers, JSON.stringify({ all, medians })).toEqual([]);
  });
});
