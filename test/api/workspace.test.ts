import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, workspaceWithKey, expectProblem, type TestService } from '../helpers/service.ts';

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(async () => t?.close());

describe('GET /v1/workspace and /v1/platforms', () => {
  it('answers the spec resource for a pro workspace', async () => {
    const { workspace, key } = await workspaceWithKey(
      t.db,
      { plan: 'pro', name: 'Acme' },
      {
        platforms: [
          { platform: 'instagram', followers: 12000 },
          { platform: 'youtube', followers: 5000 },
        ],
      },
    );
    const res = await t.request({ method: 'GET', url: '/v1/workspace', key });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      id: workspace.id,
      name: 'Acme',
      plan: 'pro',
      billing_period: 'monthly',
      team_members: 0,
      team_limit: 5,
      platforms_connected: 2,
      platform_limit: 3,
      audits_used: 0,
      audits_limit: 10,
      current_core_score: null,
    });
    expect(res.headers['x-request-id']).toMatch(/^req_/);

    const platforms = await t.request({ method: 'GET', url: '/v1/platforms', key });
    expect(platforms.statusCode).toBe(200);
    const body = platforms.json();
    expect(body.total_connected).toBe(2);
    expect(body.available).toEqual(['tiktok', 'twitter', 'facebook']);
    expect(body.platforms[0]).toMatchObject({ name: 'instagram', status: 'connected', followers: 12000 });
    expect(body.platforms[1]).toMatchObject({ name: 'youtube', subscribers: 5000 });
    expect(body.platforms[1].followers).toBeUndefined();
  });

  it('rejects a free plan with 403 Plan Required and a missing key with 401', async () => {
    const { key } = await workspaceWithKey(t.db, { plan: 'free' });
    expectProblem(await t.request({ method: 'GET', url: '/v1/workspace', key }), 403, 'Plan Required');
    expectProblem(await t.request({ method: 'GET', url: '/v1/workspace' }), 401, 'Unauthorized');
  });

  it('answers unknown routes and bad parameters with problem+json', async () => {
    const { key } = await workspaceWithKey(t.db, { plan: 'pro' });
    expectProblem(await t.request({ method: 'GET', url: '/v1/nope', key }), 404, 'Not Found');
    const res = expectProblem(await t.request({ method: 'GET', url: '/v1/platforms?bogus=1', key }), 400);
    expect(res.errors[0].parameter).toBe('bogus');
  });
});
