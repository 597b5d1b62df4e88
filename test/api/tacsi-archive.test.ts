// Bulk delivery: a licensed sector's whole weekly archive in one download, as CSV and as Parquet, with
// strong per-format ETags, the history feed's entitlement and uniform denial; the Parquet file is read
// back by an independent reader (DuckDB). And the coverage list: first/last periods and band history.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/admin/keys.ts';
import { createSubscriber, grantEntitlement } from '../../src/admin/tacsi.ts';
import { addDays } from '../../src/core/days.ts';
import { publishCells } from '../../src/tacsi/publish.ts';
import { startTestService, workspaceWithKey, type TestService } from '../helpers/service.ts';
import { seedM2Fixture } from './tacsi-m2-fixture.ts';

let t: TestService;
let key: string;
let otherKey: string;
const dir = mkdtempSync(path.join(tmpdir(), 'tacsi-archive-'));
// 300 weeks: more than one history page (260), so the download is not one page.
const WEEKS = Array.from({ length: 300 }, (_, i) => addDays('2019-06-02', 7 * i));

beforeAll(async () => {
  t = await startTestService({ tacsiM2From: '2019-05-27' });
  t.setNow(new Date(`${addDays(WEEKS.at(-1)!, 2)}T06:00:00Z`));
  await seedM2Fixture(t.db, [{ slug: 'grocery', brands: 55, level: 50 }], '2019-05-27', WEEKS.at(-1)!);
  await publishCells(t.ctx, { cadence: 'weekly', periodEnds: WEEKS, log: () => {} });
  const sub = await createSubscriber(t.db, 'Archive buyer');
  await grantEntitlement(t.db, {
    subscriberId: sub,
    kind: 'sector_feed',
    sector: 'grocery',
    validFrom: '2019-01-01',
  });
  key = (await createApiKey(t.db, { subscriberId: sub }, { scopes: ['read'] })).key;
  const other = await createSubscriber(t.db, 'Other');
  otherKey = (await createApiKey(t.db, { subscriberId: other }, { scopes: ['read'] })).key;
}, 300_000);
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await t?.close();
});

const get = (query: string, k: string, headers: Record<string, string> = {}) =>
  t.request({ method: 'GET', url: `/v1/tacsi/archive?${query}`, key: k, headers });

async function history(): Promise<Array<Record<string, any>>> {
  const rows: Array<Record<string, any>> = [];
  let before = '';
  for (;;) {
    const page = (
      await t.request({ method: 'GET', url: `/v1/tacsi/history?sector=grocery${before}`, key })
    ).json();
    rows.push(...page.rows);
    if (!page.hasMore) return rows.reverse();
    before = `&before=${page.nextBefore}`;
  }
}

describe('GET /v1/tacsi/archive', () => {
  it('CSV: every published week once, oldest first, as the history feed has them', async () => {
    const res = await get('sector=grocery&format=csv', key);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/csv');
    expect(res.headers['content-disposition']).toBe('attachment; filename="tacsi-grocery-weekly.csv"');
    const lines = res.body.trimEnd().split('\r\n');
    expect(lines[0]).toBe(
      'periodEnd,indexValue,delta,pillars.impact,pillars.momentum,pillars.presence,pillars.reach,pillars.sentiment,cohortBand,methodologyVersion,marginOfError.indexValue,marginOfError.pillars,publishedAt,vintage',
    );
    const rows = await history();
    expect(rows).toHaveLength(300);
    expect(lines.slice(1).map((l) => l.split(',')[0])).toEqual(rows.map((r) => r.periodEnd));
    expect(lines[1]!.split(',')[1]).toBe(String(rows[0]!.indexValue));
  });

  it('Parquet: read back by DuckDB, the same cells as the feeds', async () => {
    const res = await get('sector=grocery&format=parquet', key);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/vnd.apache.parquet');
    const file = path.join(dir, 'grocery.parquet');
    writeFileSync(file, res.rawPayload);
    const duck = await (await DuckDBInstance.create(':memory:')).connect();
    const read = await duck.runAndReadAll(
      `SELECT "periodEnd", "indexValue", "delta", "pillars.sentiment", "cohortBand", "methodologyVersion",
              "marginOfError.indexValue", "publishedAt", "vintage" FROM read_parquet('${file}')`,
    );
    const got = read.getRowObjectsJson();
    const rows = await history();
    expect(got).toEqual(
      rows.map((r) => ({
        periodEnd: r.periodEnd,
        indexValue: r.indexValue,
        delta: r.delta,
        'pillars.sentiment': r.pillars.sentiment,
        cohortBand: r.cohortBand,
        methodologyVersion: r.methodologyVersion,
        'marginOfError.indexValue': r.marginOfError.indexValue,
        publishedAt: r.publishedAt,
        vintage: r.vintage,
      })),
    );
  });

  it('strong ETags per format, 304 on a match, and the uniform denial', async () => {
    const csv = await get('sector=grocery&format=csv', key);
    const parquet = await get('sector=grocery&format=parquet', key);
    expect(csv.headers.etag).toMatch(/^"[^"]+-csv"$/);
    expect(parquet.headers.etag).toMatch(/^"[^"]+-parquet"$/);
    expect(
      (await get('sector=grocery&format=csv', key, { 'if-none-match': csv.headers.etag as string }))
        .statusCode,
    ).toBe(304);
    expect(
      (await get('sector=grocery&format=parquet', key, { 'if-none-match': csv.headers.etag as string }))
        .statusCode,
    ).toBe(200);
    const denied = await get('sector=grocery&format=parquet', otherKey);
    const unknown = await get('sector=zz-unknown&format=csv', key);
    const workspace = await get(
      'sector=grocery&format=csv',
      (await workspaceWithKey(t.db, { plan: 'pro' })).key,
    );
    for (const res of [denied, unknown, workspace]) {
      expect(res.statusCode).toBe(403);
      const { request_id: _r, ...rest } = res.json();
      expect(rest).toEqual({
        type: expect.any(String),
        title: 'Not Licensed',
        status: 403,
        detail: 'This key is not licensed for the requested TACSI feed.',
        instance: '/v1/tacsi/archive',
      });
    }
    expect((await get('sector=grocery&format=xlsx', key)).statusCode).toBe(400);
  });
});

describe('GET /v1/tacsi/coverage', () => {
  it('gives the first and last periods and the band history of each licensed sector', async () => {
    const res = await t.request({ method: 'GET', url: '/v1/tacsi/coverage', key });
    expect(res.statusCode).toBe(200);
    expect(res.json().sectors).toEqual([
      {
        slug: 'grocery',
        weekly: { first: WEEKS[0], last: WEEKS.at(-1), count: 300 },
        daily: null,
        bands: [{ cohortBand: 'n >= 50', from: WEEKS[0], to: WEEKS.at(-1) }],
      },
    ]);
    expect(
      (await t.request({ method: 'GET', url: '/v1/tacsi/coverage', key: otherKey })).json().sectors,
    ).toEqual([]);
  });
});
