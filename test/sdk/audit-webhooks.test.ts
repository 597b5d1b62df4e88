import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createBrandHealthClient,
  unwrap,
  verifyWebhook,
  WebhookVerificationError,
  type AuditStart,
} from '../../sdk/src/index.ts';
import { configureWebhooks } from '../../src/webhooks/settings.ts';
import { seedMetrics } from '../api/audits.fixtures.ts';
import { eventually, startReceiver, type Receiver } from '../api/webhooks-receiver.ts';
import { startTestService, workspaceWithKey, type TestService } from '../helpers/service.ts';

// Run-and-wait and the webhook verifier end to end: a live service with its workers runs the audit,
// delivers the signed audit.completed to an HTTPS receiver, and the SDK verifies what arrived.
let t: TestService;
let rx: Receiver;
let baseUrl: string;

beforeAll(async () => {
  rx = await startReceiver();
  t = await startTestService({ allowLoopbackFetch: true, runWorkers: true });
  configureWebhooks(t.ctx, { ca: rx.cert });
  await t.service.startWorkers();
  baseUrl = await t.listen();
});
afterAll(async () => {
  await t?.close();
  await rx?.close();
});

async function delivery(path: string) {
  return eventually(async () => rx.requestsTo(path)[0], 20_000, `a delivery to ${path}`);
}

describe('runAudit and verifyWebhook', () => {
  it('starts an audit, waits for its result, and verifies the signed audit.completed it delivers', async () => {
    const { key, workspace } = await workspaceWithKey(
      t.db,
      { plan: 'agency', accountType: 'agency' },
      { platforms: [{ platform: 'instagram' }] },
    );
    await seedMetrics(t.db, workspace.id, { platforms: ['instagram'] });
    const bh = createBrandHealthClient({ apiKey: key, baseUrl });
    // A registered webhook with a plain (non-whsec_) secret hears the same event.
    const rawSecret = 'a-plain-secret-of-32-characters!';
    unwrap(
      await bh.POST('/v1/webhooks', {
        body: { url: rx.url('/registered'), events: ['audit.completed'], secret: rawSecret },
      }),
    );

    let start: AuditStart | undefined;
    const result = await bh.runAudit(
      { webhook_url: rx.url('/audit'), lookback_days: 30 },
      { timeoutMs: 60_000, onStart: (s) => (start = s) },
    );
    expect(result.status).toBe('completed');
    expect(result.audit_id).toBe(start!.audit_id);
    expect(start!.webhook_secret).toMatch(/^whsec_/);
    const stored = await t.db
      .selectFrom('audits')
      .select(['status', 'score'])
      .where('id', '=', result.audit_id)
      .executeTakeFirstOrThrow();
    expect(stored.status).toBe('completed');
    if (result.status === 'completed') expect(result.score).toBe(stored.score);

    const sent = await delivery('/audit');
    const event = verifyWebhook(start!.webhook_secret!, sent.body, sent.headers);
    expect(event).toMatchObject({
      type: 'audit.completed',
      data: { audit_id: result.audit_id, workspace_id: workspace.id },
    });
    expect(event.id).toBe(sent.headers['webhook-id']);
    // The same bytes as a Uint8Array, with a Headers object.
    expect(
      verifyWebhook(start!.webhook_secret!, new TextEncoder().encode(sent.body), new Headers(sent.headers))
        .id,
    ).toBe(event.id);

    const registered = await delivery('/registered');
    expect(verifyWebhook(rawSecret, registered.body, registered.headers).id).toBe(event.id);

    // A changed body, another secret, or a stale timestamp are refused.
    const tampered = sent.body.replace('"audit.completed"', '"audit.completed" ');
    expect(() => verifyWebhook(start!.webhook_secret!, tampered, sent.headers)).toThrow(
      WebhookVerificationError,
    );
    expect(() => verifyWebhook(rawSecret, sent.body, sent.headers)).toThrow(WebhookVerificationError);
    const stale = { ...sent.headers, 'webhook-timestamp': String(Math.floor(Date.now() / 1000) - 3_600) };
    expect(() => verifyWebhook(start!.webhook_secret!, sent.body, stale)).toThrow(WebhookVerificationError);
  }, 90_000);

  it('returns a failed audit as its result (nothing to score), not as an error', async () => {
    const { key } = await workspaceWithKey(t.db, { plan: 'pro' }, { platforms: [{ platform: 'tiktok' }] });
    const bh = createBrandHealthClient({ apiKey: key, baseUrl });
    const result = await bh.runAudit({}, { timeoutMs: 60_000 });
    expect(result.status).toBe('failed');
    if (result.status === 'failed') expect(result.failure_reason).not.toBe('');
  }, 90_000);
});
