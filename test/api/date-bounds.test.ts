import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/admin/keys.ts';
import { createSubscriber, grantEntitlement } from '../../src/admin/tacsi.ts';
import { createSector } from '../../src/admin/workspaces.ts';
import { expectProblem, startTestService, workspaceWithKey, type TestService } from '../helpers/service.ts';
import { insertSyntheticWeeklyCells } from './tacsi-fixture.ts';

// Dates PostgreSQL cannot hold (there is no year 0000: 1 BC precedes AD 1) are refused by the one
// date rule (src/core/days.ts) with a 400 naming the parameter, never sent to the database (where
// it fails as a 500 on both), including a date-time whose offset carries it out of 0001-9999.
const SECTOR = 'date-bounds';
let t: TestService;
let tacsiKey: string;
let proKey: string;

beforeAll(async () => {
  t = await startTestService();
  await createSector(t.db, SECTOR, 'Date bounds');
  await insertSyntheticWeeklyCells(t.db, SECTOR, '2030-03-03', 10);
  const full = await createSubscriber(t.db, 'Date bounds full');
  await grantEntitlement(t.db, { subscriberId: full, kind: 'full_database', validFrom: '2024-01-01' });
  tacsiKey = (await createApiKey(t.db, { subscriberId: full }, { scopes: ['read'] })).key;
  proKey = (await workspaceWithKey(t.db, { plan: 'pro' })).key;
});
afterAll(async () => t?.close());

const get = (url: string, key: string) => t.request({ method: 'GET', url, key });

describe('dates outside years 0001-9999', () => {
  it('TACSI history: from, to and before in year 0000 are 400 naming the parameter', async () => {
    for (const [name, value] of [
      ['from', '0000-01-01'],
      ['from', '0000-02-29'],
      ['to', '0000-12-31'],
      ['before', '0000-01-02'],
    ] as const) {
      const res = await get(`/v1/tacsi/history?sector=${SECTOR}&${name}=${value}`, tacsiKey);
      const body = expectProblem(res, 400);
      expect(JSON.stringify(body.errors ?? body), `${name}=${value}`).toContain(name);
    }
    // The first representable day still works.
    expect((await get(`/v1/tacsi/history?sector=${SECTOR}&from=0001-01-01`, tacsiKey)).statusCode).toBe(200);
  });

  it('score history: start_date and end_date in year 0000, or pushed there by an offset, are 400', async () => {
    for (const [name, value] of [
      ['start_date', '0000-01-01'],
      ['start_date', '0000-06-30T12:00:00Z'],
      ['start_date', '0001-01-01T00:30:00+01:00'],
      ['end_date', '0000-12-31'],
    ] as const) {
      const res = await get(`/v1/score/history?${name}=${encodeURIComponent(value)}`, proKey);
      const body = expectProblem(res, 400);
      expect(JSON.stringify(body.errors ?? body), `${name}=${value}`).toContain(name);
    }
    expect((await get('/v1/score/history?start_date=0001-01-01', proKey)).statusCode).not.toBe(500);
  });
});
