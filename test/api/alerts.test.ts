import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configureWebhooks } from '../../src/webhooks/settings.ts';
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp.ts';
import { expectProblem, startTestService, workspaceWithKey, type TestService } from '../helpers/service.ts';
import { runJob, seedMetrics } from './audits.fixtures.ts';
import { eventually, startReceiver, type Receiver } from './webhooks-receiver.ts';

let t: TestService;
let rx: Receiver;
let smtp: TestSmtpServer;
beforeAll(async () => {
  rx = await startReceiver();
  smtp = await startSmtpServer();
  t = await startTestService(
    { allowLoopbackFetch: true, runWorkers: true },
    { SMTP_URL: smtp.url, MAIL_FROM: 'Brand Health <alerts@example.test>' },
  );
  configureWebhooks(t.ctx, { ca: rx.cert });
  await t.service.startWorkers();
});
afterAll(async () => {
  await t?.close();
  await rx?.close();
  await smtp?.close();
});

const create = (key: string, payload: object) =>
  t.request({ method: 'POST', url: '/v1/alerts', key, payload });

async function agency() {
  return workspaceWithKey(t.db, { plan: 'agency' }, { platforms: [{ platform: 'instagram' }] });
}

describe('/v1/alerts: rules', () => {
  it('creates, lists, reads and deletes an alert; another tenant sees 404', async () => {
    const { key, workspace } = await agency();
    const res = await create(key, {
      name: 'Below 40',
      condition: 'score_below',
      threshold: 40,
      email: ['Team@Example.com', 'team@example.com'],
    });
    expect(res.statusCode).toBe(201);
    const alert = res.json();
    expect(alert).toMatchObject({
      id: expect.stringMatching(/^alr_/),
      workspace_id: workspace.id,
      name: 'Below 40',
      condition: 'score_below',
      params: { threshold: 40 },
      channels: { email: ['team@example.com'], webhook: false, slack_url: null },
      cooldown_minutes: 60,
      status: 'ok',
      last_triggered_at: null,
    });
    const listed = await t.request({ method: 'GET', url: '/v1/alerts', key });
    expect(listed.json().alerts.map((a: { id: string }) => a.id)).toEqual([alert.id]);
    expect((await t.request({ method: 'GET', url: `/v1/alerts/${alert.id}`, key })).json()).toEqual(alert);
    const history = await t.request({ method: 'GET', url: `/v1/alerts/${alert.id}/history`, key });
    expect(history.json()).toEqual({ episodes: [], total: 0, limit: 20, offset: 0 });

    const other = await agency();
    expectProblem(await t.request({ method: 'GET', url: `/v1/alerts/${alert.id}`, key: other.key }), 404);
    expectProblem(await t.request({ method: 'DELETE', url: `/v1/alerts/${alert.id}`, key: other.key }), 404);
    const deleted = await t.request({ method: 'DELETE', url: `/v1/alerts/${alert.id}`, key });
    expect(deleted.json()).toEqual({ id: alert.id, deleted: true });
    expectProblem(await t.request({ method: 'GET', url: `/v1/alerts/${alert.id}/history`, key }), 404);
  });

  it('has the plan rules of webhooks: 403 Plan Required below agency, 403 without write scope', async () => {
    const pro = await workspaceWithKey(t.db, { plan: 'pro' });
    expectProblem(await create(pro.key, { name: 'x', condition: 'crisis', webhook: true }), 403);
    expectProblem(await t.request({ method: 'GET', url: '/v1/alerts', key: pro.key }), 403);
    const readOnly = await workspaceWithKey(t.db, { plan: 'agency' }, { scopes: ['read'] });
    expectProblem(await create(readOnly.key, { name: 'x', condition: 'crisis', webhook: true }), 403);
  });

  it('answers bad rules with 400 problems naming the field', async () => {
    const { key } = await agency();
    const cases: Array<[object, string, string]> = [
      [{ name: 'x', condition: 'score_below', webhook: true }, 'threshold', 'Invalid Parameter'],
      [{ name: 'x', condition: 'score_drop', webhook: true }, 'points', 'Invalid Parameter'],
      [{ name: 'x', condition: 'crisis', threshold: 3, webhook: true }, 'threshold', 'Invalid Parameter'],
      [{ name: 'x', condition: 'pillar_change', points: 5, webhook: true }, 'pillar', 'Invalid Parameter'],
      [
        { name: 'x', condition: 'grade_change', direction: 'up', webhook: true },
        'direction',
        'Invalid Parameter',
      ],
      [{ name: '  ', condition: 'crisis', webhook: true }, 'name', 'Invalid Parameter'],
      [{ name: 'x', condition: 'crisis' }, 'email', 'Invalid Parameter'],
      [
        { name: 'x', condition: 'crisis', slack_url: 'http://hooks.example.com/x' },
        'slack_url',
        'Invalid URL',
      ],
      [{ name: 'x', condition: 'crisis', slack_url: 'https://10.0.0.8/x' }, 'slack_url', 'Invalid URL'],
    ];
    for (const [payload, parameter, title] of cases) {
      const body = expectProblem(await create(key, payload), 400, title);
      expect(JSON.stringify(body)).toContain(parameter);
    }
    // Schema-level failures are 400s too, never 500s.
    expectProblem(await create(key, { name: 'x', condition: 'nope', webhook: true }), 400);
    expectProblem(
      await create(key, { name: 'x', condition: 'score_below', threshold: 101, webhook: true }),
      400,
    );
    expectProblem(await create(key, { name: 'x', condition: 'crisis', email: ['not-an-address'] }), 400);
    expect((await t.request({ method: 'GET', url: '/v1/alerts', key })).json().alerts).toEqual([]);
  });
});

