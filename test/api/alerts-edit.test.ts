import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, startTestService, workspaceWithKey, type TestService } from '../helpers/service.ts';
import { runJob, seedMetrics } from './audits.fixtures.ts';
import { eventually } from './webhooks-receiver.ts';

let t: TestService;
beforeAll(async () => {
  t = await startTestService({ runWorkers: true });
  await t.service.startWorkers();
});
afterAll(async () => {
  await t?.close();
});

const agency = () => workspaceWithKey(t.db, { plan: 'agency' }, { platforms: [{ platform: 'instagram' }] });
const create = async (key: string, payload: object) => {
  const res = await t.request({ method: 'POST', url: '/v1/alerts', key, payload });
  expect(res.statusCode).toBe(201);
  return res.json();
};
const patch = (key: string, id: string, payload: unknown) =>
  t.request({ method: 'PATCH', url: `/v1/alerts/${id}`, key, payload: payload as object });

describe('PATCH /v1/alerts/{id}', () => {
  it('renames, changes the threshold, the channels, the cooldown and enabled; GET shows the change', async () => {
    const { key } = await agency();
    const alert = await create(key, {
      name: 'Below 40',
      condition: 'score_below',
      threshold: 40,
      email: ['a@example.com'],
    });
    expect(alert.enabled).toBe(true);
    const res = await patch(key, alert.id, {
      name: '  Below 55 ',
      threshold: 55,
      email: ['B@Example.com', 'c@example.com'],
      webhook: true,
      cooldown_minutes: 15,
      enabled: false,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      ...alert,
      name: 'Below 55',
      params: { threshold: 55 },
      channels: { email: ['b@example.com', 'c@example.com'], webhook: true, slack_url: null },
      cooldown_minutes: 15,
      enabled: false,
    });
    expect((await t.request({ method: 'GET', url: `/v1/alerts/${alert.id}`, key })).json()).toEqual(
      res.json(),
    );

    // Fields not given stay; email [] removes the recipients while the webhook channel remains.
    const emailGone = await patch(key, alert.id, { email: [] });
    expect(emailGone.statusCode).toBe(200);
    expect(emailGone.json()).toMatchObject({
      name: 'Below 55',
      params: { threshold: 55 },
      channels: { email: [], webhook: true, slack_url: null },
      enabled: false,
    });
  });

  it('keeps the parameters it was not given (score_drop points alone keeps days)', async () => {
    const { key } = await agency();
    const alert = await create(key, {
      name: 'Drop',
      condition: 'score_drop',
      points: 5,
      days: 14,
      webhook: true,
    });
    const res = await patch(key, alert.id, { points: 8 });
    expect(res.json().params).toEqual({ points: 8, days: 14 });
  });

  it('answers bad input with 400, changes the stored rule refuses with 422, and leaves the rule as it was', async () => {
    const { key } = await agency();
    const alert = await create(key, { name: 'Crisis', condition: 'crisis', email: ['a@example.com'] });
    const bad: Array<[unknown, number, string, string]> = [
      [{}, 400, 'Invalid Parameter', ''],
      [{ name: '   ' }, 400, 'Invalid Parameter', 'name'],
      [{ name: 'x'.repeat(101) }, 400, '', 'name'],
      [{ threshold: 101 }, 400, '', 'threshold'],
      [{ email: ['not-an-address'] }, 400, '', 'email'],
      [{ enabled: 'yes' }, 400, '', 'enabled'],
      [{ condition: 'score_below' }, 400, '', 'condition'],
      [{ slack_url: 'http://hooks.example.com/x' }, 400, 'Invalid URL', 'slack_url'],
      [{ slack_url: 'https://10.0.0.8/x' }, 400, 'Invalid URL', 'slack_url'],
      [{ threshold: 50 }, 422, 'Invalid Alert Change', 'threshold'],
      [{ email: [] }, 422, 'Invalid Alert Change', 'email'],
    ];
    for (const [payload, status, title, parameter] of bad) {
      const body = expectProblem(await patch(key, alert.id, payload), status, title || undefined);
      expect(JSON.stringify(body)).toContain(parameter);
    }
    const grade = await create(key, { name: 'Grade', condition: 'grade_change', webhook: true });
    expectProblem(await patch(key, grade.id, { direction: 'up' }), 422, 'Invalid Alert Change');
    expect((await t.request({ method: 'GET', url: `/v1/alerts/${alert.id}`, key })).json()).toEqual(alert);
  });

  it("is 404 for an unknown id and for another tenant's alert, 403 without write scope or below agency", async () => {
    const { key } = await agency();
    const alert = await create(key, { name: 'Crisis', condition: 'crisis', webhook: true });
    const other = await agency();
    expectProblem(await patch(other.key, alert.id, { name: 'Mine now' }), 404, 'Not Found');
    expectProblem(await patch(key, 'alr_missing', { name: 'x' }), 404, 'Not Found');
    const readOnly = await workspaceWithKey(t.db, { plan: 'agency' }, { scopes: ['read'] });
    expectProblem(await patch(readOnly.key, alert.id, { name: 'x' }), 403);
    const pro = await workspaceWithKey(t.db, { plan: 'pro' });
    expectProblem(await patch(pro.key, alert.id, { name: 'x' }), 403);
    expect((await t.request({ method: 'GET', url: `/v1/alerts/${alert.id}`, key })).json().name).toBe(
      'Crisis',
    );
  });

  it('a disabled rule is not evaluated; enabled again, it fires', async () => {
    const { key, workspace } = await agency();
    await seedMetrics(t.db, workspace.id, { platforms: ['instagram'], seed: 3, days: 60, followers: 1000 });
    const off = await create(key, { name: 'Off', condition: 'score_below', threshold: 100, webhook: true });
    expect((await patch(key, off.id, { enabled: false })).json().enabled).toBe(false);
    // Evaluated after `off` (rules go oldest first): once it fired, `off` was looked at and passed over.
    const control = await create(key, {
      name: 'On',
      condition: 'score_below',
      threshold: 100,
      webhook: true,
    });
    const audit = async () => {
      const started = (await t.request({ method: 'POST', url: '/v1/audit/run', key })).json();
      await runJob(t.ctx, started.audit_id);
    };
    const history = async (id: string) =>
      (await t.request({ method: 'GET', url: `/v1/alerts/${id}/history`, key })).json();

    await audit();
    await eventually(async () => ((await history(control.id)).total === 1 ? true : undefined));
    expect((await history(off.id)).total).toBe(0);
    expect((await t.request({ method: 'GET', url: `/v1/alerts/${off.id}`, key })).json().status).toBe('ok');

    await patch(key, off.id, { enabled: true });
    await audit();
    await eventually(async () => ((await history(off.id)).total === 1 ? true : undefined));
  });
});
