import type { LightMyRequestResponse } from 'fastify';
import { Value } from 'typebox/value';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/admin/keys.ts';
import { createSubscriber, grantEntitlement, revokeEntitlement } from '../../src/admin/tacsi.ts';
import { createSector } from '../../src/admin/workspaces.ts';
import { addDays } from '../../src/core/days.ts';
import * as S from '../../src/tacsi/schemas.ts';
import { expectProblem, startTestService, workspaceWithKey, type TestService } from '../helpers/service.ts';

// GET /v1/tacsi/sectors (extension): the sectors a subscriber key may read, with their feeds; the
// uniform Not Licensed denial for everyone else (docs/tacsi.md, "Licensed sectors").
const TODAY = '2025-03-17';
const PILLARS = ['impact', 'momentum', 'presence', 'reach', 'sentiment'];
const ALL_FEEDS = ['weekly', 'history', 'pillars', 'daily'];
let t: TestService;
const keys: Record<string, string> = {};

type Grant = Omit<Parameters<typeof grantEntitlement>[1], 'subscriberId'>;
const HOLDERS: Array<[string, Grant[]]> = [
  ['sectorAlpha', [{ kind: 'sector_feed', sector: 'alpha-goods' }]],
  [
    'dailyBeta',
    [
      { kind: 'sector_feed', sector: 'beta-foods' },
      { kind: 'daily_addon', sector: 'beta-foods' },
      { kind: 'pillar_feed', sector: 'alpha-goods', pillar: 'reach' },
    ],
  ],
  ['pillarAlpha', [{ kind: 'pillar_feed', sector: 'alpha-goods', pillar: 'sentiment' }]],
  ['full', [{ kind: 'full_database' }]],
  ['exclusiveGamma', [{ kind: 'sector_feed', sector: 'gamma', exclusive: true }]],
  ['lockedGamma', [{ kind: 'sector_feed', sector: 'gamma' }]],
  ['addonOnly', [{ kind: 'daily_addon', sector: 'alpha-goods' }]],
  ['expired', [{ kind: 'sector_feed', sector: 'alpha-goods', validUntil: addDays(TODAY, -1) }]],
  ['future', [{ kind: 'sector_feed', sector: 'alpha-goods', validFrom: addDays(TODAY, 1) }]],
  ['revoked', [{ kind: 'sector_feed', sector: 'alpha-goods' }]],
  ['noRead', [{ kind: 'full_database' }]],
];

beforeAll(async () => {
  t = await startTestService();
  t.setNow(new Date(`${TODAY}T06:00:00Z`));
  await createSector(t.db, 'alpha-goods', 'Alpha Goods');
  await createSector(t.db, 'beta-foods', 'Beta Foods');
  await createSector(t.db, 'gamma', 'Gamma');
  await createSector(t.db, 'b2b-tools', 'B2B Tools', false);
  for (const [name, grants] of HOLDERS) {
    const subscriberId = await createSubscriber(t.db, `Subscriber ${name}`);
    for (const g of grants) {
      const id = await grantEntitlement(t.db, { validFrom: '2024-01-01', ...g, subscriberId });
      if (name === 'revoked') await revokeEntitlement(t.db, id, t.ctx.now());
    }
    const scopes = name === 'noRead' ? (['write'] as const) : (['read'] as const);
    keys[name] = (await createApiKey(t.db, { subscriberId }, { scopes: [...scopes] })).key;
  }
  keys.workspace = (await workspaceWithKey(t.db, { plan: 'enterprise' })).key;
});
afterAll(async () => t?.close());

const get = (url: string, key?: string) => t.request({ method: 'GET', url, key });

async function sectorsOf(key: string) {
  const res = await get('/v1/tacsi/sectors', keys[key]);
  expect(res.statusCode, res.body).toBe(200);
  expect(res.headers['cache-control']).toBe('private, no-cache');
  const body = res.json();
  expect(Value.Errors(S.LicensedSectors, body)).toEqual([]);
  return body.sectors as Array<{ slug: string; name: string; feeds: string[]; pillars: string[] }>;
}

