import type { LightMyRequestResponse } from 'fastify';
import { Value } from 'typebox/value';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/admin/keys.ts';
import { createSubscriber, grantEntitlement, revokeEntitlement } from '../../src/admin/tacsi.ts';
import { createSector } from '../../src/admin/workspaces.ts';
import { AccessCache, isLicensed } from '../../src/tacsi/entitlements.ts';
import { backfill, publishCells } from '../../src/tacsi/publish.ts';
import * as S from '../../src/tacsi/schemas.ts';
import { expectProblem, startTestService, workspaceWithKey, type TestService } from '../helpers/service.ts';
import { insertSyntheticWeeklyCells, seedTacsiFixture } from './tacsi-fixture.ts';
import { addDays } from '../../src/core/days.ts';

const TODAY = '2025-03-17';
const SECTORS = [
  { slug: 'alpha-goods', brands: 60, level: 40 },
  { slug: 'beta-foods', brands: 110, level: 60 },
  { slug: 'gamma', brands: 55, level: 50 },
  { slug: 'tiny-sector', brands: 20, level: 70 },
  { slug: 'b2b-tools', brands: 55, level: 30, consumer: false },
];
const ARCHIVE = 'archive-sector';
const ARCHIVE_WEEKS = 320;
const FEEDS = ['weekly', 'history', 'pillars', 'daily'] as const;
type Feed = (typeof FEEDS)[number];
const REQUEST_SECTORS = [
  'alpha-goods',
  'beta-foods',
  'gamma',
  'tiny-sector',
  ARCHIVE,
  'headline',
  'zz-unknown',
  'b2b-tools',
];
const REQUEST_PILLARS = ['sentiment', 'reach', 'zzz'];

let t: TestService;
const keys: Record<string, string> = {};
/** Every TACSI response body this file received, for the privacy scan. */
const bodies: string[] = [];

async function get(url: string, key: string | undefined, headers: Record<string, string> = {}) {
  const res = await t.request({ method: 'GET', url, key, headers });
  bodies.push(res.body);
  return res;
}

function url(feed: Feed, sector: string, pillar?: string): string {
  return `/v1/tacsi/${feed}?sector=${sector}${pillar ? `&pillar=${pillar}` : ''}`;
}

beforeAll(async () => {
  t = await startTestService();
  t.setNow(new Date(`${TODAY}T06:00:00Z`));
  await seedTacsiFixture(t.db, SECTORS, '2025-02-17', '2025-03-16');
  await backfill(t.ctx, { weeks: 4, days: 14 });
  await createSector(t.db, ARCHIVE, 'Archive sector');
  await insertSyntheticWeeklyCells(t.db, ARCHIVE, '2025-03-16', ARCHIVE_WEEKS);

  const holders: Array<
    [
      string,
      Array<
        Parameters<typeof grantEntitlement>[1] extends infer G ? Omit<G & object, 'subscriberId'> : never
      >,
    ]
  > = [
    ['sectorAlpha', [{ kind: 'sector_feed', sector: 'alpha-goods' }]],
    [
      'dailyBeta',
      [
        { kind: 'sector_feed', sector: 'beta-foods' },
        { kind: 'daily_addon', sector: 'beta-foods' },
      ],
    ],
    ['pillarAlpha', [{ kind: 'pillar_feed', sector: 'alpha-goods', pillar: 'sentiment' }]],
    ['full', [{ kind: 'full_database' }]],
    ['exclusiveGamma', [{ kind: 'sector_feed', sector: 'gamma', exclusive: true }]],
    [
      'lockedGamma',
      [
        { kind: 'sector_feed', sector: 'gamma' },
        { kind: 'daily_addon', sector: 'gamma' },
      ],
    ],
    ['addonOnly', [{ kind: 'daily_addon', sector: 'alpha-goods' }]],
    [
      'expired',
      [
        {
          kind: 'sector_feed',
          sector: 'alpha-goods',
          validFrom: '2024-01-01',
          validUntil: addDays(TODAY, -1),
        },
      ],
    ],
    ['future', [{ kind: 'sector_feed', sector: 'alpha-goods', validFrom: addDays(TODAY, 1) }]],
    ['revoked', [{ kind: 'sector_feed', sector: 'alpha-goods' }]],
    ['noRead', [{ kind: 'sector_feed', sector: 'alpha-goods' }]],
  ];
  for (const [name, grants] of holders) {
    const subscriberId = await createSubscriber(t.db, `Subscriber ${name}`);
    for (const g of grants) {
      const id = await grantEntitlement(t.db, { validFrom: '2024-01-01', ...g, subscriberId });
      if (name === 'revoked') await revokeEntitlement(t.db, id, t.ctx.now());
    }
    keys[name] = (
      await createApiKey(t.db, { subscriberId }, { scopes: name === 'noRead' ? ['write'] : ['read'] })
    ).key;
  }
  keys.workspace = (await workspaceWithKey(t.db, { plan: 'agency' })).key;
});
afterAll(async () => t?.close());

