import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { createHmac } from 'node:crypto';
import { createApiKey, listApiKeys } from '../../src/admin/keys.ts';
import { createWorkspace } from '../../src/admin/workspaces.ts';
import { runDemo } from '../../src/sandbox/demo.ts';
import { resetSandbox } from '../../src/sandbox/reset.ts';
import type { SandboxManifest } from '../../src/sandbox/manifest.ts';
import { expectProblem, startTestService, type TestService } from '../helpers/service.ts';
import { seededSandbox } from './seeded-sandbox.ts';

let t: TestService;
let m: SandboxManifest;
/** The manifest `brandhealth demo` wrote (shared by the suite's files: read only). */
let written: string;
/** This file's copy, for seeding again. */
let out: string;

beforeAll(async () => {
  const seeded = await seededSandbox();
  ({ manifest: m, manifestPath: written, out } = seeded);
  t = await startTestService({}, {}, { database: seeded.database });
}, 900_000);
afterAll(async () => t?.close());

const get = (url: string, key: string) => t.request({ method: 'GET', url, key });

describe('the sandbox manifest', () => {
  it('is readable by its owner only: it holds every key', () => {
    expect(fs.statSync(written).mode & 0o777).toBe(0o600);
  });

  it('is written with every documented key', () => {
    expect(JSON.parse(fs.readFileSync(written, 'utf8'))).toEqual(m);
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
      expect(m.keys[k], k).toMatch(/^bh_test_[0-9A-Z]{26}_[A-Za-z0-9_-]{43}$/);
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
    // Four published sectors; the Daily add-on's one has the 250 brands tacsi-m2 daily cells need.
    expect(Object.values(bySector).filter((n) => n >= 50).length).toBeGreaterThanOrEqual(4);
    expect(bySector[m.tacsi.dailySector]).toBeGreaterThanOrEqual(250);
    // Its archive is tacsi-m2 throughout: daily cells, weekly cells derived from them, with margins.
    const daily = await t.db
      .selectFrom('tacsi_cells')
      .select(['methodology_version', 'derivation'])
      .where('sector', '=', m.tacsi.dailySector)
      .execute();
    expect(daily.length).toBeGreaterThan(700);
    expect(new Set(daily.map((c) => c.methodology_version))).toEqual(new Set(['tacsi-m2']));
    expect(await t.db.selectFrom('tacsi_privacy_ledger').select('id').execute()).toEqual([]);
    const span = await t.db
      .selectFrom('metric_snapshots')
      .select([(eb) => eb.fn.min('day').as('first'), (eb) => eb.fn.max('day').as('last')])
      .where('workspace_id', '=', m.workspaces.pro)
      .executeTakeFirstOrThrow();
    const days = (Date.parse(String(span.last)) - Date.parse(String(span.first))) / 86_400_000 + 1;
    expect(days).toBeGreaterThanOrEqual(730);
  });

  it('gives its brands sectors, so their audits carry the published industry benchmark', async () => {
    const listed = (await get('/v1/audits?status=completed&limit=1&offset=0', m.keys.pro)).json();
    expect(listed.audits.length).toBe(1);
    const audit = (await get(`/v1/audit/${listed.audits[0].audit_id}`, m.keys.pro)).json();
    expect(audit.industry_benchmark.basis).toMatchObject({ status: 'published', sector: 'fashion-apparel' });
    expect(audit.industry_benchmark.industry_average).toEqual(expect.any(Number));
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
  }, 600_000);

  it('has random keys, not the ones the source used to derive, marked bh_test_ in the key list', async () => {
    const body = (name: string) =>
      createHmac('sha256', 'brand-health-sandbox').update(name).digest('base64url');
    for (const [name, token] of Object.entries(m.keys)) {
      expect(token.endsWith(`_${body(name)}`), name).toBe(false);
      expect(token).not.toContain('01SANDBX');
    }
    const listed = await listApiKeys(t.db, { workspaceId: m.workspaces.pro });
    const pro = listed.find((k) => m.keys.pro.startsWith(k.prefix))!;
    expect(pro).toMatchObject({ mode: 'test', name: 'sandbox pro' });
    expect(pro.prefix).toMatch(/^bh_test_/);
    // The mode is part of the key: the same key presented as live is refused.
    expectProblem(await get('/v1/workspace', m.keys.pro.replace('bh_test_', 'bh_live_')), 401);
  });

  it('issues new keys when the manifest is lost, and the old ones stop working', async () => {
    const lost = path.join(path.dirname(out), 'elsewhere.json');
    const fresh = await runDemo(t.ctx, { out: lost });
    expect(fresh.keys.pro).not.toBe(m.keys.pro);
    expectProblem(await get('/v1/workspace', m.keys.pro), 401);
    expect((await get('/v1/workspace', fresh.keys.pro)).statusCode).toBe(200);
    // Writing to the usual file again keeps the fresh keys.
    fs.copyFileSync(lost, out);
    m = await runDemo(t.ctx, { out });
    expect(m.keys).toEqual(fresh.keys);
  }, 600_000);

  it('resets to the seeded state: campaigns, webhooks and audits made since are gone, quota restored', async () => {
    const key = m.keys.agency;
    const before = (await get('/v1/workspace', key)).json();
    const audit = await t.request({ method: 'POST', url: '/v1/audit/run', key, payload: {} });
    expect(audit.statusCode).toBe(200);
    const campaign = await t.request({
      method: 'POST',
      url: '/v1/campaigns',
      key,
      payload: { name: 'Spring push', start_date: '2099-03-02' },
    });
    expect(campaign.statusCode).toBe(200);
    const hook = await t.request({
      method: 'POST',
      url: '/v1/webhooks',
      key,
      payload: { url: 'https://93.184.216.34/hook', events: ['audit.completed'] },
    });
    expect(hook.statusCode).toBe(200);
    expect((await get('/v1/workspace', key)).json().audits_used).toBe(before.audits_used + 1);

    const result = await resetSandbox(t.ctx);
    expect(result).toMatchObject({ campaigns: 1, webhooks: 1, audits: 1 });
    const after = (await get('/v1/workspace', key)).json();
    expect(after.audits_used).toBe(before.audits_used);
    expect((await get('/v1/campaigns', key)).json().total).toBe(0);
    expect((await get('/v1/webhooks', key)).json().webhooks).toHaveLength(0);
    expectProblem(await get(`/v1/audit/${audit.json().audit_id}`, key), 404);
    // Seeded audits stay: the score is still there.
    expect((await get('/v1/score', key)).statusCode).toBe(200);
  });

  it('refuses a database that holds anything but sandbox data, unless forced', async () => {
    const other = await startTestService();
    try {
      const ws = await createWorkspace(other.db, { name: 'Real Customer', plan: 'pro' });
      await createApiKey(other.db, { workspaceId: ws.id });
      const target = path.join(path.dirname(out), 'refused.json');
      await expect(runDemo(other.ctx, { out: target })).rejects.toThrow(
        /holds data that is not the sandbox's \(1 workspace, 1 live API key\).*--force/,
      );
      expect(fs.existsSync(target)).toBe(false);
      expect(await other.db.selectFrom('api_keys').select('id').where('mode', '=', 'test').execute()).toEqual(
        [],
      );
    } finally {
      await other.close();
    }
  });
});
