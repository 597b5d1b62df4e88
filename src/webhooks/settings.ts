import type { SecureContextOptions } from 'node:tls';
import type { AppContext } from '../context.ts';
import type { Resolver } from '../infra/net/destination.ts';
import { stateSlot } from '../infra/state.ts';

export const MAX_WEBHOOKS_PER_WORKSPACE = 20;
export const ATTEMPT_TIMEOUT_MS = 10_000;
/** A webhook whose delivery exhausted its retries is disabled unless one succeeded within this window. */
export const DISABLE_AFTER_FAILING_MS = 24 * 3600 * 1000;

export interface WebhookSettings {
  /** Whole attempt: DNS, connect, TLS, request and response headers. */
  attemptTimeoutMs: number;
  /** DNS answers for registration and delivery; the system resolver by default. */
  resolve?: Resolver;
  /** Trusted CA certificates, replacing the system roots (tests with a self-signed receiver). */
  ca?: SecureContextOptions['ca'];
}

/** This service's settings: the defaults until configureWebhooks changes them. */
const SETTINGS = stateSlot<{ current: WebhookSettings }>('webhooks.settings', () => ({
  current: { attemptTimeoutMs: ATTEMPT_TIMEOUT_MS },
}));

/** Changes delivery settings of one running service (tests: a test CA, a fake resolver). Retries: ctx.jobs.setRetry. */
export function configureWebhooks(ctx: Pick<AppContext, 'state'>, settings: Partial<WebhookSettings>): void {
  const slot = ctx.state.get(SETTINGS);
  slot.current = { ...slot.current, ...settings };
}

export function webhookSettings(ctx: Pick<AppContext, 'state'>): WebhookSettings {
  return ctx.state.get(SETTINGS).current;
}
