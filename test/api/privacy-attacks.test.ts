// Known attacks on the aggregate outputs, through HTTP, each failing:
// (a) the audit benchmark no longer reveals other tenants' scores in small sectors (2 and 30 brands):
//     the fields are null with the documented reason;
// (b) join differencing: two audits before and after one brand joins give the same benchmark, both
//     read from the same published cell and histogram, so their difference says nothing about it;
// (c) headline subtraction: the headline is a deterministic function of the published sector cells a
//     Full Database subscriber can read, so it carries nothing about an exclusive (locked-out) sector
//     or a sector below 50 brands, and changing their true scores does not change it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/admin/keys.ts';
import { createSubscriber, grantEntitlement } from '../../src/admin/tacsi.ts';
import { createWorkspace } from '../../src/admin/workspaces.ts';
import { addDays, utcDay } from '../../src/core/days.ts';
import { lastCompletedPeriodEnd } from '../../src/tacsi/periods.ts';
import {
  TACSI_M2,
  cellNoise,
  deriveHeadline,
  percentileFromHistogram,
} from '../../src/tacsi/privacy/index.ts';
import { publishCells } from '../../src/tacsi/publish.ts';
import { startTestService, workspaceWithKey, type TestService } from '../helpers/service.ts';
import { insertFinishedAudits, runJob, seedMetrics } from './audits.fixtures.ts';
import { insertScores, seedM2Fixture } from './tacsi-m2-fixture.ts';

const TODAY = utcDay(new Date());
const LAST_WEEK = lastCompletedPeriodEnd('weekly', TODAY);
// Six published weeks: at least one of them is the last week ending in a month (a histogram week).
const WEEKS = Array.from({ length: 6 }, (_, i) => addDays(LAST_WEEK, -7 * (5 - i)));
const FIRST_DAY = addDays(WEEKS[0]!, -6);

let t: TestService;
let fullKey: string;

beforeAll(async () => {
  t = await startTestService({ tacsiM2From: '2020-01-05' });
  await seedM2Fixture(
    t.db,
    [
      { slug: 'duo', brands: 2, level: 55 },
      { slug: 'thirty', brands: 30, level: 67 },
      { slug: 'sixty', brands: 60, level: 50 },
      { slug: 'wide', brands: 120, level: 58 },
      { slug: 'locked', brands: 70, level: 40 },
    ],
    FIRST_DAY,
    LAST_WEEK,
  );
  const holder = await createSubscriber(t.db, 'Exclusive holder');
  await grantEntitlement(t.db, {
    subscriberId: holder,
    kind: 'sector_feed',
    sector: 'locked',
    exclusive: true,
    validFrom: '2020-01-01',
  });
  const full = await createSubscriber(t.db, 'Full Database reader');
  await grantEntitlement(t.db, { subscriberId: full, kind: 'full_database', validFrom: '2020-01-01' });
  fullKey = (await createApiKey(t.db, { subscriberId: full }, { scopes: ['read'] })).key;
  await publishCells(t.ctx, { cadence: 'weekly', periodEnds: WEEKS, log: () => {} });
}, 120_000);
afterAll(async () => t?.close());

async function auditIn(sector: string) {
  const { key, workspace } = await workspaceWithKey(
    t.db,
    { plan: 'pro', sector },
    { platforms: [{ platform: 'instagram' }] },
  );
  await seedMetrics(t.db, workspace.id, { platforms: ['instagram'] });
  return { key, workspace, audit: () => runAudit(key) };
}

async function runAudit(key: string) {
  const start = await t.request({ method: 'POST', url: '/v1/audit/run', key, payload: {} });
  expect(start.statusCode).toBe(200);
  await runJob(t.ctx, start.json().audit_id);
  const res = await t.request({ method: 'GET', url: `/v1/audit/${start.json().audit_id}`, key });
  expect(res.statusCode).toBe(200);
  return res.json();
}

describe('(a) benchmark in small sectors', () => {
  for (const sector of ['duo', 'thirty']) {
    it(`${sector}: no figure from raw scores, null fields with the reason`, async () => {
      const { audit } = await auditIn(sector);
      const body = await audit();
      expect(body.industry_benchmark).toEqual({
        your_score: body.score,
        industry_average: null,
        percentile: null,
        basis: expect.objectContaining({
          status: 'not_published',
          sector,
          period_end: null,
          percentile_granularity: 5,
        }),
      });
      expect(body.industry_benchmark.basis.reason).toMatch(/fewer than 50/);
    });
  }

  it('a sector held exclusively answers exactly as an unpublished one; no sector gives none either', async () => {
    // The benchmark must not tell a brand whether its sector is licensed exclusively (security review
    // L-7): same status, reason and fields as a sector below 50 brands, only the sector differs.
    const locked = (await (await auditIn('locked')).audit()).industry_benchmark;
    const duo = (await (await auditIn('duo')).audit()).industry_benchmark;
    expect(locked).toMatchObject({ industry_average: null, percentile: null });
    expect({ ...locked.basis, sector: null }).toEqual({ ...duo.basis, sector: null });
    expect(JSON.stringify(locked)).not.toMatch(/exclusive/i);
    const { key, workspace } = await workspaceWithKey(
      t.db,
      { plan: 'pro' },
      { platforms: [{ platform: 'instagram' }] },
    );
    await seedMetrics(t.db, workspace.id, { platforms: ['instagram'] });
    expect((await runAudit(key)).industry_benchmark).toMatchObject({
      industry_average: null,
      percentile: null,
      basis: { status: 'no_sector', sector: null },
    });
  });
});

