import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attemptDelivery } from '../../src/webhooks/attempt.ts';
import { fanOutEvent } from '../../src/webhooks/jobs.ts';
import { configureWebhooks } from '../../src/webhooks/settings.ts';
import { expectProblem, startTestService, workspaceWithKey, type TestService } from '../helpers/service.ts';
import { emit } from './webhooks-receiver.ts';

/** Attempt 1 of a schedule with more to come; the next attempt is not scheduled (no worker runs). */
const FIRST_ATTEMPT = { attempt: 1, lastAttempt: false, scheduleNext: async () => {} };

let t: TestService;
let flip: (addresses: string[]) => void;
beforeAll(async () => {
  t = await startTestService(); // loopback NOT allowed, as in production
  const answers: Record<string, string[]> = {
    'hooks.example.com': ['93.184.216.34', '2606:2800:220:1::1'],
    'internal.example.com': ['10.20.30.40'],
    'rebind.example.com': ['93.184.216.34', '127.0.0.1'],
    'flip.example.com': ['93.184.216.34'],
  };
  flip = (addresses) => {
    answers['flip.example.com'] = addresses;
  };
  configureWebhooks(t.ctx, {
    resolve: async (host) => {
      const found = answers[host];
      if (!found) throw Object.assign(new Error('no such host'), { code: 'ENOTFOUND' });
      return found;
    },
  });
});
afterAll(async () => t?.close());

const agency = () => workspaceWithKey(t.db, { plan: 'agency', accountType: 'agency' });

function create(key: string, body: unknown, headers: Record<string, string> = {}) {
  return t.request({ method: 'POST', url: '/v1/webhooks', key, payload: body as object, headers });
}