/**
 * What each key may read, written out from the spec (Authentication 4-6) rather than derived from the
 * code: feed:sector for sector-level feeds, pillars:sector:pillar for the pillar feed.
 */
function allowed(key: string, feed: Feed, sector: string, pillar?: string): boolean {
  const known = ['alpha-goods', 'beta-foods', 'gamma', 'tiny-sector', ARCHIVE, 'headline'].includes(sector);
  const realPillar = pillar === 'sentiment' || pillar === 'reach';
  switch (key) {
    case 'sectorAlpha':
      return (
        sector === 'alpha-goods' &&
        (feed === 'weekly' || feed === 'history' || (feed === 'pillars' && realPillar))
      );
    case 'dailyBeta':
      return sector === 'beta-foods' && (feed !== 'pillars' || realPillar);
    case 'pillarAlpha':
      return feed === 'pillars' && sector === 'alpha-goods' && pillar === 'sentiment';
    case 'full':
      // Everything known, including the headline, except the sector another subscriber holds exclusively.
      return known && sector !== 'gamma' && (feed !== 'pillars' || realPillar);
    case 'exclusiveGamma':
      return (
        sector === 'gamma' && (feed === 'weekly' || feed === 'history' || (feed === 'pillars' && realPillar))
      );
    default:
      // lockedGamma, addonOnly, expired, future, revoked, noRead, workspace
      return false;
  }
}

function publishedFor(feed: Feed, sector: string): boolean {
  if (sector === 'tiny-sector') return feed === 'history'; // history answers 200 with no rows
  // This archive is tacsi-m1 only, and the tacsi-m1 headline is withdrawn (docs/privacy.md section 10).
  if (sector === 'headline') return feed === 'history';
  if (sector === ARCHIVE) return feed !== 'daily';
  return true;
}

const withoutRequestId = (res: LightMyRequestResponse) => {
  const { request_id: _ignored, ...rest } = res.json();
  return JSON.stringify(rest);
};
// Rate-limit headers carry the caller's own remaining budget; everything else must be identical.
const PER_REQUEST_HEADERS = new Set(['x-request-id', 'ratelimit', 'ratelimit-policy', 'date']);
const headerShape = (res: LightMyRequestResponse) =>
  JSON.stringify(
    Object.keys(res.headers)
      .sort()
      .map((h) => [h, PER_REQUEST_HEADERS.has(h) ? '*' : res.headers[h]]),
  );