describe('GET /v1/tacsi/sectors', () => {
  it('lists exactly the sectors, feeds and pillars each subscriber key is licensed for', async () => {
    // Written out from the entitlement rules (docs/tacsi.md), not derived from the code.
    const every = { feeds: ALL_FEEDS, pillars: PILLARS };
    const sectorFeed = { feeds: ['weekly', 'history', 'pillars'], pillars: PILLARS };
    expect(await sectorsOf('sectorAlpha')).toEqual([
      { slug: 'alpha-goods', name: 'Alpha Goods', ...sectorFeed },
    ]);
    expect(await sectorsOf('dailyBeta')).toEqual([
      { slug: 'alpha-goods', name: 'Alpha Goods', feeds: ['pillars'], pillars: ['reach'] },
      { slug: 'beta-foods', name: 'Beta Foods', ...every },
    ]);
    expect(await sectorsOf('pillarAlpha')).toEqual([
      { slug: 'alpha-goods', name: 'Alpha Goods', feeds: ['pillars'], pillars: ['sentiment'] },
    ]);
    // The Full Database: the headline and every consumer sector but the one held exclusively by another.
    expect(await sectorsOf('full')).toEqual([
      { slug: 'headline', name: 'Headline (all consumer sectors)', ...every },
      { slug: 'alpha-goods', name: 'Alpha Goods', ...every },
      { slug: 'beta-foods', name: 'Beta Foods', ...every },
    ]);
    expect(await sectorsOf('exclusiveGamma')).toEqual([{ slug: 'gamma', name: 'Gamma', ...sectorFeed }]);
    // Subscribers with nothing valid today get an empty list: nothing about what they lack.
    for (const key of ['lockedGamma', 'addonOnly', 'expired', 'future', 'revoked']) {
      expect(await sectorsOf(key), key).toEqual([]);
    }
  });

  it('agrees with the feeds: a listed feed is never denied, an unlisted one always is', async () => {
    const mismatches: string[] = [];
    for (const key of Object.keys(keys).filter((k) => k !== 'workspace' && k !== 'noRead')) {
      const listed = new Map((await sectorsOf(key)).map((s) => [s.slug, s]));
      for (const sector of ['headline', 'alpha-goods', 'beta-foods', 'gamma', 'b2b-tools']) {
        for (const feed of ALL_FEEDS) {
          for (const pillar of feed === 'pillars' ? PILLARS : [undefined]) {
            const url = `/v1/tacsi/${feed}?sector=${sector}${pillar ? `&pillar=${pillar}` : ''}`;
            const denied = (await get(url, keys[key])).statusCode === 403;
            const entry = listed.get(sector);
            const inList = !!entry?.feeds.includes(feed) && (!pillar || entry.pillars.includes(pillar));
            if (denied === inList) mismatches.push(`${key} ${url}: listed ${inList}, denied ${denied}`);
          }
        }
      }
    }
    expect(mismatches).toEqual([]);
  });

  it('denies workspace keys and keys without read with the uniform denial, byte for byte', async () => {
    const reference = await get('/v1/tacsi/weekly?sector=alpha-goods', keys.workspace);
    expectProblem(reference, 403, 'Not Licensed');
    const normalise = (res: LightMyRequestResponse, path: string) =>
      res.body.replace(res.json().request_id, 'REQ').replace(`"${path}"`, '"PATH"');
    // Rate-limit headers describe the caller's own key; the length follows the path in `instance`.
    const PER_REQUEST = new Set(['x-request-id', 'ratelimit', 'ratelimit-policy', 'date', 'content-length']);
    const headers = (res: LightMyRequestResponse) =>
      Object.keys(res.headers)
        .sort()
        .map((h) => [h, PER_REQUEST.has(h) ? '*' : res.headers[h]]);
    const denials = [
      await get('/v1/tacsi/sectors', keys.workspace),
      await get('/v1/tacsi/sectors', keys.noRead),
    ];
    for (const res of denials) {
      expectProblem(res, 403, 'Not Licensed');
      expect(res.json().instance).toBe('/v1/tacsi/sectors');
      expect(normalise(res, '/v1/tacsi/sectors')).toBe(normalise(reference, '/v1/tacsi/weekly'));
      expect(headers(res)).toEqual(headers(reference));
      expect(res.headers['content-length']).toBe(denials[0]!.headers['content-length']);
    }
  });

  it('is documented as listLicensedSectors with a named schema whose example is valid', async () => {
    const doc = (await get('/openapi.json')).json();
    const op = doc.paths['/v1/tacsi/sectors'].get;
    expect(op.operationId).toBe('listLicensedSectors');
    expect(JSON.stringify(op.responses['200'])).toContain('#/components/schemas/LicensedSectors');
    for (const example of doc.components.schemas.LicensedSectors.examples) {
      expect(Value.Errors(S.LicensedSectors, example)).toEqual([]);
    }
  });

  it('takes no parameters and needs a key', async () => {
    expectProblem(await get('/v1/tacsi/sectors?sector=alpha-goods', keys.full), 400, 'Invalid Parameter');
    expectProblem(await get('/v1/tacsi/sectors'), 401, 'Unauthorized');
  });
});
