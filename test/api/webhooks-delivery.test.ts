import { CURRENT_FORMULA } from '../../src/scoring/daily-scores.ts';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../src/admin/workspaces.ts';
import { deliverOnce, NO_RESPONSE } from '../../src/webhooks/deliver-once.ts';
import { sealedAt } from '../../src/infra/crypto/sealed-columns.ts';
import { fanOutEvent } from '../../src/webhooks/jobs.ts';
import { configureWebhooks } from '../../src/webhooks/settings.ts';
import { startTestService, workspaceWithKey, type TestService } from '../helpers/service.ts';
import { signedDelta } from '../../src/scoring/engine/index.ts';
import { runJob, seedMetrics } from './audits.fixtures.ts';
import { emit, eventually, startReceiver, type Receiver } from './webhooks-receiver.ts';

let t: TestService;
let rx: Receiver;
beforeAll(async () => {
  rx = await startReceiver();
  t = await startTestService({ allowLoopbackFetch: true, runWorkers: true });
  // Trust the receiver's certificate; retry at once, twice (three attempts in all).
  configureWebhooks(t.ctx, { ca: rx.cert });
  configureWebhooks(t.ctx, { schedule: { attempts: 3, delaySeconds: 0, maxDelaySeconds: 0, jitter: false } });
  await t.service.startWorkers();
});
afterAll(async () => {
  await t?.close();
  await rx?.close();
});

async function register(key: string, path: string, events: string[], secret?: string) {
  const res = await t.request({
    method: 'POST',
    url: '/v1/webhooks',
    key,
    payload: { url: rx.url(path), events, ...(secret ? { secret } : {}) },
  });
  expect(res.statusCode).toBe(200);
  return res.json() as { id: string; secret: string };
}

async function settled(deliveryWhere: { webhookId?: string; eventId: string }) {
  return eventually(
    async () => {
      let q = t.db.selectFrom('webhook_deliveries').selectAll().where('event_id', '=', deliveryWhere.eventId);
      q = deliveryWhere.webhookId
        ? q.where('webhook_id', '=', deliveryWhere.webhookId)
        : q.where('webhook_id', 'is', null);
      const row = await q.executeTakeFirst();
      return row && row.status !== 'pending' ? row : undefined;
    },
    20_000,
    'the delivery to settle',
  );
}

const webhookRow = (id: string) =>
  t.db.selectFrom('webhooks').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

