// Alert evaluation through its job entry point (evaluateAlerts, what `alerts.evaluate` runs): two
// instances racing one change, the crisis signal a score carries (formula v3's; the current engine
// does not compute one yet, so the change is given here), cooldown, and connections needing the brand.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluateAlerts, type EvaluateJob } from '../../src/alerts/evaluate.ts';
import type { Service } from '../../src/service.ts';
import { configureWebhooks } from '../../src/webhooks/settings.ts';
import { usingPostgres } from '../helpers/database.ts';
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp.ts';
import { secondInstance, startTestService, workspaceWithKey, type TestService } from '../helpers/service.ts';
import { eventually, startReceiver, type Receiver } from './webhooks-receiver.ts';

let t: TestService;
let other: Service | null = null;
let rx: Receiver;
let smtp: TestSmtpServer;
beforeAll(async () => {
  rx = await startReceiver();
  smtp = await startSmtpServer();
  const env = { SMTP_URL: smtp.url, MAIL_FROM: 'Brand Health <alerts@example.test>' };
  t = await startTestService({ allowLoopbackFetch: true, runWorkers: true }, env);
  configureWebhooks(t.ctx, { ca: rx.cert });
  await t.service.startWorkers();
  // A second instance on the same PostgreSQL database (PGlite is one process's: the race runs there in one).
  if (usingPostgres()) other = await secondInstance(t, env, () => new Date());
});
afterAll(async () => {
  await other?.stop();
  await t?.close();
  await rx?.close();
  await smtp?.close();
});

async function alertOn(payload: object) {
  const fixture = await workspaceWithKey(
    t.db,
    { plan: 'agency' },
    { platforms: [{ platform: 'instagram' }] },
  );
  const res = await t.request({ method: 'POST', url: '/v1/alerts', key: fixture.key, payload });
  expect(res.statusCode).toBe(201);
  return { ...fixture, alert: res.json() as { id: string } };
}

const change = (score: number, extra: object = {}): NonNullable<EvaluateJob['change']> => ({
  score,
  previous_score: 60,
  grade: 'moderate',
  previous_grade: 'strong',
  changed_at: new Date().toISOString(),
  ...extra,
});

const episodes = (ruleId: string) =>
  t.db
    .selectFrom('alert_episodes')
    .selectAll()
    .where('rule_id', '=', ruleId)
    .orderBy('triggered_at')
    .execute();

const events = (workspaceId: string) =>
  t.db.selectFrom('events').select(['type', 'data']).where('workspace_id', '=', workspaceId).execute();

