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

/**
 * A verified event: the typed union of the events the document describes, or the generic envelope
 * while it describes none (openapi-typescript then emits `webhooks` as `Record<string, never>`).
 */
export type WebhookEvent = webhooks extends Record<string, never> ? WebhookEnvelope : DocumentedPayload;

export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

/** The delivery is not signed by the secret, or is too old or too new to trust. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
}

/** Timestamps further than this from now are refused (replays), as in the Standard Webhooks libraries. */
const TOLERANCE_SECONDS = 5 * 60;

/**
 * Verifies a delivery's Standard Webhooks signature and returns the event. The signed content is
 * `{webhook-id}.{webhook-timestamp}.{body}`, HMAC-SHA256 with the secret's key; `webhook-signature`
 * lists `v1,<base64>` signatures separated by spaces (one matching is enough, so secrets can rotate).
 * Pass the raw body exactly as received, not re-serialised JSON. Web Crypto only: runs in Node 20+,
 * browsers, Deno and workers. Rejects with WebhookVerificationError.
 *
 * `secret` is the webhook's secret as the API returned it: `whsec_` + base64 (the key is the decoded
 * bytes), or a plain string chosen at registration (the key is its bytes).
 */
export async function verifyWebhook(
  secret: string,
  payload: string | Uint8Array,
  headers: WebhookHeaders,
  options: { now?: Date } = {},
): Promise<WebhookEvent> {
  const header = (name: string) => {
    const value = headers instanceof Headers ? headers.get(name) : pick(headers, name);
    if (!value) throw new WebhookVerificationError(`missing ${name} header`);
    return value;
  };
  const id = header('webhook-id');
  const timestamp = header('webhook-timestamp');
  const signatures = header('webhook-signature');
  const seconds = /^\d+$/.test(timestamp) ? Number(timestamp) : NaN;
  const now = (options.now ?? new Date()).getTime() / 1000;
  if (!Number.isFinite(seconds)) throw new WebhookVerificationError('invalid webhook-timestamp');
  if (Math.abs(now - seconds) > TOLERANCE_SECONDS) {
    throw new WebhookVerificationError('webhook-timestamp too far from now');
  }

  const body = typeof payload === 'string' ? payload : new TextDecoder().decode(payload);
  const key = await crypto.subtle.importKey(
    'raw',
    toBuffer(secretKey(secret)),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['verify'],
  );
  const signed = toBuffer(new TextEncoder().encode(`${id}.${timestamp}.${body}`));
  for (const entry of signatures.split(' ')) {
    const [version, signature] = entry.split(',', 2);
    if (version !== 'v1' || !signature) continue;
    const bytes = base64(signature);
    // subtle.verify compares in constant time.
    if (bytes && (await crypto.subtle.verify('HMAC', key, toBuffer(bytes), signed))) {
      return JSON.parse(body) as WebhookEvent;
    }
  }
  throw new WebhookVerificationError('no matching signature');
}

function pick(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name) return Array.isArray(value) ? value.join(' ') : value;
  }
  return undefined;
}

function secretKey(secret: string): Uint8Array {
  if (!secret.startsWith('whsec_')) return new TextEncoder().encode(secret);
  const bytes = base64(secret.slice('whsec_'.length));
  if (!bytes || bytes.length === 0) throw new WebhookVerificationError('secret is not whsec_ + base64');
  return bytes;
}

function base64(text: string): Uint8Array | null {
  try {
    return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  } catch {
    return null;
  }
}

/** A copy in a plain ArrayBuffer (what Web Crypto's types accept). */
function toBuffer(bytes: Uint8Array): ArrayBuffer {
  return bytes.slice().buffer as ArrayBuffer;
}