describe('TACSI entitlements', () => {
  it('answers the whole key x feed x sector x pillar matrix, with one uniform denial per feed', async () => {
    const denials = new Map<Feed, LightMyRequestResponse[]>();
    const mismatches: string[] = [];
    for (const key of Object.keys(keys)) {
      for (const feed of FEEDS) {
        for (const sector of REQUEST_SECTORS) {
          for (const pillar of feed === 'pillars' ? REQUEST_PILLARS : [undefined]) {
            const res = await get(url(feed, sector, pillar), keys[key]);
            const label = `${key} ${feed} ${sector} ${pillar ?? ''}`;
            if (!allowed(key, feed, sector, pillar)) {
              if (res.statusCode !== 403) mismatches.push(`${label}: ${res.statusCode}, expected 403`);
              else denials.set(feed, [...(denials.get(feed) ?? []), res]);
            } else if (publishedFor(feed, sector)) {
              if (res.statusCode !== 200) mismatches.push(`${label}: ${res.statusCode} ${res.body}`);
            } else if (res.statusCode !== 404 || res.json().title !== 'Not Published') {
              mismatches.push(`${label}: ${res.statusCode}, expected 404 Not Published`);
            }
          }
        }
      }
    }
    expect(mismatches).toEqual([]);
    const shapes = new Set<string>();
    for (const [feed, list] of denials) {
      expect(list.length).toBeGreaterThan(40);
      expectProblem(list[0]!, 403, 'Not Licensed');
      expect(new Set(list.map(withoutRequestId)).size, feed).toBe(1);
      expect(new Set(list.map(headerShape)).size, feed).toBe(1);
      const { instance, ...rest } = JSON.parse(withoutRequestId(list[0]!));
      expect(instance).toBe(`/v1/tacsi/${feed}`);
      shapes.add(JSON.stringify(rest));
      expect(list[0]!.body).not.toMatch(/alpha|beta|gamma|tiny|archive|headline|zz-unknown|sentiment|zzz/);
    }
    // Apart from the path in `instance`, every feed's denial is the same too.
    expect(shapes.size).toBe(1);
  });

  it('validates parameter shape first (400), but a well-formed unknown sector or pillar is the denial', async () => {
    for (const bad of ['Alpha', 'alpha_goods', '-alpha', 'a--b', 'x'.repeat(65)]) {
      expectProblem(await get(url('weekly', bad), keys.full), 400, 'Invalid Parameter');
    }
    expectProblem(await get('/v1/tacsi/weekly', keys.full), 400);
    expectProblem(await get(url('pillars', 'alpha-goods', 'Reach'), keys.full), 400);
    expectProblem(await get(url('pillars', 'alpha-goods', 're4ch'), keys.full), 400);
    expectProblem(await get(url('pillars', 'alpha-goods', 'influence'), keys.full), 403, 'Not Licensed');
    expectProblem(await get(url('weekly', 'no-such-sector'), keys.full), 403, 'Not Licensed');
    expectProblem(await get('/v1/tacsi/weekly?sector=alpha-goods&extra=1', keys.sectorAlpha), 400);
    expectProblem(await get(url('weekly', 'alpha-goods'), undefined), 401, 'Unauthorized');
  });

  it('the methodology endpoint answers any subscriber key, and denies workspace keys', async () => {
    const res = await get('/v1/tacsi/methodology', keys.addonOnly);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(Value.Check(S.MethodologyFeed, body)).toBe(true);
    // New periods are tacsi-m2 from the cut-over day (TACSI_M2_FROM) on, by the service's clock.
    const cut = t.ctx.config.tacsiM2From;
    expect(TODAY < cut).toBe(true);
    expect(body.current).toBe('tacsi-m1');
    t.setNow(new Date(`${cut}T00:00:00Z`));
    try {
      const after = await get('/v1/tacsi/methodology', keys.addonOnly);
      expect(after.json().current).toBe('tacsi-m2');
    } finally {
      t.setNow(new Date(`${TODAY}T06:00:00Z`));
    }
    expect(body.cutOver).toEqual({ version: 'tacsi-m2', periodsEndingOnOrAfter: t.ctx.config.tacsiM2From });
    expect(body.methodologies.map((m: { version: string }) => m.version)).toEqual(['tacsi-m1', 'tacsi-m2']);
    // Each methodology names the score formula it averages: the series break is the methodology break.
    expect(body.methodologies.map((m: { formulaVersion: string }) => m.formulaVersion)).toEqual(['v1', 'v2']);
    expect(body.methodologies[1]).toMatchObject({
      mechanism: 'discrete-gaussian',
      accounting: 'zCDP',
      annualRhoCap: 5,
      dailyMinCohort: 250,
      rhoPerRelease: { weeklyDerived: 0, headline: 0, benchmark: 0 },
    });
    // The published margin table meets the accuracy targets: 6.0 at every band >= 100, 2.5 for
    // weekly cells derived from daily ones.
    for (const row of body.methodologies[1].margins95) {
      if (row.bandFloor >= 100) expect(row.indexValue).toBeLessThanOrEqual(6);
      if (row.cadence === 'weekly-derived') expect(row.indexValue).toBeLessThanOrEqual(2.5);
    }
    expect(body.methodologies[1].budgetSplit.scheduleTotal).toBeLessThanOrEqual(5);
    expect(body.methodologies[0]).toMatchObject({
      version: 'tacsi-m1',
      epsilonPerStatistic: 1,
      epsilonPerCell: 6,
      noiseScale: 2,
      ci95HalfWidth: 5.99,
      minCohort: 50,
      annualCapPerEntity: 5016,
      cohortBands: ['n >= 50', 'n >= 100', 'n >= 250', 'n >= 500', 'n >= 1000'],
    });
    expectProblem(await get('/v1/tacsi/methodology', keys.workspace), 403, 'Not Licensed');
  });
});

