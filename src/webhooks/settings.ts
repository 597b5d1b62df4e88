import type { SecureContextOptions } from 'node:tls';
import type { AppContext } from '../context.ts';
import type { Resolver } from '../infra/net/destination.ts';

/** pg-boss retry options of a `webhooks.deliver` job. */
export interface RetryPolicy {
  /** Retries after the first attempt. */
  retryLimit: number;
  /** Seconds before the first retry. */
  retryDelay: number;
  retryBackoff: boolean;
  /** Cap of one delay in seconds (with backoff only). */
  retryDelayMax?: number;
}

/**
 * 1 attempt + 12 retries. pg-boss waits retryDelay * 2^(n-1) * (1 + jitter in [0,1)) seconds
 * before retry n, capped at 6 h: 30-60 s, 1-2 min, 2-4 min, ... so the 13th and last attempt
 * comes 20.5 to 26.5 hours after the first (docs/webhooks.md has the table).
 */
export const DELIVERY_RETRY: RetryPolicy = {
  retryLimit: 12,
  retryDelay: 30,
  retryBackoff: true,
  retryDelayMax: 6 * 3600,
};

export const MAX_WEBHOOKS_PER_WORKSPACE = 20;
export const ATTEMPT_TIMEOUT_MS = 10_000;
/** A webhook whose delivery exhausted its retries is disabled unless one succeeded within this window. */
export const DISABLE_AFTER_FAILING_MS = 24 * 3600 * 1000;

export interface WebhookSettings {
  retry: RetryPolicy;
  /** Whole attempt: DNS, connect, TLS, request and response headers. */
  attemptTimeoutMs: number;
  /** DNS answers for registration and delivery; the system resolver by default. */
  resolve?: Resolver;
  /** Trusted CA certificates, replacing the system roots (tests with a self-signed receiver). */
  ca?: SecureContextOptions['ca'];
}

const DEFAULTS: WebhookSettings = { retry: DELIVERY_RETRY, attemptTimeoutMs: ATTEMPT_TIMEOUT_MS };
const overrides = new WeakMap<AppContext, Partial<WebhookSettings>>();

/** Changes delivery settings of one running service (tests and the bench: short retries, a test CA). */
export function configureWebhooks(ctx: AppContext, settings: Partial<WebhookSettings>): void {
  overrides.set(ctx, { ...overrides.get(ctx), ...settings });
}

export function webhookSettings(ctx: AppContext): WebhookSettings {
  return { ...DEFAULTS, ...overrides.get(ctx) };
}
