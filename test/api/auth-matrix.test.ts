import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, revokeApiKey } from '../../src/admin/keys.ts';
import { createSubscriber } from '../../src/admin/tacsi.ts';
import { expectProblem, startTestService, workspaceWithKey, type TestService } from '../helpers/service.ts';
import type { Plan } from '../../src/core/catalog.ts';

/** Every endpoint of the spec with its minimum plan (Authentication, item 2). */
const ENDPOINTS: Array<{
  method: 'GET' | 'POST';
  url: string;
  plan: Plan;
  payload?: object;
  denial: string;
}> = [
  { method: 'GET', url: '/v1/score', plan: 'pro', denial: 'Plan Required' },
  { method: 'GET', url: '/v1/score/history', plan: 'pro', denial: 'Plan Required' },
  { method: 'POST', url: '/v1/audit/run', plan: 'pro', payload: {}, denial: 'Plan Required' },
  { method: 'GET', url: '/v1/audit/aud_01ABCDEFGHJKMNPQRSTVWXYZ01', plan: 'pro', denial: 'Plan Required' },
  { method: 'GET', url: '/v1/audits', plan: 'pro', denial: 'Plan Required' }, // extension
  { method: 'GET', url: '/v1/platforms', plan: 'pro', denial: 'Plan Required' },
  { method: 'GET', url: '/v1/workspace', plan: 'pro', denial: 'Plan Required' },
  {
    method: 'POST',
    url: '/v1/studio/score',
    plan: 'agency',
    payload: { content_type: 'text', content: 'hello', platform: 'instagram' },
    denial: 'Plan Required',
  },
  { method: 'GET', url: '/v1/campaigns', plan: 'agency', denial: 'Plan Required' },
  {
    method: 'POST',
    url: '/v1/campaigns',
    plan: 'agency',
    payload: { name: 'x', start_date: '2099-01-01' },
    denial: 'Plan Required',
  },
  {
    method: 'POST',
    url: '/v1/webhooks',
    plan: 'agency',
    payload: { url: 'https://example.com/hook', events: ['audit.completed'] },
    denial: 'Plan Required',
  },
  { method: 'GET', url: '/v1/export/clients', plan: 'agency', denial: 'Forbidden' },
  { method: 'GET', url: '/v1/export/creators', plan: 'agency', denial: 'Forbidden' },
  { method: 'GET', url: '/v1/export/scores', plan: 'agency', denial: 'Forbidden' },
];
const TACSI = [
  '/v1/tacsi/weekly?sector=fashion',
  '/v1/tacsi/history?sector=fashion',
  '/v1/tacsi/pillars?sector=fashion&pillar=reach',
  '/v1/tacsi/daily?sector=fashion',
  '/v1/tacsi/sectors', // extension
];
const PLANS: Plan[] = ['free', 'pro', 'agency', 'enterprise'];
const RANK: Record<Plan, number> = { free: 0, pro: 1, agency: 2, enterprise: 3 };

let t: TestService;
const keys: Record<string, string> = {};
beforeAll(async () => {
  t = await startTestService();
  for (const plan of PLANS) {
    ({ key: keys[plan] } = await workspaceWithKey(
      t.db,
      { plan, accountType: plan === 'agency' || plan === 'enterprise' ? 'agency' : 'brand' },
      { platforms: [{ platform: 'instagram' }] },
    ));
  }
  const { workspace } = await workspaceWithKey(t.db, { plan: 'enterprise' });
  const revoked = await createApiKey(t.db, { workspaceId: workspace.id });
  await revokeApiKey(t.db, revoked.id, t.ctx.now());
  keys.revoked = revoked.key;
  keys.expired = (
    await createApiKey(t.db, { workspaceId: workspace.id }, { expiresAt: new Date(Date.now() - 1000) })
  ).key;
  // Well-formed but unknown: the right shape, a key id that was never issued.
  keys.unknown = 'bh_live_01ABCDEFGHJKMNPQRSTVWXYZ01_' + 'A'.repeat(43);
  // A real key id with a wrong secret.
  keys.wrongSecret = keys.enterprise!.slice(0, -43) + 'B'.repeat(43);
  keys.subscriber = (
    await createApiKey(
      t.db,
      { subscriberId: await createSubscriber(t.db, 'Research Fund') },
      { scopes: ['read'] },
    )
  ).key;
});
afterAll(async () => t?.close());

function send(e: { method: 'GET' | 'POST'; url: string; payload?: object }, authorization?: string) {
  return t.request({
    method: e.method,
    url: e.url,
    payload: e.payload,
    headers: authorization ? { authorization } : {},
  });
}

describe('auth matrix', () => {
  it.each(ENDPOINTS)(
    '$method $url: 401 for missing, malformed, unknown, wrong-secret, revoked and expired keys',
    async (e) => {
      const attempts = [
        undefined,
        'Bearer',
        'Bearer not-a-key',
        'Basic dXNlcjpwYXNz',
        `Bearer ${keys.unknown}`,
        `Bearer ${keys.wrongSecret}`,
        `Bearer ${keys.revoked}`,
        `Bearer ${keys.expired}`,
      ];
      for (const authorization of attempts) {
        const res = await send(e, authorization);
        expectProblem(res, 401, 'Unauthorized');
        expect(res.headers['www-authenticate']).toContain('Bearer');
      }
    },
  );

  it.each(ENDPOINTS)('$method $url: each plan is let in exactly from the minimum plan up', async (e) => {
    for (const plan of PLANS) {
      const res = await send(e, `Bearer ${keys[plan]}`);
      if (RANK[plan] < RANK[e.plan]) {
        expectProblem(res, 403, e.denial);
      } else {
        expect([401, 403], `${plan} on ${e.url}: ${res.body}`).not.toContain(res.statusCode);
        expect(res.statusCode, `${plan} on ${e.url}: ${res.body}`).toBeLessThan(500);
      }
    }
  });

  it.each(ENDPOINTS)('$method $url: a TACSI subscriber key reaches no workspace endpoint', async (e) => {
    expectProblem(await send(e, `Bearer ${keys.subscriber}`), 403, 'Forbidden');
  });

  it.each(TACSI)('GET %s: workspace keys of every plan get the uniform TACSI denial', async (url) => {
    for (const plan of PLANS) {
      expectProblem(await t.request({ method: 'GET', url, key: keys[plan] }), 403, 'Not Licensed');
    }
    expectProblem(await t.request({ method: 'GET', url, key: keys.revoked }), 401, 'Unauthorized');
  });
});
