// Point in time: every cell carries its publication instant, and `asOf` on the archive answers exactly
// (byte for byte, ETag included) what a subscriber read at that instant, whatever was published or corrected since.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/admin/keys.ts';
import { createSubscriber, grantEntitlement } from '../../src/admin/tacsi.ts';
import { publishCells } from '../../src/tacsi/publish.ts';
import { correctCell } from '../../src/tacsi/correct.ts';
import { expectProblem, startTestService, type TestService } from '../helpers/service.ts';
import { seedM2Fixture } from './tacsi-m2-fixture.ts';

let t: TestService;
let key: string;
const T1 = new Date('2025-01-21T03:30:00.000Z');
const T2 = new Date('2025-01-24T09:15:00.000Z');
const T3 = new Date('2025-01-28T03:30:00.000Z');
const T4 = new Date('2025-01-29T11:00:00.000Z');

beforeAll(async () => {
  t = await startTestService({ tacsiM2From: '2025-01-06' });
  await seedM2Fixture(t.db, [{ slug: 'retail', brands: 70, level: 55 }], '2025-01-06', '2025-01-26');
  const sub = await createSubscriber(t.db, 'Archive reader');
  await grantEntitlement(t.db, {
    subscriberId: sub,
    kind: 'sector_feed',
    sector: 'retail',
    validFrom: '2020-01-01',
  });
  key = (await createApiKey(t.db, { subscriberId: sub }, { scopes: ['read'] })).key;
  t.setNow(T1);
  await publishCells(t.ctx, { cadence: 'weekly', periodEnds: ['2025-01-12', '2025-01-19'], log: () => {} });
}, 120_000);
afterAll(async () => t?.close());

const history = (query = '', headers: Record<string, string> = {}) =>
  t.request({ method: 'GET', url: `/v1/tacsi/history?sector=retail${query}`, key, headers });

describe('point in time', () => {
  it('every cell carries the instant of its publication run', async () => {
    t.setNow(T2);
    const rows = (await history()).json().rows;
    expect(rows.map((r: { publishedAt: string }) => r.publishedAt)).toEqual([
      T1.toISOString(),
      T1.toISOString(),
    ]);
  });

  it('asOf answers byte for byte what was served at that instant, after later publications', async () => {
    t.setNow(T2);
    const then = await history();
    const thenCsv = await history('', { accept: 'text/csv' });
    expect(then.statusCode).toBe(200);
    t.setNow(T3);
    await publishCells(t.ctx, { cadence: 'weekly', periodEnds: ['2025-01-26'], log: () => {} });
    const now = (await history()).json();
    expect(now.rows.map((r: { periodEnd: string }) => r.periodEnd)).toEqual([
      '2025-01-26',
      '2025-01-19',
      '2025-01-12',
    ]);
    expect(now.rows[0].publishedAt).toBe(T3.toISOString());

    const asOf = await history(`&asOf=${T2.toISOString()}`);
    expect(asOf.statusCode).toBe(200);
    expect(asOf.body).toBe(then.body);
    expect(asOf.headers.etag).toBe(then.headers.etag);
    const asOfCsv = await history(`&asOf=${T2.toISOString()}`, { accept: 'text/csv' });
    expect(asOfCsv.body).toBe(thenCsv.body);
    // The instant of a publication includes it; a millisecond before, nothing was published.
    expect((await history(`&asOf=${T3.toISOString()}`)).json().count).toBe(3);
    expect((await history(`&asOf=2025-01-21T03:29:59.999Z`)).json().rows).toEqual([]);
    // An offset other than Z names the same instant.
    expect((await history('&asOf=2025-01-24T10:15:00%2B01:00')).body).toBe(then.body);
  });

  it('a correction is a later vintage: asOf before it answers the bytes served then, asOf after it the new one', async () => {
    t.setNow(T3);
    const then = await history();
    const thenCsv = await history('', { accept: 'text/csv' });
    t.setNow(T4);
    await correctCell(t.ctx, {
      sector: 'retail',
      cadence: 'weekly',
      periodEnd: '2025-01-19',
      reason: 'The cohort missed brands whose scores arrived late.',
    });
    const now = await history();
    expect(now.json().rows.map((r: { vintage: number }) => r.vintage)).toEqual([1, 2, 1]);
    expect(now.json().rows[1].publishedAt).toBe(T4.toISOString());
    expect(now.body).not.toBe(then.body);
    // Before the correction, byte for byte (ETag and CSV included), at every instant read earlier.
    for (const instant of [T3, new Date(T4.getTime() - 1)]) {
      const asOf = await history(`&asOf=${instant.toISOString()}`);
      expect(asOf.body).toBe(then.body);
      expect(asOf.headers.etag).toBe(then.headers.etag);
      expect((await history(`&asOf=${instant.toISOString()}`, { accept: 'text/csv' })).body).toBe(
        thenCsv.body,
      );
    }
    expect((await history(`&asOf=${T2.toISOString()}`)).json().count).toBe(2);
    // From the correction's instant on, the new vintage.
    const after = await history(`&asOf=${T4.toISOString()}`);
    expect(after.body).toBe(now.body);
    expect(after.headers.etag).toBe(now.headers.etag);
  });

  it('refuses an instant in the future, without an offset or malformed', async () => {
    t.setNow(T3);
    for (const bad of ['2025-01-28T03:30:01Z', '2025-01-24T09:15:00', 'yesterday', '2025-02-30T00:00:00Z']) {
      expectProblem(await history(`&asOf=${encodeURIComponent(bad)}`), 400);
    }
  });
});
