import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { DomainError } from '../core/errors.ts';

/**
 * Webhook signing secrets, Standard Webhooks style. Two forms are accepted on registration:
 *  - `whsec_` + standard base64 of 24 to 64 random bytes (what we generate: 32 bytes); the key
 *    is the decoded bytes, exactly as `new Webhook(secret)` in the standardwebhooks libraries;
 *  - any other 24-128 visible ASCII characters (a password-style shared secret); the key is the
 *    ASCII bytes of the string, i.e. receivers verify with `new Webhook(secret, { format: 'raw' })`.
 * A string starting with `whsec_` is always read as the first form and must decode correctly.
 */

const PREFIX = 'whsec_';
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const RAW = /^[\x21-\x7e]{24,128}$/;

export function generateSecret(): string {
  return PREFIX + randomBytes(32).toString('base64');
}

/** Throws `invalid_secret` (400 Invalid Secret) when `secret` is neither accepted form. */
export function validateSecret(secret: string): void {
  if (secret.startsWith(PREFIX)) {
    const body = secret.slice(PREFIX.length);
    const bytes = BASE64.test(body) ? Buffer.from(body, 'base64').length : 0;
    if (bytes < 24 || bytes > 64) {
      throw new DomainError(
        'invalid_secret',
        'A secret starting with "whsec_" must continue with the standard base64 of 24 to 64 bytes.',
        { parameter: 'secret' },
      );
    }
    return;
  }
  if (!RAW.test(secret)) {
    throw new DomainError(
      'invalid_secret',
      'secret must be "whsec_" + base64 of 24-64 bytes, or 24 to 128 visible ASCII characters without spaces.',
      { parameter: 'secret' },
    );
  }
}

function signer(secret: string): Webhook {
  return secret.startsWith(PREFIX) ? new Webhook(secret) : new Webhook(secret, { format: 'raw' });
}

/**
 * The `webhook-signature` header value: one `v1,<base64 HMAC-SHA256>` per secret, space
 * separated (the Standard Webhooks form for several keys), or null when there is no secret.
 */
export function signatureHeader(
  secrets: string[],
  msgId: string,
  timestamp: Date,
  payload: string,
): string | null {
  if (secrets.length === 0) return null;
  return [...new Set(secrets)].map((s) => signer(s).sign(msgId, timestamp, payload)).join(' ');
}
