import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { verifyWebhook, WebhookVerificationError } from '../../sdk/src/index.ts';

// The SDK's verifier implements the Standard Webhooks scheme with Web Crypto; these deliveries are
// signed by the reference library the service itself signs with (standardwebhooks), for both
// secret forms the API accepts. audit-webhooks.test.ts verifies real deliveries of the service.

const body = JSON.stringify({
  id: 'evt_01',
  type: 'audit.completed',
  created_at: '2030-01-01T00:00:00.000Z',
  data: { audit_id: 'aud_1', score: 71.5 },
});

function signed(secret: string, options: { raw?: boolean; at?: Date; payload?: string } = {}) {
  const signer = options.raw ? new Webhook(secret, { format: 'raw' }) : new Webhook(secret);
  const at = options.at ?? new Date();
  return {
    'webhook-id': 'evt_01',
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signer.sign('evt_01', at, options.payload ?? body),
  };
}

const whsec = `whsec_${randomBytes(32).toString('base64')}`;
const raw = 'a plain secret that is long enough'.replace(/ /g, '-');

describe('verifyWebhook against the standardwebhooks reference signer', () => {
  it('accepts whsec_ and plain secrets, as string, bytes, Headers or header records', async () => {
    expect(await verifyWebhook(whsec, body, signed(whsec))).toEqual(JSON.parse(body));
    expect((await verifyWebhook(raw, body, signed(raw, { raw: true }))).id).toBe('evt_01');
    const headers = new Headers(signed(whsec));
    expect((await verifyWebhook(whsec, new TextEncoder().encode(body), headers)).type).toBe(
      'audit.completed',
    );
    const upper = Object.fromEntries(Object.entries(signed(whsec)).map(([k, v]) => [k.toUpperCase(), v]));
    expect((await verifyWebhook(whsec, body, upper)).id).toBe('evt_01');
  });

  it('accepts any one matching signature of several (secret rotation)', async () => {
    const other = `whsec_${randomBytes(32).toString('base64')}`;
    const headers = signed(whsec);
    headers['webhook-signature'] =
      `${signed(other)['webhook-signature']} v2,abc ${headers['webhook-signature']}`;
    expect((await verifyWebhook(whsec, body, headers)).id).toBe('evt_01');
  });

  it('refuses another secret, a changed body or id, old or future timestamps and missing headers', async () => {
    const other = `whsec_${randomBytes(32).toString('base64')}`;
    const refused = async (secret: string, payload: string, headers: Record<string, string>) =>
      expect(verifyWebhook(secret, payload, headers)).rejects.toBeInstanceOf(WebhookVerificationError);
    await refused(other, body, signed(whsec));
    await refused(raw, body, signed(whsec));
    await refused(whsec, body.replace('71.5', '99.5'), signed(whsec));
    await refused(whsec, body, { ...signed(whsec), 'webhook-id': 'evt_02' });
    await refused(whsec, body, signed(whsec, { at: new Date(Date.now() - 6 * 60_000) }));
    await refused(whsec, body, signed(whsec, { at: new Date(Date.now() + 6 * 60_000) }));
    await refused(whsec, body, { ...signed(whsec), 'webhook-signature': 'v1,not base64!' });
    const { ['webhook-signature']: _, ...unsigned } = signed(whsec);
    await refused(whsec, body, unsigned);
    // Within the 5-minute tolerance either way is accepted (clock skew).
    const skewed = signed(whsec, { at: new Date(Date.now() - 4 * 60_000) });
    expect((await verifyWebhook(whsec, body, skewed)).id).toBe('evt_01');
  });
});