describe('(b) join differencing', () => {
  it('two audits around a brand joining read the same published cell: their difference is zero', async () => {
    const { key } = await auditIn('wide');
    const before = (await runAudit(key)).industry_benchmark;
    const cell = await t.db
      .selectFrom('tacsi_cells')
      .selectAll()
      .where('sector', '=', 'wide')
      .where('cadence', '=', 'weekly')
      .orderBy('period_end', 'desc')
      .executeTakeFirstOrThrow();
    const histogram = await t.db
      .selectFrom('tacsi_histograms')
      .selectAll()
      .where('sector', '=', 'wide')
      .orderBy('period_end', 'desc')
      .executeTakeFirstOrThrow();
    expect(before.industry_average).toBe(cell.index_value);
    expect(before.percentile).toBe(percentileFromHistogram(before.your_score, histogram, 5));
    expect(before.percentile % 5).toBe(0);
    expect(before.basis).toMatchObject({
      status: 'published',
      period_end: LAST_WEEK,
      methodology_version: 'tacsi-m2',
      cohort_band: 'n >= 100',
      margin_of_error: cell.moe_index_value,
      distribution_period_end: histogram.period_end,
    });
    // The percentile comes with its 95% interval from the histogram's noise law.
    const { low, high } = before.basis.percentile_interval;
    expect(low).toBeLessThanOrEqual(before.percentile);
    expect(high).toBeGreaterThanOrEqual(before.percentile);
    expect(high - low).toBeGreaterThan(0);

    // An extreme brand joins the sector with scores for every day.
    const joiner = await createWorkspace(t.db, { name: 'Joiner', plan: 'pro', sector: 'wide' });
    await insertScores(t.db, 'wide', 99, FIRST_DAY, TODAY, [joiner.id]);
    const after = (await runAudit(key)).industry_benchmark;
    expect(after.industry_average).toBe(before.industry_average);
    expect(after.basis).toEqual(before.basis);
    // The percentile only moves with the auditor's own score, through the same published histogram.
    expect(after.percentile).toBe(percentileFromHistogram(after.your_score, histogram, 5));
  });
});

describe('the percentile below band 100', () => {
  it('is suppressed: the average is given, the percentile is null with the reason', async () => {
    const body = (await (await auditIn('sixty')).audit()).industry_benchmark;
    const histogram = await t.db
      .selectFrom('tacsi_histograms')
      .select('band_floor')
      .where('sector', '=', 'sixty')
      .executeTakeFirstOrThrow();
    expect(histogram.band_floor).toBe(50);
    expect(body.industry_average).toEqual(expect.any(Number));
    expect(body.percentile).toBeNull();
    expect(body.basis).toMatchObject({ status: 'coarse_distribution', percentile_interval: null });
  });
});

describe('benchmarks stored before the published-statistics benchmark', () => {
  it('are withdrawn: no audit answer carries a figure computed from raw peer scores', async () => {
    const { key, workspace } = await auditIn('wide');
    await insertFinishedAudits(t.db, workspace.id, 2, 'completed', new Date('2024-05-01T00:00:00Z'));
    const [legacy, exclusive] = await t.db
      .selectFrom('audits')
      .select('id')
      .where('workspace_id', '=', workspace.id)
      .orderBy('id')
      .execute();
    // The second one is stored as the former exclusive_sector answer.
    await t.db
      .updateTable('audits')
      .set({
        industry_benchmark: JSON.stringify({
          your_score: 50,
          industry_average: null,
          percentile: null,
          basis: { status: 'exclusive_sector', reason: 'licensed exclusively', sector: 'locked' },
        }),
      })
      .where('id', '=', exclusive!.id)
      .execute();
    const stored = await t.db
      .selectFrom('audits')
      .select('industry_benchmark')
      .where('id', '=', legacy!.id)
      .executeTakeFirstOrThrow();
    expect(stored.industry_benchmark).toMatchObject({ industry_average: 50, percentile: 50 });
    const read = async (id: string) =>
      (await t.request({ method: 'GET', url: `/v1/audit/${id}`, key })).json().industry_benchmark;
    expect(await read(legacy!.id)).toMatchObject({
      your_score: 50,
      industry_average: null,
      percentile: null,
      basis: { status: 'legacy_withdrawn' },
    });
    const old = await read(exclusive!.id);
    expect(old).toMatchObject({
      industry_average: null,
      percentile: null,
      basis: { status: 'not_published' },
    });
    expect(JSON.stringify(old)).not.toMatch(/exclusive/i);
  });
});