describe('alerts: firing and resolving', () => {
  it('a score drop sends one email, one signed alert.triggered and one Slack post, and resolves when the score recovers', async () => {
    const { key, workspace } = await agency();
    const good = { platforms: ['instagram' as const], seed: 5, days: 120, followers: 50_000 };
    const bad = { platforms: ['instagram' as const], seed: 3, days: 120, followers: 1000 };
    await seedMetrics(t.db, workspace.id, good);
    const audit = async () => {
      const started = (await t.request({ method: 'POST', url: '/v1/audit/run', key })).json();
      await runJob(t.ctx, started.audit_id);
      return (await t.request({ method: 'GET', url: `/v1/audit/${started.audit_id}`, key })).json();
    };
    const first = await audit();

    const hook = await t.request({
      method: 'POST',
      url: '/v1/webhooks',
      key,
      payload: { url: rx.url('/events'), events: ['alert.triggered', 'alert.resolved'] },
    });
    expect(hook.statusCode).toBe(200);
    const secret = hook.json().secret as string;
    const alert = (
      await create(key, {
        name: 'Fell 5 points',
        condition: 'score_drop',
        points: 5,
        days: 7,
        email: ['brand@example.com'],
        webhook: true,
        slack_url: rx.url('/slack'),
        cooldown_minutes: 0,
      })
    ).json();

    await seedMetrics(t.db, workspace.id, bad);
    const second = await audit();
    expect(first.score - second.score).toBeGreaterThanOrEqual(5);

    const mail = await smtp.waitFor((m) => m.envelope.to.includes('brand@example.com'));
    expect(mail.parsed.subject).toBe(`Alert: Fell 5 points (${workspace.name})`);
    expect(mail.parsed.text).toContain('The score fell');
    const slack = await eventually(async () => rx.requestsTo('/slack')[0], 20_000, 'the Slack post');
    const slackBody = JSON.parse(slack.body);
    expect(slackBody.text).toContain('Alert: Fell 5 points');
    expect(slackBody.blocks[0]).toMatchObject({ type: 'header' });
    const delivery = await eventually(
      async () => rx.requestsTo('/events')[0],
      20_000,
      'the alert.triggered delivery',
    );
    const event = new Webhook(secret).verify(delivery.body, delivery.headers) as any;
    expect(event).toMatchObject({
      type: 'alert.triggered',
      data: {
        alert_id: alert.id,
        workspace_id: workspace.id,
        condition: 'score_drop',
        drivers: { score: second.score, peak_score: first.score, days: 7, audit_id: second.audit_id },
      },
    });
    expect(event.data.drivers.drop).toBeCloseTo(first.score - second.score, 1);

    const firing = await eventually(async () => {
      const h = (await t.request({ method: 'GET', url: `/v1/alerts/${alert.id}/history`, key })).json();
      return h.episodes[0]?.notifications.every((n: { status: string }) => n.status === 'sent')
        ? h
        : undefined;
    });
    expect(firing.total).toBe(1);
    expect(firing.episodes[0]).toMatchObject({
      id: event.data.episode_id,
      status: 'firing',
      resolved_at: null,
    });
    expect(firing.episodes[0].notifications.map((n: any) => `${n.phase}/${n.channel}`)).toEqual([
      'triggered/email',
      'triggered/slack',
    ]);
    expect((await t.request({ method: 'GET', url: `/v1/alerts/${alert.id}`, key })).json().status).toBe(
      'firing',
    );

    // Still down: the open episode is not notified again.
    await audit();
    await seedMetrics(t.db, workspace.id, good);
    await audit();
    const resolved = await eventually(async () => {
      const h = (await t.request({ method: 'GET', url: `/v1/alerts/${alert.id}/history`, key })).json();
      return h.episodes[0]?.status === 'resolved' &&
        h.episodes[0].notifications.filter((n: any) => n.status === 'sent').length === 4
        ? h
        : undefined;
    });
    expect(resolved.total).toBe(1);
    expect(resolved.episodes[0].resolution.summary).toContain('back within');
    await smtp.waitFor((m) => m.parsed.subject === `Resolved: Fell 5 points (${workspace.name})`);
    const resolvedEvent = await eventually(
      async () => rx.requestsTo('/events').find((r) => JSON.parse(r.body).type === 'alert.resolved'),
      20_000,
      'the alert.resolved delivery',
    );
    expect(new Webhook(secret).verify(resolvedEvent.body, resolvedEvent.headers)).toMatchObject({
      data: { alert_id: alert.id, episode_id: event.data.episode_id },
    });
    expect(smtp.received.filter((m) => m.envelope.to.includes('brand@example.com'))).toHaveLength(2);
    expect(rx.requestsTo('/slack')).toHaveLength(2);
    expect(rx.requestsTo('/events')).toHaveLength(2);
  });
});
