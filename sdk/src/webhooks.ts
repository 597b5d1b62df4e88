import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import type { webhooks } from './schema.js';

/** The envelope of every event the service delivers. */
export interface WebhookEnvelope {
  id: string;
  type: string;
  created_at: string;
  data: Record<string, unknown>;
}

/** Payloads of the document's `webhooks` section, when it describes them. */
type DocumentedPayload = {
  [K in keyof webhooks]: webhooks[K] extends {
    post: { requestBody?: { content: { 'application/json': infer B } } };
  }
    ? B
    : never;
}[keyof webhooks];

/** A verified event: the typed union of documented events, or the generic envelope. */
export type WebhookEvent = [DocumentedPayload] extends [never] ? WebhookEnvelope : DocumentedPayload;

export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

/**
 * Verifies a delivery's Standard Webhooks signature (`webhook-id`, `webhook-timestamp`,
 * `webhook-signature`; timestamps older or newer than 5 minutes are refused) and returns the event.
 * Pass the raw body exactly as received, not re-serialised JSON. Throws WebhookVerificationError.
 *
 * `secret` is the webhook's secret as the API returned it: `whsec_` + base64 (the key is the decoded
 * bytes), or a plain string chosen at registration (the key is its bytes).
 */
export function verifyWebhook(
  secret: string,
  payload: string | Uint8Array,
  headers: WebhookHeaders,
): WebhookEvent {
  const verifier = secret.startsWith('whsec_') ? new Webhook(secret) : new Webhook(secret, { format: 'raw' });
  const body = typeof payload === 'string' ? payload : new TextDecoder().decode(payload);
  return verifier.verify(body, flatHeaders(headers)) as WebhookEvent;
}

function flatHeaders(headers: WebhookHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  const entries = headers instanceof Headers ? headers.entries() : Object.entries(headers);
  for (const [name, value] of entries) {
    if (value === undefined) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

export { WebhookVerificationError };