describe('alerts: evaluation', () => {
  it('two instances evaluating the same change open one episode and send one alert', async () => {
    const { workspace, alert } = await alertOn({
      name: 'Below 50',
      condition: 'score_below',
      threshold: 50,
      email: ['race@example.com'],
      webhook: true,
      slack_url: rx.url('/race-slack'),
    });
    const job = { workspaceId: workspace.id, change: change(41.3) };
    const second = other ?? t.service;
    const outcomes = await Promise.all([evaluateAlerts(t.ctx, job), evaluateAlerts(second.ctx, job)]);
    expect(outcomes.flatMap((o) => o.triggered)).toHaveLength(1);
    expect(await episodes(alert.id)).toHaveLength(1);
    expect((await events(workspace.id)).map((e) => e.type)).toEqual(['alert.triggered']);
    await smtp.waitFor((m) => m.envelope.to.includes('race@example.com'));
    await eventually(async () => rx.requestsTo('/race-slack')[0], 20_000, 'the Slack post');

    // Resolving races the same way.
    const recovered = { workspaceId: workspace.id, change: change(55) };
    const resolved = await Promise.all([
      evaluateAlerts(t.ctx, recovered),
      evaluateAlerts(second.ctx, recovered),
    ]);
    expect(resolved.flatMap((o) => o.resolved)).toHaveLength(1);
    expect((await events(workspace.id)).map((e) => e.type).sort()).toEqual([
      'alert.resolved',
      'alert.triggered',
    ]);
    await eventually(async () => (rx.requestsTo('/race-slack').length === 2 ? true : undefined));
    await smtp.waitFor(
      (m) => m.envelope.to.includes('race@example.com') && m.parsed.subject!.startsWith('Resolved'),
    );
    expect(smtp.received.filter((m) => m.envelope.to.includes('race@example.com'))).toHaveLength(2);
    expect(rx.requestsTo('/race-slack')).toHaveLength(2);
  });

  it('fires on the crisis signal a score carries, resolves when it clears, and waits out the cooldown', async () => {
    const { workspace, alert } = await alertOn({
      name: 'Crisis',
      condition: 'crisis',
      webhook: true,
      cooldown_minutes: 30,
    });
    const crisis = {
      active: true,
      negative_share: 0.42,
      baseline_negative_share: 0.11,
      volume_ratio: 3.4,
      since: '2026-11-20',
    };
    const at = new Date('2030-01-01T12:00:00Z');
    t.setNow(at);
    try {
      // A score without a crisis signal (formula v2) says nothing: no episode.
      await evaluateAlerts(t.ctx, { workspaceId: workspace.id, change: change(50) });
      expect(await episodes(alert.id)).toHaveLength(0);

      await evaluateAlerts(t.ctx, { workspaceId: workspace.id, change: change(50, { crisis }) });
      const [fired] = await episodes(alert.id);
      expect(fired).toMatchObject({ status: 'firing', drivers: { crisis } });
      expect(fired!.summary).toContain('42% of the conversation is negative');
      const [event] = await events(workspace.id);
      expect(event).toMatchObject({
        type: 'alert.triggered',
        data: { condition: 'crisis', drivers: { crisis } },
      });

      const cleared = { ...crisis, active: false, since: null };
      await evaluateAlerts(t.ctx, { workspaceId: workspace.id, change: change(52, { crisis: cleared }) });
      expect((await episodes(alert.id)).map((e) => e.status)).toEqual(['resolved']);

      // Back within the cooldown: not fired again; after it: a new episode.
      t.setNow(new Date(at.getTime() + 10 * 60_000));
      await evaluateAlerts(t.ctx, { workspaceId: workspace.id, change: change(50, { crisis }) });
      expect(await episodes(alert.id)).toHaveLength(1);
      t.setNow(new Date(at.getTime() + 31 * 60_000));
      await evaluateAlerts(t.ctx, { workspaceId: workspace.id, change: change(50, { crisis }) });
      expect((await episodes(alert.id)).map((e) => e.status)).toEqual(['resolved', 'firing']);
    } finally {
      t.setNow(undefined);
    }
  });

  it('fires while a connection needs the brand, naming it, and resolves once it is connected again', async () => {
    const { workspace, alert, key } = await alertOn({
      name: 'Reconnect',
      condition: 'connection_needs_brand',
      webhook: true,
    });
    const setStatus = (status: 'connected' | 'reauth_required') =>
      t.db
        .updateTable('platform_connections')
        .set({
          status,
          reauth_at: status === 'connected' ? null : new Date(),
          health_reason: status === 'connected' ? null : 'refresh_refused',
        })
        .where('workspace_id', '=', workspace.id)
        .execute();
    await setStatus('reauth_required');
    await evaluateAlerts(t.ctx, { workspaceId: workspace.id });
    const [fired] = await episodes(alert.id);
    expect(fired).toMatchObject({
      status: 'firing',
      drivers: { connections: [{ platform: 'instagram', reason: 'refresh_refused' }] },
    });
    const listed = (await t.request({ method: 'GET', url: '/v1/alerts', key })).json();
    expect(listed.alerts[0]).toMatchObject({ id: alert.id, status: 'firing' });

    await setStatus('connected');
    await evaluateAlerts(t.ctx, { workspaceId: workspace.id, change: change(50) });
    const history = (await t.request({ method: 'GET', url: `/v1/alerts/${alert.id}/history`, key })).json();
    expect(history.episodes[0]).toMatchObject({
      status: 'resolved',
      resolution: { summary: 'Every connection is usable again.' },
    });
  });
});
