import type { SecureContextOptions } from 'node:tls';
import type { AppContext } from '../context.ts';
import type { Resolver } from '../infra/net/destination.ts';
import { stateSlot } from '../infra/state.ts';

export const MAX_WEBHOOKS_PER_WORKSPACE = 20;
export const ATTEMPT_TIMEOUT_MS = 10_000;
/** A webhook whose delivery exhausted its retries is disabled unless one succeeded within this window. */
export const DISABLE_AFTER_FAILING_MS = 24 * 3600 * 1000;

/**
 * When a delivery that failed at the receiver is tried again: attempt n+1 comes
 * delaySeconds * 2^(n-1) * (1 + jitter in [0,1)) seconds after attempt n, capped at maxDelaySeconds;
 * `attempts` in all. Defaults: 13 attempts, 30-60 s, 1-2 min, 2-4 min... so the last comes 20.5 to
 * 26.5 hours after the first (docs/webhooks.md has the table).
 */
export interface DeliverySchedule {
  attempts: number;
  delaySeconds: number;
  maxDelaySeconds: number;
  jitter: boolean;
}

export const DELIVERY_SCHEDULE: DeliverySchedule = {
  attempts: 13,
  delaySeconds: 30,
  maxDelaySeconds: 6 * 3600,
  jitter: true,
};

/** Seconds from attempt `attempt` (1-based) to the next one. */
export function retryDelaySeconds(schedule: DeliverySchedule, attempt: number): number {
  const base = schedule.delaySeconds * 2 ** (attempt - 1) * (1 + (schedule.jitter ? Math.random() : 0));
  return Math.min(Math.round(base), schedule.maxDelaySeconds);
}

export interface WebhookSettings {
  /** Receiver failures: when and how often a delivery is tried again. */
  schedule: DeliverySchedule;
  /** Whole attempt: DNS, connect, TLS, request and response headers. */
  attemptTimeoutMs: number;
  /** DNS answers for registration and delivery; the system resolver by default. */
  resolve?: Resolver;
  /** Trusted CA certificates, replacing the system roots (tests with a self-signed receiver). */
  ca?: SecureContextOptions['ca'];
}

/** This service's settings: the defaults until configureWebhooks changes them. */
const SETTINGS = stateSlot<{ current: WebhookSettings }>('webhooks.settings', () => ({
  current: { attemptTimeoutMs: ATTEMPT_TIMEOUT_MS, schedule: DELIVERY_SCHEDULE },
}));

/** Changes delivery settings of one running service (tests: a test CA, a fake resolver, a short schedule). */
export function configureWebhooks(ctx: Pick<AppContext, 'state'>, settings: Partial<WebhookSettings>): void {
  const slot = ctx.state.get(SETTINGS);
  slot.current = { ...slot.current, ...settings };
}

export function webhookSettings(ctx: Pick<AppContext, 'state'>): WebhookSettings {
  return ctx.state.get(SETTINGS).current;
}