describe('TACSI access cache', () => {
  const FROM = '2025-01-01';
  it("keeps a subscriber's rows for the TTL, per subscriber, with scopes and dates read per request", async () => {
    const slug = 'cache-sector';
    await createSector(t.db, slug, 'Cache sector');
    const subscriberId = await createSubscriber(t.db, 'Cache subscriber');
    const other = await createSubscriber(t.db, 'Cache other');
    const grant = await grantEntitlement(t.db, {
      subscriberId,
      kind: 'sector_feed',
      sector: slug,
      validFrom: FROM,
      validUntil: TODAY,
    });
    let clock = 0;
    const cache = new AccessCache(t.db, 5_000, () => clock);
    const principal = (id: string, scopes: Array<'read' | 'write'> = ['read']) => ({
      kind: 'subscriber' as const,
      keyId: `key-${id}`,
      scopes,
      subscriberId: id,
      expiresAt: null,
    });
    const licensed = async (id: string, today = TODAY, scopes?: Array<'read' | 'write'>) =>
      isLicensed(await cache.load(principal(id, scopes), today), { feed: 'weekly', sector: slug });

    expect(await licensed(subscriberId)).toBe(true);
    // The key's scopes and today's date are not part of the cached rows.
    expect(await licensed(subscriberId, TODAY, ['write'])).toBe(false);
    expect(await licensed(subscriberId, addDays(TODAY, 1))).toBe(false);

    // Revocation and a rival's exclusive lock wait for the TTL; another subscriber loads its own rows.
    await revokeEntitlement(t.db, grant, t.ctx.now());
    await grantEntitlement(t.db, {
      subscriberId: other,
      kind: 'sector_feed',
      sector: slug,
      exclusive: true,
      validFrom: FROM,
    });
    clock = 4_999;
    expect(await licensed(subscriberId)).toBe(true);
    expect(await licensed(other)).toBe(true);
    clock = 5_000;
    expect(await licensed(subscriberId)).toBe(false);

    // A new grant is seen after the TTL too (and the rival's lock now denies it: exclusivity).
    await grantEntitlement(t.db, { subscriberId, kind: 'full_database', validFrom: FROM });
    expect(await licensed(subscriberId)).toBe(false);
    expect(
      isLicensed(await cache.load(principal(subscriberId), TODAY), { feed: 'weekly', sector: 'headline' }),
    ).toBe(false);
    clock = 10_000;
    expect(
      isLicensed(await cache.load(principal(subscriberId), TODAY), { feed: 'weekly', sector: 'headline' }),
    ).toBe(true);
    expect(await licensed(subscriberId)).toBe(false);
  });

  it('with a TTL of 0 every check reads the database', async () => {
    const subscriberId = await createSubscriber(t.db, 'Uncached subscriber');
    const cache = new AccessCache(t.db, 0, () => 0);
    const p = {
      kind: 'subscriber' as const,
      keyId: 'k',
      scopes: ['read' as const],
      subscriberId,
      expiresAt: null,
    };
    const request = { feed: 'weekly' as const, sector: 'headline' };
    expect(isLicensed(await cache.load(p, TODAY), request)).toBe(false);
    await grantEntitlement(t.db, { subscriberId, kind: 'full_database', validFrom: FROM });
    expect(isLicensed(await cache.load(p, TODAY), request)).toBe(true);
  });

  it('concurrent misses for one subscriber share one query', async () => {
    let queries = 0;
    const counting = t.db.withPlugin({
      transformQuery: (args) => args.node,
      transformResult: async (args) => {
        queries += 1;
        return args.result;
      },
    });
    const subscriberId = await createSubscriber(t.db, 'Concurrent subscriber');
    const cache = new AccessCache(counting, 60_000, () => 0);
    const p = {
      kind: 'subscriber' as const,
      keyId: 'k',
      scopes: ['read' as const],
      subscriberId,
      expiresAt: null,
    };
    await Promise.all(Array.from({ length: 10 }, () => cache.load(p, TODAY)));
    await cache.load(p, TODAY);
    expect(queries).toBe(1);
  });
});

