import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, startTestService, workspaceWithKey, type TestService } from '../helpers/service.ts';

let t: TestService;
const NOW = new Date('2030-01-15T12:00:00Z');

beforeAll(async () => {
  t = await startTestService();
  t.setNow(NOW);
});
afterAll(async () => t?.close());

function create(key: string, body: Record<string, unknown>) {
  return t.request({ method: 'POST', url: '/v1/annotations', key, payload: body });
}

describe('/v1/annotations', () => {
  it('creates, lists in day order within the window, and deletes', async () => {
    const { workspace, key } = await workspaceWithKey(t.db, { plan: 'pro' });
    const a = await create(key, {
      day: '2030-01-10',
      text: '  Spring launch ',
      category: 'launch',
      author: 'Dana',
    });
    expect(a.statusCode).toBe(201);
    expect(a.json()).toMatchObject({
      workspace_id: workspace.id,
      day: '2030-01-10',
      text: 'Spring launch',
      category: 'launch',
      author: 'Dana',
      created_at: NOW.toISOString(),
    });
    const b = await create(key, { day: '2030-01-02', text: 'Press mention' });
    expect(b.json()).toMatchObject({ category: 'note', author: null });
    await create(key, { day: '2027-01-02', text: 'Too old for the default window' });

    const list = await t.request({ method: 'GET', url: '/v1/annotations', key });
    expect(list.statusCode).toBe(200);
    expect(list.json().annotations.map((x: { day: string }) => x.day)).toEqual(['2030-01-02', '2030-01-10']);

    const ranged = await t.request({
      method: 'GET',
      url: '/v1/annotations?from=2027-01-01&to=2030-01-05',
      key,
    });
    expect(ranged.json().annotations.map((x: { text: string }) => x.text)).toEqual([
      'Too old for the default window',
      'Press mention',
    ]);

    const del = await t.request({ method: 'DELETE', url: `/v1/annotations/${a.json().id}`, key });
    expect(del.json()).toEqual({ id: a.json().id, deleted: true });
    const again = await t.request({ method: 'DELETE', url: `/v1/annotations/${a.json().id}`, key });
    expectProblem(again, 404, 'Not Found');
  });

  it('keeps tenants apart', async () => {
    const one = await workspaceWithKey(t.db, { plan: 'pro' });
    const two = await workspaceWithKey(t.db, { plan: 'pro' });
    const a = await create(one.key, { day: '2030-01-10', text: 'Mine' });
    expectProblem(
      await t.request({ method: 'DELETE', url: `/v1/annotations/${a.json().id}`, key: two.key }),
      404,
    );
    const list = await t.request({ method: 'GET', url: '/v1/annotations', key: two.key });
    expect(list.json().annotations).toEqual([]);
  });

  it('refuses bad input with problems', async () => {
    const { key } = await workspaceWithKey(t.db, { plan: 'pro' });
    expectProblem(await create(key, { day: '2030-02-30', text: 'x' }), 400);
    expectProblem(await create(key, { day: '2030-01-10', text: '   ' }), 400);
    expectProblem(await create(key, { day: '2030-01-10', text: 'x', category: 'gossip' }), 400);
    expectProblem(await create(key, { day: '2030-01-10', text: 'x'.repeat(501) }), 400);
    expectProblem(await create(key, { day: '2030-01-10', text: 'x', extra: 1 }), 400);
    expectProblem(
      await t.request({ method: 'GET', url: '/v1/annotations?from=2030-01-10&to=2030-01-01', key }),
      400,
    );
    // One list covers at most 3660 days: a range of 3660 days is refused, 3659 is answered.
    const tooLong = await t.request({
      method: 'GET',
      url: '/v1/annotations?from=2020-01-01&to=2030-01-08',
      key,
    });
    expectProblem(tooLong, 400);
    expect(tooLong.json()).toMatchObject({
      title: 'Invalid Date Range',
      detail: expect.stringContaining('3660 days'),
    });
    const longest = await t.request({
      method: 'GET',
      url: '/v1/annotations?from=2020-01-02&to=2030-01-08',
      key,
    });
    expect(longest.statusCode).toBe(200);
  });
});