describe('POST /v1/webhooks', () => {
  it('registers a webhook and returns a generated Standard Webhooks secret once', async () => {
    const { key } = await agency();
    const res = await create(key, {
      url: 'https://Hooks.Example.com/brand?x=1',
      events: ['audit.completed', 'score.changed', 'audit.completed'],
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({
      url: 'https://hooks.example.com/brand?x=1',
      events: ['audit.completed', 'score.changed'],
      status: 'active',
      disabled_reason: null,
    });
    expect(body.id).toMatch(/^wh_/);
    expect(Date.parse(body.created_at)).not.toBeNaN();
    expect(body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(body.secret.slice(6), 'base64')).toHaveLength(32);

    const list = await t.request({ method: 'GET', url: '/v1/webhooks', key });
    expect(list.statusCode).toBe(200);
    const { secret: _secret, ...resource } = body;
    expect(list.json().webhooks).toEqual([resource]);
    expect(list.body).not.toContain(body.secret.slice(6));
  });

  it('accepts a caller secret in either documented form and refuses anything else', async () => {
    const { key } = await agency();
    const whsec = `whsec_${Buffer.alloc(24, 7).toString('base64')}`;
    const raw = 'correct-horse-battery-staple-2024';
    for (const secret of [whsec, raw]) {
      const res = await create(key, {
        url: 'https://hooks.example.com/a',
        events: ['score.changed'],
        secret,
      });
      expect(res.statusCode).toBe(200);
      expect(res.json().secret).toBe(secret);
    }
    for (const secret of [
      'too-short-secret',
      'has spaces in it but is long enough',
      `whsec_${Buffer.alloc(16).toString('base64')}`,
      'whsec_not*base64*at*all*but*long*enough',
      `whsec_${Buffer.alloc(65).toString('base64')}`,
      'x'.repeat(129),
    ]) {
      const res = await create(key, {
        url: 'https://hooks.example.com/a',
        events: ['score.changed'],
        secret,
      });
      expect(expectProblem(res, 400, 'Invalid Secret').errors[0].parameter).toBe('secret');
    }
  });

  it.each([
    ['http://hooks.example.com/x', /must use https/],
    ['https://127.0.0.1/x', /loopback address/],
    ['https://10.0.0.1/x', /private address \(10\.0\.0\.0\/8\)/],
    ['https://[::1]/x', /loopback address/],
    ['https://169.254.169.254/latest/meta-data', /cloud metadata/],
    ['https://[::ffff:169.254.169.254]/x', /cloud metadata/],
    ['https://[::ffff:10.0.0.1]/x', /private/],
    ['https://2130706433/x', /loopback/], // decimal form of 127.0.0.1
    ['https://100.64.0.1/x', /carrier-grade NAT/],
    ['https://[fe80::1]/x', /link-local/],
    ['https://224.0.0.1/x', /multicast/],
    ['https://localhost/x', /loopback/],
    // What a name resolves to, or whether it resolves, is never said: one answer for all three.
    [
      'https://internal.example.com/x',
      /^url is not deliverable: host "internal.example.com" has no public internet address;/,
    ],
    [
      'https://rebind.example.com/x',
      /^url is not deliverable: host "rebind.example.com" has no public internet address;/,
    ],
    [
      'https://nowhere.example.com/x',
      /^url is not deliverable: host "nowhere.example.com" has no public internet address;/,
    ],
    ['https://user:pass@hooks.example.com/x', /credentials/],
    ['not a url', /not a valid absolute URL/],
    [`https://hooks.example.com/${'a'.repeat(2048)}`, /./],
  ])('refuses %s with 400 Invalid URL', async (url, detail) => {
    const { key } = await agency();
    const body = expectProblem(await create(key, { url, events: ['audit.completed'] }), 400, 'Invalid URL');
    expect(body.detail).toMatch(detail);
  });

  it('answers a missing url or events with a plain 400 naming the field', async () => {
    const { key } = await agency();
    const noUrl = expectProblem(await create(key, { events: ['audit.completed'] }), 400, 'Invalid Parameter');
    expect(noUrl.errors[0].parameter).toBe('url');
    const noEvents = expectProblem(
      await create(key, { url: 'https://hooks.example.com/' }),
      400,
      'Invalid Parameter',
    );
    expect(noEvents.errors[0].parameter).toBe('events');
  });

  it('answers unknown or empty events with 422 Invalid Events naming the bad ones', async () => {
    const { key } = await agency();
    const url = 'https://hooks.example.com/e';
    const bad = expectProblem(
      await create(key, { url, events: ['audit.completed', 'audit.started', 'nope', 'nope'] }),
      422,
      'Invalid Events',
    );
    expect(bad.invalid_events).toEqual(['audit.started', 'nope']);
    expect(bad.detail).toContain('"audit.started", "nope"');
    expectProblem(await create(key, { url, events: [] }), 422, 'Invalid Events');
    expectProblem(await create(key, { url, events: 'nope' }), 422, 'Invalid Events'); // a lone string is a list of one
    // The URL is judged first: an http URL with bad events is still a 400.
    expectProblem(await create(key, { url: 'http://x.example.com', events: ['nope'] }), 400, 'Invalid URL');
  });

  it('needs a key (401), the Agency plan (403 Plan Required) and the write scope (403)', async () => {
    const body = { url: 'https://hooks.example.com/p', events: ['score.changed'] };
    expectProblem(
      await t.request({ method: 'POST', url: '/v1/webhooks', payload: body }),
      401,
      'Unauthorized',
    );
    const pro = await workspaceWithKey(t.db, { plan: 'pro' });
    expectProblem(await create(pro.key, body), 403, 'Plan Required');
    expectProblem(
      await t.request({ method: 'GET', url: '/v1/webhooks', key: pro.key }),
      403,
      'Plan Required',
    );
    const readOnly = await workspaceWithKey(t.db, { plan: 'agency' }, { scopes: ['read'] });
    expectProblem(await create(readOnly.key, body), 403, 'Forbidden');
  });

  it('replays an Idempotency-Key instead of registering twice', async () => {
    const { key } = await agency();
    const body = { url: 'https://hooks.example.com/idem', events: ['campaign.phase_changed'] };
    const first = await create(key, body, { 'idempotency-key': 'wh-create-1' });
    const again = await create(key, body, { 'idempotency-key': 'wh-create-1' });
    expect(again.statusCode).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json().id).toBe(first.json().id);
    expect((await t.request({ method: 'GET', url: '/v1/webhooks', key })).json().webhooks).toHaveLength(1);
  });

  it('holds the limit of 20 webhooks per workspace, also under concurrent requests', async () => {
    const { key } = await agency();
    const body = { url: 'https://hooks.example.com/many', events: ['score.changed'] };
    const results = await Promise.all(Array.from({ length: 24 }, () => create(key, body)));
    expect(results.filter((r) => r.statusCode === 200)).toHaveLength(20);
    for (const r of results.filter((r) => r.statusCode !== 200))
      expectProblem(r, 422, 'Webhook Limit Reached');
    const one = (await t.request({ method: 'GET', url: '/v1/webhooks', key })).json().webhooks[0];
    await t.request({ method: 'DELETE', url: `/v1/webhooks/${one.id}`, key });
    expect((await create(key, body)).statusCode).toBe(200);
  });
});

describe('GET and DELETE /v1/webhooks (extensions)', () => {
  it('keeps tenants apart: another workspace neither lists nor deletes a webhook', async () => {
    const a = await agency();
    const b = await agency();
    const hook = (
      await create(a.key, { url: 'https://hooks.example.com/t', events: ['score.changed'] })
    ).json();
    expect((await t.request({ method: 'GET', url: '/v1/webhooks', key: b.key })).json().webhooks).toEqual([]);
    expectProblem(
      await t.request({ method: 'DELETE', url: `/v1/webhooks/${hook.id}`, key: b.key }),
      404,
      'Not Found',
    );
    expectProblem(
      await t.request({ method: 'GET', url: `/v1/webhooks/${hook.id}/deliveries`, key: b.key }),
      404,
      'Not Found',
    );

    const deleted = await t.request({ method: 'DELETE', url: `/v1/webhooks/${hook.id}`, key: a.key });
    expect(deleted.statusCode).toBe(200);
    expect(deleted.json()).toEqual({ id: hook.id, deleted: true });
    expect((await t.request({ method: 'GET', url: '/v1/webhooks', key: a.key })).json().webhooks).toEqual([]);
    expectProblem(await t.request({ method: 'DELETE', url: `/v1/webhooks/${hook.id}`, key: a.key }), 404);
    // Soft delete: the row stays for support, marked deleted.
    const row = await t.db
      .selectFrom('webhooks')
      .select('deleted_at')
      .where('id', '=', hook.id)
      .executeTakeFirst();
    expect(row?.deleted_at).toBeInstanceOf(Date);
  });

  it('lists deliveries newest first with validated paging', async () => {
    const { key, workspace } = await agency();
    const hook = (
      await create(key, { url: 'https://hooks.example.com/d', events: ['score.changed'] })
    ).json();
    const skipped = (
      await create(key, { url: 'https://hooks.example.com/o', events: ['audit.completed'] })
    ).json();
    const events: string[] = [];
    for (let i = 0; i < 3; i++) {
      const eventId = await emit(t.ctx, workspace.id, 'score.changed', { score: 50 + i });
      await fanOutEvent(t.ctx, { eventId });
      events.push(eventId);
    }
    const res = await t.request({ method: 'GET', url: `/v1/webhooks/${hook.id}/deliveries?limit=2`, key });
    expect(res.statusCode).toBe(200);
    const page = res.json();
    expect(page).toMatchObject({ total: 3, limit: 2, offset: 0 });
    expect(page.deliveries.map((d: { event_id: string }) => d.event_id)).toEqual([events[2], events[1]]);
    expect(page.deliveries[0]).toMatchObject({
      event_type: 'score.changed',
      status: 'pending',
      attempts: 0,
      last_status_code: null,
      delivered_at: null,
    });
    const rest = (
      await t.request({ method: 'GET', url: `/v1/webhooks/${hook.id}/deliveries?offset=2`, key })
    ).json();
    expect(rest.deliveries.map((d: { event_id: string }) => d.event_id)).toEqual([events[0]]);
    // Subscribed to another event type: nothing to deliver.
    expect(
      (await t.request({ method: 'GET', url: `/v1/webhooks/${skipped.id}/deliveries`, key })).json().total,
    ).toBe(0);
    for (const query of ['limit=0', 'limit=101', 'offset=-1', 'limit=abc', 'bogus=1']) {
      expectProblem(
        await t.request({ method: 'GET', url: `/v1/webhooks/${hook.id}/deliveries?${query}`, key }),
        400,
      );
    }
  });

  it('drops the pending deliveries of a deleted webhook without sending them', async () => {
    const { key, workspace } = await agency();
    const hook = (
      await create(key, { url: 'https://hooks.example.com/gone-soon', events: ['score.changed'] })
    ).json();
    const eventId = await emit(t.ctx, workspace.id, 'score.changed', { score: 3 });
    const [deliveryId] = await fanOutEvent(t.ctx, { eventId });
    expect((await t.request({ method: 'DELETE', url: `/v1/webhooks/${hook.id}`, key })).statusCode).toBe(200);
    expect(await attemptDelivery(t.ctx, deliveryId!, FIRST_ATTEMPT)).toEqual({ result: 'skipped' });
    const row = await t.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('id', '=', deliveryId!)
      .executeTakeFirst();
    expect(row).toMatchObject({ status: 'failed', attempts: 0, last_error: 'not sent: webhook deleted' });
  });

  it('checks DNS again at delivery time and refuses a host that now resolves privately (rebinding)', async () => {
    const { key, workspace } = await agency();
    const hook = (
      await create(key, { url: 'https://flip.example.com/hook', events: ['score.changed'] })
    ).json();
    expect(hook.status).toBe('active');
    flip(['93.184.216.34', '169.254.169.254']);
    const eventId = await emit(t.ctx, workspace.id, 'score.changed', { score: 4 });
    const [deliveryId] = await fanOutEvent(t.ctx, { eventId });
    const attempt = await attemptDelivery(t.ctx, deliveryId!, FIRST_ATTEMPT);
    expect(attempt.result).toBe('retry');
    const row = await t.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('id', '=', deliveryId!)
      .executeTakeFirst();
    expect(row).toMatchObject({
      status: 'pending',
      attempts: 1,
      last_status_code: null,
      last_error: 'host "flip.example.com" has no public internet address',
    });
  });
});
