import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runDemo } from '../../src/sandbox/demo.ts';
import type { SandboxManifest } from '../../src/sandbox/manifest.ts';
import { expectProblem, startTestService, type TestService } from '../helpers/service.ts';

let t: TestService;
let m: SandboxManifest;
const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'bh-sandbox-')), 'sandbox.json');

beforeAll(async () => {
  t = await startTestService();
  m = await runDemo(t.ctx, { out });
}, 300_000);
afterAll(async () => t?.close());

const get = (url: string, key: string) => t.request({ method: 'GET', url, key });

describe('the sandbox manifest', () => {
  it('is written with every documented key', () => {
    const written = JSON.parse(fs.readFileSync(out, 'utf8'));
    expect(written).toEqual(m);
    for (const k of [
      'free',
      'pro',
      'proNoPlatforms',
      'agency',
      'agencyNoRead',
      'otherAgency',
      'revoked',
      'expired',
      'tacsiSectorFeed',
      'tacsiDaily',
      'tacsiPillar',
      'tacsiFull',
      'tacsiLockedOut',
    ]) {
      expect(m.keys[k], k).toMatch(/^bh_live_/);
    }
    expect(m.workspaces.agencyClients.length).toBeGreaterThanOrEqual(3);
    expect(m.workspaces.agencyClients).toContain(m.workspaces.creatorClient);
    expect(m.tacsi.sectors.length).toBeGreaterThanOrEqual(4);
    expect(m.tacsi.sectors).toContain(m.tacsi.smallSector);
  });

  it('holds the sectors and metric history it promises', async () => {
    const counts = await t.db
      .selectFrom('workspaces')
      .select(['sector_slug', (eb) => eb.fn.countAll<number>().as('n')])
      .where('sector_slug', 'is not', null)
      .groupBy('sector_slug')
      .execute();
    const bySector: Record<string, number> = Object.fromEntries(
      counts.map((c) => [c.sector_slug, Number(c.n)]),
    );
    expect(bySector[m.tacsi.smallSector]).toBeLessThan(50);
    expect(Object.values(bySector).filter((n) => n >= 120).length).toBeGreaterThanOrEqual(3);
    const span = await t.db
      .selectFrom('metric_snapshots')
      .select([(eb) => eb.fn.min('day').as('first'), (eb) => eb.fn.max('day').as('last')])
      .where('workspace_id', '=', m.workspaces.pro)
      .executeTakeFirstOrThrow();
    const days = (Date.parse(String(span.last)) - Date.parse(String(span.first))) / 86_400_000 + 1;
    expect(days).toBeGreaterThanOrEqual(730);
  });

  it('gives each workspace key the access described', async () => {
    expectProblem(await get('/v1/workspace', m.keys.free), 403, 'Plan Required');
    const pro = (await get('/v1/workspace', m.keys.pro)).json();
    expect(pro.id).toBe(m.workspaces.pro);
    expect((await get('/v1/platforms', m.keys.pro)).json().total_connected).toBeGreaterThan(0);
    expect((await get('/v1/platforms', m.keys.proNoPlatforms)).json().total_connected).toBe(0);
    expectProblem(await get('/v1/workspace', m.keys.revoked), 401);
    expectProblem(await get('/v1/workspace', m.keys.expired), 401);

    for (const client of m.workspaces.agencyClients) {
      expect((await get(`/v1/platforms?workspace_id=${client}`, m.keys.agency)).statusCode).toBe(200);
      expectProblem(await get(`/v1/platforms?workspace_id=${client}`, m.keys.otherAgency), 404);
    }
    for (const client of m.workspaces.otherAgencyClients) {
      expect((await get(`/v1/platforms?workspace_id=${client}`, m.keys.otherAgency)).statusCode).toBe(200);
      expectProblem(await get(`/v1/platforms?workspace_id=${client}`, m.keys.agency), 404);
    }
    const creator = await t.db
      .selectFrom('workspaces')
      .select('account_type')
      .where('id', '=', m.workspaces.creatorClient)
      .executeTakeFirstOrThrow();
    expect(creator.account_type).toBe('creator');
    expectProblem(await get('/v1/export/clients', m.keys.agencyNoRead), 403, 'Forbidden');
    expect((await get('/v1/export/clients', m.keys.agency)).statusCode).toBe(200);
  });

  it('gives each TACSI key the access described', async () => {
    const weekly = (sector: string) => `/v1/tacsi/weekly?sector=${sector}`;
    expect((await get(weekly(m.tacsi.licensedSector), m.keys.tacsiSectorFeed)).statusCode).toBe(200);
    expectProblem(await get(weekly(m.tacsi.unlicensedSector), m.keys.tacsiSectorFeed), 403, 'Not Licensed');
    expectProblem(
      await get(`/v1/tacsi/daily?sector=${m.tacsi.licensedSector}`, m.keys.tacsiSectorFeed),
      403,
      'Not Licensed',
    );
    expect((await get(`/v1/tacsi/daily?sector=${m.tacsi.dailySector}`, m.keys.tacsiDaily)).statusCode).toBe(
      200,
    );
    const { sector, pillar } = m.tacsi.pillarFeed;
    expect(
      (await get(`/v1/tacsi/pillars?sector=${sector}&pillar=${pillar}`, m.keys.tacsiPillar)).statusCode,
    ).toBe(200);
    expectProblem(await get(weekly(sector), m.keys.tacsiPillar), 403, 'Not Licensed');
    expect((await get('/v1/tacsi/history?sector=headline', m.keys.tacsiFull)).statusCode).toBe(200);
    expectProblem(await get(weekly(m.tacsi.lockedOutSector), m.keys.tacsiLockedOut), 403, 'Not Licensed');
    // The small sector is never published, and says so only to a caller entitled to it.
    expectProblem(await get(weekly(m.tacsi.smallSector), m.keys.tacsiFull), 404, 'Not Published');
  });

  it('is idempotent: seeding again changes nothing and keeps the keys', async () => {
    const before = await t.db
      .selectFrom('metric_snapshots')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    const again = await runDemo(t.ctx, { out });
    expect(again.keys).toEqual(m.keys);
    const after = await t.db
      .selectFrom('metric_snapshots')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
    expect((await get('/v1/workspace', again.keys.pro)).statusCode).toBe(200);
  }, 300_000);
});
