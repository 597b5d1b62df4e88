import { Redis } from 'ioredis';
import { MemoryRateLimitStore, type RateLimitStore, type StoreHealth, type WindowHit } from './store.ts';

// Its own module, imported only when REDIS_URL is set (src/service.ts): ioredis adds about 20 MB of
// resident memory to a process that loads it, which a single instance without Redis does not need.

// INCR and the expiry in one atomic step, so every instance sharing Redis counts one window.
const HIT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
return {count, ttl}
`;

/** How Redis is used here; bounds chosen so an unreachable Redis costs a request at most ~0.25 s (and a busy event loop on a loaded host does not trip the breaker). */
export const REDIS_LIMITS = {
  /** A command not answered in this time fails (a Redis that accepts connections but never answers). */
  commandTimeoutMs: 250,
  /** A connection not established in this time fails and is retried in the background. */
  connectTimeoutMs: 1_000,
  /** After a failure, count in process for this long before trying Redis again. */
  breakerOpenMs: 5_000,
} as const;

/**
 * Fixed-window counts shared by every instance through Redis. When Redis fails (refused, timed
 * out, not connected), the store counts in process instead for REDIS_LIMITS.breakerOpenMs, then
 * tries Redis again: each instance then enforces the limit alone
 * (docs/adr/0149-redis-outage-per-instance-limits.md), and no request waits on a dead Redis. Commands are
 * never queued while disconnected (they fail at once) and never retried.
 */
export class RedisRateLimitStore implements RateLimitStore {
  readonly #redis: Redis;
  readonly #local = new MemoryRateLimitStore();
  readonly #onChange: (health: StoreHealth, error?: unknown) => void;
  #openUntil = 0;
  #health: StoreHealth = 'ok';

  constructor(
    url: string,
    options: { onHealthChange?: (health: StoreHealth, error?: unknown) => void } = {},
  ) {
    this.#onChange = options.onHealthChange ?? (() => {});
    this.#redis = new Redis(url, {
      lazyConnect: false,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: REDIS_LIMITS.commandTimeoutMs,
      connectTimeout: REDIS_LIMITS.connectTimeoutMs,
      // Keep reconnecting in the background, at most every 2 s.
      retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
    });
    this.#redis.on('error', () => {});
  }

  health(): StoreHealth {
    return this.#health;
  }

  async hit(key: string, windowMs: number, now = Date.now()): Promise<WindowHit> {
    if (Date.now() < this.#openUntil) return this.#local.hitNow(key, windowMs, now);
    const start = now - (now % windowMs);
    const redisKey = `bh:rl:${key}:${start}`;
    try {
      const [count, ttl] = (await this.#redis.eval(HIT_SCRIPT, 1, redisKey, String(windowMs))) as [
        number,
        number,
      ];
      this.#setHealth('ok');
      return { count, resetMs: ttl > 0 ? ttl : start + windowMs - now };
    } catch (error) {
      this.#openUntil = Date.now() + REDIS_LIMITS.breakerOpenMs;
      this.#setHealth('degraded', error);
      return this.#local.hitNow(key, windowMs, now);
    }
  }

  #setHealth(health: StoreHealth, error?: unknown): void {
    if (health === this.#health) return;
    this.#health = health;
    this.#onChange(health, error);
  }

  async close(): Promise<void> {
    // quit() waits for an answer a dead Redis never gives: bounded like any command.
    const quit = this.#redis.quit().catch(() => {});
    const timeout = new Promise<void>((resolve) =>
      setTimeout(resolve, REDIS_LIMITS.connectTimeoutMs).unref(),
    );
    await Promise.race([quit, timeout]);
    this.#redis.disconnect();
  }
}