describe('delivery', () => {
  it('POSTs the event signed with the webhook secret (Standard Webhooks) to a subscribed HTTPS endpoint', async () => {
    const { key, workspace } = await workspaceWithKey(t.db, { plan: 'agency', accountType: 'agency' });
    const hook = await register(key, '/ok', ['audit.completed']);
    const other = await register(key, '/not-subscribed', ['campaign.phase_changed']);
    const data = {
      audit_id: 'aud_1',
      workspace_id: workspace.id,
      score: 71.5,
      grade: 'strong',
      completed_at: '2030-01-01T00:00:00.000Z',
    };
    const eventId = await emit(t.ctx, workspace.id, 'audit.completed', data);

    const row = await settled({ webhookId: hook.id, eventId });
    expect(row).toMatchObject({ status: 'succeeded', attempts: 1, last_status_code: 200, last_error: null });
    expect(row.delivered_at).toBeInstanceOf(Date);

    const [request] = rx.requestsTo('/ok');
    expect(request).toBeDefined();
    expect(request!.headers['content-type']).toBe('application/json');
    expect(request!.headers['webhook-id']).toBe(eventId);
    const payload = new Webhook(hook.secret).verify(request!.body, request!.headers) as Record<
      string,
      unknown
    >;
    expect(payload).toEqual({ id: eventId, type: 'audit.completed', created_at: expect.any(String), data });
    expect(() =>
      new Webhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(request!.body, request!.headers),
    ).toThrow();

    expect(rx.requestsTo('/not-subscribed')).toHaveLength(0);
    const listed = await t.request({ method: 'GET', url: `/v1/webhooks/${hook.id}/deliveries`, key });
    expect(listed.json().deliveries[0]).toMatchObject({
      event_id: eventId,
      status: 'succeeded',
      attempts: 1,
      last_status_code: 200,
    });
    expect(
      (await t.request({ method: 'GET', url: `/v1/webhooks/${other.id}/deliveries`, key })).json().total,
    ).toBe(0);
  });

  it('retries a failing endpoint with the same webhook-id until it answers 2xx', async () => {
    const { key, workspace } = await workspaceWithKey(t.db, { plan: 'agency' });
    const secret = 'a-shared-secret-of-32-characters!';
    const hook = await register(key, '/flaky', ['score.changed'], secret);
    rx.answer('/flaky', 500, 500, 200);
    const eventId = await emit(t.ctx, workspace.id, 'score.changed', {
      score: 60,
      previous_score: 55,
      change: '+5.0',
    });

    const row = await settled({ webhookId: hook.id, eventId });
    expect(row).toMatchObject({ status: 'succeeded', attempts: 3, last_status_code: 200, last_error: null });
    const requests = rx.requestsTo('/flaky');
    expect(requests).toHaveLength(3);
    for (const r of requests) {
      expect(r.headers['webhook-id']).toBe(eventId);
      // A plain-string secret is used as raw bytes.
      expect(new Webhook(secret, { format: 'raw' }).verify(r.body, r.headers)).toMatchObject({ id: eventId });
    }
    expect((await webhookRow(hook.id)).status).toBe('active');
  });

  it('disables the webhook at once when the endpoint answers 410 Gone', async () => {
    const { key, workspace } = await workspaceWithKey(t.db, { plan: 'agency' });
    const hook = await register(key, '/gone', ['score.changed']);
    rx.answer('/gone', 410);
    const first = await emit(t.ctx, workspace.id, 'score.changed', { score: 1 });
    expect(await settled({ webhookId: hook.id, eventId: first })).toMatchObject({
      status: 'failed',
      attempts: 1,
      last_status_code: 410,
      last_error: 'HTTP 410 Gone',
    });
    const listed = (await t.request({ method: 'GET', url: '/v1/webhooks', key })).json().webhooks[0];
    expect(listed).toMatchObject({ id: hook.id, status: 'disabled' });
    expect(listed.disabled_reason).toMatch(/410 Gone/);

    // A disabled webhook gets no new deliveries.
    const second = await emit(t.ctx, workspace.id, 'score.changed', { score: 2 });
    expect(await fanOutEvent(t.ctx, { eventId: second })).toEqual([]);
    const rows = await t.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('event_id', '=', second)
      .execute();
    expect(rows).toHaveLength(0);
    expect(rx.requestsTo('/gone')).toHaveLength(1);
  });

  it('marks a delivery failed after its last attempt and disables a webhook with no recent success', async () => {
    const { key, workspace } = await workspaceWithKey(t.db, { plan: 'agency' });
    const hook = await register(key, '/down', ['campaign.phase_changed']);
    rx.answer('/down', 503);
    const eventId = await emit(t.ctx, workspace.id, 'campaign.phase_changed', { campaign_id: 'cmp_1' });
    const row = await settled({ webhookId: hook.id, eventId });
    expect(row).toMatchObject({
      status: 'failed',
      attempts: 3,
      last_status_code: 503,
      last_error: 'HTTP 503',
    });
    const webhook = await webhookRow(hook.id);
    expect(webhook.status).toBe('disabled');
    expect(webhook.disabled_reason).toMatch(/failed all its attempts .*HTTP 503.*24 hours/);
    expect(webhook.disabled_reason).not.toContain(webhook.secret);
  });

  it("signs a one-off URL only with its own secret, never the registered webhooks' secrets, once per fan-out", async () => {
    const { key, workspace } = await workspaceWithKey(t.db, { plan: 'agency' });
    const a = await register(key, '/sub-a', ['audit.completed']);
    const own = 'whsec_' + Buffer.alloc(32, 7).toString('base64');
    // As an audit's completion sends it: the secret sealed in the audit's row, re-sealed for the delivery's.
    const extra = [
      {
        url: rx.url('/one-off'),
        secret: t.ctx.keyRing.seal(own, sealedAt('audits.webhook_secret', 'aud_x')),
        auditId: 'aud_x',
      },
    ];
    const eventId = await emit(t.ctx, workspace.id, 'audit.completed', { audit_id: 'aud_x' }, extra);
    const row = await settled({ eventId });
    expect(row).toMatchObject({ status: 'succeeded', attempts: 1, url: rx.url('/one-off') });
    const [request] = rx.requestsTo('/one-off');
    expect(request!.headers['webhook-signature']!.split(' ')).toHaveLength(1);
    expect(new Webhook(own).verify(request!.body, request!.headers)).toMatchObject({ id: eventId });
    expect(() => new Webhook(a.secret).verify(request!.body, request!.headers)).toThrow();
    // Running the fan-out again (a retried job) creates nothing new.
    expect(await fanOutEvent(t.ctx, { eventId, extra })).toEqual([]);
    const rows = await t.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('event_id', '=', eventId)
      .execute();
    expect(rows).toHaveLength(2); // a and the one-off URL
  });

  it("signs a client's audit webhook_url with the secret its audit run returned, not the agency's", async () => {
    const agency = await workspaceWithKey(t.db, { plan: 'agency', accountType: 'agency' });
    const agencyHook = await register(agency.key, '/agency-hears', ['audit.completed']);
    const client = await workspaceWithKey(
      t.db,
      { plan: 'pro', parentId: agency.workspace.id },
      { platforms: [{ platform: 'instagram' }] },
    );
    await seedMetrics(t.db, client.workspace.id, { platforms: ['instagram'] });
    const res = await t.request({
      method: 'POST',
      url: '/v1/audit/run',
      key: client.key,
      payload: { webhook_url: rx.url('/client-hook') },
    });
    expect(res.statusCode).toBe(200);
    const { audit_id, webhook_secret } = res.json();
    expect(webhook_secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const row = await eventually(
      async () => {
        const r = await t.db
          .selectFrom('webhook_deliveries')
          .selectAll()
          .where('url', '=', rx.url('/client-hook'))
          .executeTakeFirst();
        return r && r.status !== 'pending' ? r : undefined;
      },
      30_000,
      'the one-off delivery',
    );
    expect(row.status).toBe('succeeded');
    const [request] = rx.requestsTo('/client-hook');
    expect(new Webhook(webhook_secret).verify(request!.body, request!.headers)).toMatchObject({
      type: 'audit.completed',
      data: { audit_id },
    });
    // The agency's registered secret signs only the agency's own endpoint.
    expect(() => new Webhook(agencyHook.secret).verify(request!.body, request!.headers)).toThrow();
    // Neither secret is stored in plaintext anywhere.
    const audit = await t.db
      .selectFrom('audits')
      .selectAll()
      .where('id', '=', audit_id)
      .executeTakeFirstOrThrow();
    expect(JSON.stringify([audit, row])).not.toContain(webhook_secret.slice(6));
  });

  it("delivers a client workspace's events to its agency's webhooks too", async () => {
    const agency = await workspaceWithKey(t.db, { plan: 'agency', accountType: 'agency' });
    const client = await createWorkspace(t.db, {
      name: 'Client',
      plan: 'pro',
      parentId: agency.workspace.id,
    });
    const stranger = await workspaceWithKey(t.db, { plan: 'agency', accountType: 'agency' });
    const hook = await register(agency.key, '/agency', ['score.changed']);
    const strangerHook = await register(stranger.key, '/stranger', ['score.changed']);
    const eventId = await emit(t.ctx, client.id, 'score.changed', { workspace_id: client.id, score: 40 });
    expect(await settled({ webhookId: hook.id, eventId })).toMatchObject({ status: 'succeeded' });
    expect(JSON.parse(rx.requestsTo('/agency')[0]!.body).data.workspace_id).toBe(client.id);
    const strangers = await t.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('webhook_id', '=', strangerHook.id)
      .execute();
    expect(strangers).toHaveLength(0);
  });

  it('delivers score.changed from an audit with one-decimal scores and change = score - previous_score', async () => {
    const { workspace, key } = await workspaceWithKey(
      t.db,
      { plan: 'agency', accountType: 'agency' },
      { platforms: [{ platform: 'instagram' }] },
    );
    await seedMetrics(t.db, workspace.id, { platforms: ['instagram'] });
    const hook = await register(key, '/score-changed', ['score.changed']);
    // The previous audit's score as the real column may hold it (more digits than the API gives).
    const at = new Date(Date.now() - 86_400_000);
    await t.db
      .insertInto('audits')
      .values({
        id: 'aud_previous_score_digits',
        workspace_id: workspace.id,
        status: 'completed',
        platforms: ['instagram'],
        lookback_days: 90,
        estimated_completion: at,
        created_at: at,
        completed_at: at,
        score: 20.04,
        score_low: 19.94,
        score_high: 20.14,
        grade: 'critical',
        formula_version: CURRENT_FORMULA,
        pillars: '{}',
        recommendations: '[]',
        industry_benchmark: '{}',
      })
      .execute();
    const started = await t.request({ method: 'POST', url: '/v1/audit/run', key, payload: {} });
    expect(started.statusCode).toBe(200);
    await runJob(t.ctx, started.json().audit_id);

    const request = await eventually(async () => rx.requestsTo('/score-changed')[0], 20_000, 'score.changed');
    const { data } = new Webhook(hook.secret).verify(request.body, request.headers) as {
      data: Record<string, unknown>;
    };
    const audit = (
      await t.request({ method: 'GET', url: `/v1/audit/${started.json().audit_id}`, key })
    ).json();
    expect(data).toEqual({
      workspace_id: workspace.id,
      audit_id: audit.audit_id,
      score: audit.score,
      previous_score: 20,
      change: signedDelta(audit.score, 20),
      grade: audit.grade,
      previous_grade: 'critical',
      changed_at: audit.completed_at,
      // Formula v3: the crisis signal, null while the conversation is calm.
      crisis: null,
      // and what moved the score: null, as the previous audit was stored without its drivers.
      explanation: null,
    });
  });
});

describe('deliverOnce', () => {
  const message = (url: string) => ({
    url,
    msgId: 'evt_test',
    payload: '{"id":"evt_test"}',
    secrets: [],
    timestamp: new Date(),
  });

  it('does not follow redirects and sends no signature without a secret', async () => {
    // (A one-off URL of a workspace without a subscribed webhook goes out like this: unsigned.)
    rx.answer('/moved', 301);
    const outcome = await deliverOnce(message(rx.url('/moved')), { allowLoopback: true, ca: rx.cert });
    expect(outcome).toMatchObject({
      ok: false,
      statusCode: 301,
      error: 'HTTP 301 (redirects are not followed)',
    });
    const [request] = rx.requestsTo('/moved');
    expect(request!.headers['webhook-signature']).toBeUndefined();
    expect(request!.headers['webhook-id']).toBe('evt_test');
  });

  it('refuses loopback unless allowed, and an untrusted certificate', async () => {
    const before = rx.received.length;
    const refused = await deliverOnce(message(rx.url('/x')), { ca: rx.cert });
    expect(refused).toMatchObject({ ok: false, statusCode: null, permanent: false });
    expect(refused.error).toMatch(/loopback/);
    const untrusted = await deliverOnce(message(rx.url('/x')), { allowLoopback: true });
    expect(untrusted.error).toBe(NO_RESPONSE);
    expect(untrusted.cause).toMatch(/^TLS handshake failed/);
    expect(rx.received.length).toBe(before);
    // Plain http only to loopback, and only where loopback is allowed (tests, the local sandbox).
    const httpLoopback = await deliverOnce(message(rx.url('/x').replace('https:', 'http:')), { ca: rx.cert });
    expect(httpLoopback).toMatchObject({ ok: false, permanent: true });
    expect(httpLoopback.error).toMatch(/must use https/);
    const httpPublic = await deliverOnce(message('http://93.184.215.14/x'), { allowLoopback: true });
    expect(httpPublic).toMatchObject({ ok: false, permanent: true });
    expect(httpPublic.error).toMatch(/must use https/);
  });

  it('gives up on a slow endpoint after the attempt timeout', async () => {
    const net = await import('node:net');
    const silent = net.createServer(() => {}); // accepts, never answers the TLS handshake
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const port = (silent.address() as { port: number }).port;
    try {
      const outcome = await deliverOnce(message(`https://127.0.0.1:${port}/`), {
        allowLoopback: true,
        timeoutMs: 300,
      });
      expect(outcome).toMatchObject({ ok: false, error: NO_RESPONSE, cause: 'timed out after 300 ms' });
    } finally {
      silent.close();
    }
  });
});