describe('TACSI feeds', () => {
  it('weekly: the latest cell, 12 trailing weeks newest first, and a pending forward signal', async () => {
    const res = await get(url('weekly', 'beta-foods'), keys.dailyBeta);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(Value.Check(S.WeeklyFeed, body)).toBe(true);
    expect(Object.keys(body)).toEqual([
      'sector',
      'periodEnd',
      'indexValue',
      'delta',
      'pillars',
      'cohortBand',
      'methodologyVersion',
      'marginOfError',
      'publishedAt',
      'vintage',
      'forwardSignal',
      'history',
    ]);
    expect(body).toMatchObject({
      sector: 'beta-foods',
      periodEnd: '2025-03-16',
      cohortBand: 'n >= 100',
      methodologyVersion: 'tacsi-m1',
      marginOfError: { indexValue: 5.99, pillars: 5.99 },
    });
    expect(Object.keys(body.pillars)).toEqual(['impact', 'momentum', 'presence', 'reach', 'sentiment']);
    expect(body.history.map((c: { periodEnd: string }) => c.periodEnd)).toEqual([
      '2025-03-09',
      '2025-03-02',
      '2025-02-23',
    ]);
    expect(body.history[0].sector).toBeUndefined();
    expect(body.forwardSignal).toEqual({ status: 'pending_archive_depth', note: expect.any(String) });
    // Delta is the difference of consecutive published values; the first week has none.
    const series = [body, ...body.history];
    for (let i = 0; i < series.length - 1; i++) {
      expect(series[i].delta).toBeCloseTo(series[i].indexValue - series[i + 1].indexValue, 9);
    }
    expect(series.at(-1).delta).toBeNull();
  });

  it('weekly: a deep archive gets a projection from published values, and history is capped at 12', async () => {
    const body = (await get(url('weekly', ARCHIVE), keys.full)).json();
    expect(body.history).toHaveLength(12);
    expect(body.history[11].periodEnd).toBe(addDays('2025-03-16', -7 * 12));
    const signal = body.forwardSignal;
    expect(signal).toMatchObject({
      status: 'available',
      method: 'simple-exponential-smoothing',
      horizon: 'P1W',
      projectedPeriodEnd: '2025-03-23',
    });
    // The synthetic archive oscillates between 45 and 55; the projection stays in that band and the
    // interval is at least as wide as the publication noise alone (sd 2.83, so +/- 1.96 sd > 5.5).
    expect(signal.projectedIndexValue).toBeGreaterThan(44);
    expect(signal.projectedIndexValue).toBeLessThan(56);
    expect(signal.interval.low).toBeLessThan(signal.projectedIndexValue);
    expect(signal.interval.high).toBeGreaterThan(signal.projectedIndexValue);
    expect(signal.interval.high - signal.interval.low).toBeGreaterThan(11);
  });

  it('history: newest first, 260 per page, and walking the cursor returns every week exactly once', async () => {
    const seen: string[] = [];
    let before: string | null = null;
    let pages = 0;
    do {
      const res = await get(`${url('history', ARCHIVE)}${before ? `&before=${before}` : ''}`, keys.full);
      expect(res.statusCode).toBe(200);
      const page = res.json();
      expect(Value.Check(S.HistoryFeed, page)).toBe(true);
      expect(page.pageMax).toBe(260);
      expect(page.count).toBe(page.rows.length);
      expect(page.rows.length).toBeLessThanOrEqual(260);
      const ends = page.rows.map((r: { periodEnd: string }) => r.periodEnd);
      expect([...ends].sort().reverse()).toEqual(ends);
      seen.push(...ends);
      expect(page.hasMore).toBe(page.nextBefore !== null);
      if (page.hasMore) expect(page.nextBefore).toBe(ends.at(-1));
      before = page.nextBefore;
      pages += 1;
    } while (before && pages < 10);
    expect(pages).toBe(2);
    expect(seen).toHaveLength(ARCHIVE_WEEKS);
    expect(new Set(seen).size).toBe(ARCHIVE_WEEKS);
    const all = await t.db
      .selectFrom('tacsi_cells')
      .select('period_end')
      .where('sector', '=', ARCHIVE)
      .orderBy('period_end', 'desc')
      .execute();
    expect(seen).toEqual(all.map((r) => r.period_end));
  });

  it('history: from and to are inclusive, and bad dates or from after to are 400', async () => {
    const res = await get(`${url('history', ARCHIVE)}&from=2025-02-16&to=2025-03-09`, keys.full);
    const body = res.json();
    expect(body).toMatchObject({
      from: '2025-02-16',
      to: '2025-03-09',
      count: 4,
      hasMore: false,
      nextBefore: null,
    });
    expect(body.rows.map((r: { periodEnd: string }) => r.periodEnd)).toEqual([
      '2025-03-09',
      '2025-03-02',
      '2025-02-23',
      '2025-02-16',
    ]);
    const cursor = (
      await get(`${url('history', ARCHIVE)}&from=2025-02-16&before=2025-03-02`, keys.full)
    ).json();
    expect(cursor.rows.map((r: { periodEnd: string }) => r.periodEnd)).toEqual(['2025-02-23', '2025-02-16']);
    expectProblem(
      await get(`${url('history', ARCHIVE)}&from=2025-03-09&to=2025-02-16`, keys.full),
      400,
      'Invalid Date Range',
    );
    expectProblem(await get(`${url('history', ARCHIVE)}&from=2025-02-30`, keys.full), 400);
    expectProblem(await get(`${url('history', ARCHIVE)}&before=yesterday`, keys.full), 400);
    // The tacsi-m1 headline cells are stored but withdrawn: no feed serves them.
    const stored = await t.db
      .selectFrom('tacsi_cells')
      .select('period_end')
      .where('sector', '=', 'headline')
      .where('cadence', '=', 'weekly')
      .where('methodology_version', '=', 'tacsi-m1')
      .execute();
    expect(stored.length).toBe(4);
    const headline = (await get(url('history', 'headline'), keys.full)).json();
    expect(headline.rows).toEqual([]);
  });

  it('pillars: every published week of one pillar, newest first, with deltas from published values', async () => {
    const weekly = await t.db
      .selectFrom('tacsi_cells')
      .selectAll()
      .where('sector', '=', 'alpha-goods')
      .where('cadence', '=', 'weekly')
      .orderBy('period_end', 'desc')
      .execute();
    const body = (await get(url('pillars', 'alpha-goods', 'sentiment'), keys.pillarAlpha)).json();
    expect(Value.Check(S.PillarFeed, body)).toBe(true);
    expect(body.sector).toBe('alpha-goods');
    expect(body.pillar).toBe('sentiment');
    expect(body.series.map((p: { periodEnd: string; value: number }) => [p.periodEnd, p.value])).toEqual(
      weekly.map((c) => [c.period_end, c.sentiment]),
    );
    expect(Object.keys(body.series[0])).toEqual([
      'periodEnd',
      'value',
      'delta',
      'cohortBand',
      'methodologyVersion',
      'marginOfError',
    ]);
    // tacsi-m1 points carry the methodology's margin (discrete Laplace, scale 2): 5.99.
    expect(body.series[0].marginOfError).toBe(5.99);
    expect(body.series[0].delta).toBeCloseTo(weekly[0]!.sentiment - weekly[1]!.sentiment, 9);
    expect(body.series.at(-1).delta).toBeNull();
  });

  it('daily: the last 30 published daily cells, newest first', async () => {
    const first = (await get(url('daily', 'beta-foods'), keys.dailyBeta)).json();
    expect(Value.Check(S.DailyFeed, first)).toBe(true);
    expect(first.cadence).toBe('daily');
    expect(first.rows.map((r: { periodEnd: string }) => r.periodEnd)).toEqual(
      Array.from({ length: 14 }, (_, i) => addDays('2025-03-16', -i)),
    );
    // Older cells: ten inserted directly, twenty published (which also refreshes the feed cache).
    await t.db
      .insertInto('tacsi_cells')
      .values(
        Array.from({ length: 10 }, (_, i) => ({
          sector: 'beta-foods',
          cadence: 'daily' as const,
          period_end: addDays('2025-02-01', i),
          methodology_version: 'tacsi-m1',
          index_value: 50,
          delta: null,
          presence: 50,
          reach: 50,
          impact: 50,
          sentiment: 50,
          momentum: 50,
          cohort_band: 'n >= 100',
        })),
      )
      .execute();
    await publishCells(t.ctx, {
      cadence: 'daily',
      periodEnds: Array.from({ length: 14 }, (_, i) => addDays('2025-02-17', i)),
    });
    const body = (await get(url('daily', 'beta-foods'), keys.full)).json();
    expect(body.rows).toHaveLength(30);
    expect(body.rows[0].periodEnd).toBe('2025-03-16');
    expect(body.rows.at(-1).periodEnd).toBe('2025-02-09');
    const ends = body.rows.map((r: { periodEnd: string }) => r.periodEnd);
    expect([...ends].sort().reverse()).toEqual(ends);
  });

  it('serves strong ETags and answers If-None-Match with 304, after the entitlement check', async () => {
    const first = await get(url('weekly', 'alpha-goods'), keys.sectorAlpha);
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
    expect(first.headers['cache-control']).toBe('private, no-cache');
    const again = await get(url('weekly', 'alpha-goods'), keys.full);
    expect(again.headers.etag).toBe(etag);
    expect(again.body).toBe(first.body);
    const notModified = await get(url('weekly', 'alpha-goods'), keys.sectorAlpha, {
      'if-none-match': `W/"x", ${etag}`,
    });
    expect(notModified.statusCode).toBe(304);
    expect(notModified.body).toBe('');
    expect(notModified.headers.etag).toBe(etag);
    expect(
      (await get(url('weekly', 'alpha-goods'), keys.sectorAlpha, { 'if-none-match': '"other"' })).statusCode,
    ).toBe(200);
    expectProblem(
      await get(url('weekly', 'alpha-goods'), keys.dailyBeta, { 'if-none-match': etag }),
      403,
      'Not Licensed',
    );
  });

  it('a publication in this process is served at once, with a new ETag', async () => {
    const before = await get(url('weekly', 'alpha-goods'), keys.sectorAlpha);
    t.setNow(new Date('2025-03-25T06:00:00Z'));
    await t.db
      .insertInto('daily_scores')
      .values(
        (
          await t.db
            .selectFrom('workspaces')
            .select('id')
            .where('sector_slug', '=', 'alpha-goods')
            .where('account_type', '=', 'brand')
            .execute()
        ).flatMap((w) =>
          Array.from({ length: 7 }, (_, i) => ({
            workspace_id: w.id,
            day: addDays('2025-03-17', i),
            score: 55,
            presence: 55,
            reach: 55,
            impact: 55,
            sentiment: 55,
            momentum: 55,
            formula_version: 'v1',
          })),
        ),
      )
      .execute();
    await publishCells(t.ctx, { cadence: 'weekly', periodEnds: ['2025-03-23'], sectors: ['alpha-goods'] });
    const after = await get(url('weekly', 'alpha-goods'), keys.sectorAlpha);
    expect(after.json().periodEnd).toBe('2025-03-23');
    expect(after.json().history[0].periodEnd).toBe('2025-03-16');
    expect(after.headers.etag).not.toBe(before.headers.etag);
    t.setNow(new Date(`${TODAY}T06:00:00Z`));
  });

  it('no TACSI response ever contains a workspace id, name or connection handle', async () => {
    const workspaces = await t.db.selectFrom('workspaces').select(['id', 'name']).execute();
    const handles = await t.db.selectFrom('platform_connections').select('handle').execute();
    const needles = [...workspaces.flatMap((w) => [w.id, w.name]), ...handles.map((h) => h.handle)];
    expect(needles.length).toBeGreaterThan(600);
    expect(bodies.length).toBeGreaterThan(600);
    const corpus = bodies.join('\n');
    const found = needles.filter((n) => corpus.includes(n));
    expect(found).toEqual([]);
  });
});