describe('(c) headline subtraction', () => {
  const history = async (sector: string) => {
    const res = await t.request({ method: 'GET', url: `/v1/tacsi/history?sector=${sector}`, key: fullKey });
    expect(res.statusCode).toBe(200);
    return res.json().rows as Array<{
      periodEnd: string;
      indexValue: number;
      pillars: Record<string, number>;
      cohortBand: string;
      methodologyVersion: string;
    }>;
  };

  it('the headline is a function of the readable, non-exclusive sector cells only', async () => {
    // The locked-out sector is not readable by this subscriber; the 30- and 2-brand sectors are unpublished.
    expect(
      (await t.request({ method: 'GET', url: '/v1/tacsi/history?sector=locked', key: fullKey })).statusCode,
    ).toBe(403);
    expect(await history('thirty')).toEqual([]);
    const headline = await history('headline');
    expect(headline.map((c) => c.periodEnd)).toEqual([...WEEKS].reverse());
    const sixty = await history('sixty');
    const wide = await history('wide');
    for (const h of headline) {
      const parts = [sixty, wide].map((rows) => {
        const c = rows.find((r) => r.periodEnd === h.periodEnd)!;
        // Directly noised weekly cells at their public band floor (100 for `wide`, 50 for `sixty`).
        const bandFloor = c.cohortBand === 'n >= 100' ? 100 : 50;
        return { pillars: c.pillars as never, bandFloor, noise: cellNoise(TACSI_M2, 'weekly', bandFloor) };
      });
      const expected = deriveHeadline(parts, TACSI_M2)!;
      expect(h.indexValue).toBe(expected.indexValue);
      expect(h.pillars).toEqual(expected.pillars);
      expect(h.methodologyVersion).toBe('tacsi-m2');
    }
  });

  it('changing the excluded sectors’ true scores does not change the headline', async () => {
    const before = await history('headline');
    // Re-derive the headline after moving the locked-out and the sub-50 sectors far away.
    await t.db.deleteFrom('tacsi_cells').where('sector', '=', 'headline').execute();
    await insertScores(t.db, 'locked', 95, FIRST_DAY, LAST_WEEK);
    await insertScores(t.db, 'thirty', 5, FIRST_DAY, LAST_WEEK);
    const outcomes = await publishCells(t.ctx, {
      cadence: 'weekly',
      periodEnds: WEEKS,
      sectors: ['headline'],
      log: () => {},
    });
    expect(outcomes.every((o) => o.status === 'published')).toBe(true);
    const after = await history('headline');
    expect(after.map(({ periodEnd, indexValue, pillars }) => ({ periodEnd, indexValue, pillars }))).toEqual(
      before.map(({ periodEnd, indexValue, pillars }) => ({ periodEnd, indexValue, pillars })),
    );
  });
});

describe('daily feed under tacsi-m2', () => {
  it('answers Not Published to an entitled caller when the sector has fewer than 250 brands', async () => {
    const sub = await createSubscriber(t.db, 'Daily reader');
    await grantEntitlement(t.db, {
      subscriberId: sub,
      kind: 'sector_feed',
      sector: 'wide',
      validFrom: '2020-01-01',
    });
    await grantEntitlement(t.db, {
      subscriberId: sub,
      kind: 'daily_addon',
      sector: 'wide',
      validFrom: '2020-01-01',
    });
    const key = (await createApiKey(t.db, { subscriberId: sub }, { scopes: ['read'] })).key;
    const res = await t.request({ method: 'GET', url: '/v1/tacsi/daily?sector=wide', key });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ status: 404, title: 'Not Published' });
    // Its weekly cells are published (noised directly) with their margins.
    const weekly = await t.request({ method: 'GET', url: '/v1/tacsi/weekly?sector=wide', key });
    expect(weekly.json()).toMatchObject({ methodologyVersion: 'tacsi-m2', cohortBand: 'n >= 100' });
    expect(weekly.json().marginOfError.indexValue).toBeLessThanOrEqual(6);
  });
});

describe('OpenAPI', () => {
  it('names the margin of error on every TACSI cell and the benchmark basis', async () => {
    const text = (await t.request({ method: 'GET', url: '/openapi.json' })).body;
    const doc = JSON.parse(text);
    // Named schemas are $refs to #/components/schemas (a described one wrapped in allOf): follow them.
    const at = (node: Record<string, any>): Record<string, any> =>
      node.$ref
        ? at(doc.components.schemas[node.$ref.replace('#/components/schemas/', '')])
        : node.allOf?.length === 1
          ? at(node.allOf[0])
          : node;
    const body = (path: string) =>
      at(doc.paths[path].get.responses['200'].content['application/json'].schema);
    const weekly = body('/v1/tacsi/weekly');
    expect(at(weekly.properties.marginOfError).properties).toHaveProperty('indexValue');
    expect(at(at(weekly.properties.history).items).properties).toHaveProperty('marginOfError');
    const pillars = body('/v1/tacsi/pillars');
    expect(at(at(pillars.properties.series).items).properties).toHaveProperty('marginOfError');
    expect(text).toContain('percentile_granularity');
    expect(text).toContain('margins95');
  });
});
