// A crisis staged on a simulated account travels the whole way: the platform simulator's account turns its
// conversation negative (POST /_sim/crisis), a sync brings it in, the scoring engine's crisis signal fires
// the workspace's crisis alert once on every channel (one email to a real SMTP server, one Slack-format
// post, one signed alert.triggered webhook), and when the account is calm again a later sync resolves it.
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startLocalTools, type LocalTools } from '../../simulator/local-tools.ts';
import { startSimulator, type Simulator } from '../../simulator/server.ts';
import { addDays, utcDay } from '../../src/core/days.ts';
import { configureWebhooks } from '../../src/webhooks/settings.ts';
import { liveConnection } from '../helpers/simulator-oauth.ts';
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { eventually } from './webhooks-receiver.ts';

let sim: Simulator;
let smtp: TestSmtpServer;
let tools: LocalTools;
let t: TestService;
const NOW = new Date();
const TODAY = utcDay(NOW);

beforeAll(async () => {
  [sim, smtp, tools] = await Promise.all([
    startSimulator({ speed: 0, startDay: TODAY }),
    startSmtpServer(),
    startLocalTools({ port: 0 }),
  ]);
  t = await startTestService(
    { allowLoopbackFetch: true, runWorkers: true },
    { SIMULATOR_URL: sim.url, PUBLIC_URL: 'http://brandhealth.test', SMTP_URL: smtp.url },
  );
  t.setNow(NOW);
  configureWebhooks(t.ctx, { schedule: { attempts: 1, delaySeconds: 0, maxDelaySeconds: 0, jitter: false } });
  await t.service.startWorkers();
});
afterAll(async () => {
  await t?.close();
  await Promise.all([sim?.close(), smtp?.close(), tools?.close()]);
});

it('a staged crisis fires the crisis alert once per channel, and a calm week resolves it', async () => {
  const { key, workspace, sync } = await liveConnection(t, 'instagram', 'crisisbrand', NOW);
  await sync(0); // 89 calm days: the account's own baseline

  const post = async (url: string, payload: object) => {
    const res = await t.request({ method: 'POST', url, key, payload });
    expect(res.statusCode, res.body).toBeLessThan(300);
    return res.json();
  };
  const { secret } = await post('/v1/webhooks', {
    url: `${tools.url}/webhooks/alerts`,
    events: ['alert.triggered', 'alert.resolved'],
  });
  await post('/v1/alerts', {
    name: 'Crisis watch',
    condition: 'crisis',
    email: ['brand-team@example.com'],
    slack_url: `${tools.url}/webhooks/slack`,
    webhook: true,
  });

  // The next five days on the platform: complaints pour in.
  const staged = await fetch(`${sim.url}/_sim/crisis`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ platform: 'instagram', handle: 'crisisbrand', from: addDays(TODAY, 1), days: 5 }),
  });
  expect(staged.status).toBe(200);
  sim.advanceDays(5);
  await sync(5);

  const score = await t.request({ method: 'GET', url: '/v1/score', key });
  expect(score.json().crisis, score.body).toMatchObject({ active: true });
  const delivered = (path: string, type: string) =>
    tools.webhooks().filter((w) => w.path === path && (w.body as { type?: string }).type === type);
  const triggered = await eventually(async () => {
    const hooks = delivered('/webhooks/alerts', 'alert.triggered');
    return hooks.length > 0 ? hooks : undefined;
  });
  const mail = await smtp.waitFor((m) => m.envelope.to.includes('brand-team@example.com'));
  const slack = await eventually(async () => {
    const posts = tools.webhooks().filter((w) => w.path === '/webhooks/slack');
    return posts.length > 0 ? posts : undefined;
  });
  expect(mail.parsed.subject).toBe(`Alert: Crisis watch (${workspace.name})`);
  expect(mail.parsed.text).toMatch(/of the conversation is negative/);
  expect((slack[0]!.body as { text: string }).text).toMatch(/^Alert: Crisis watch .*crisis is running/);
  const hook = triggered[0]!;
  // Signed as Standard Webhooks sign (the service's clock is five days on, so the check is by signing again
  // at the delivery's own timestamp rather than verify(), which compares it with the real clock).
  const headers = hook.headers as Record<string, string>;
  const expected = new Webhook(secret).sign(
    headers['webhook-id']!,
    new Date(Number(headers['webhook-timestamp']) * 1000),
    JSON.stringify(hook.body),
  );
  expect(headers['webhook-signature']).toBe(expected);
  expect(hook.body).toMatchObject({ data: { condition: 'crisis', name: 'Crisis watch' } });

  // Two calm weeks later the signal has cleared: the episode resolves, and nothing fired twice.
  sim.advanceDays(14);
  await sync(19);
  await eventually(async () =>
    delivered('/webhooks/alerts', 'alert.resolved').length > 0 ? true : undefined,
  );
  expect(delivered('/webhooks/alerts', 'alert.triggered')).toHaveLength(1);
  const sent = (prefix: string) =>
    smtp.received.filter(
      (m) => m.envelope.to.includes('brand-team@example.com') && m.parsed.subject?.startsWith(prefix),
    );
  const slackPosts = () => tools.webhooks().filter((w) => w.path === '/webhooks/slack');
  await eventually(async () => (sent('Resolved:').length > 0 && slackPosts().length > 1 ? true : undefined));
  expect(sent('Alert:')).toHaveLength(1);
  expect(slackPosts().map((w) => (w.body as { text: string }).text.split(':')[0])).toEqual([
    'Resolved',
    'Alert',
  ]);
}, 60_000);
