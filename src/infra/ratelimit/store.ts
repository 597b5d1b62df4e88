import { Redis } from 'ioredis';

export interface WindowHit {
  /** Requests counted in the current window, this one included. */
  count: number;
  /** Milliseconds until the window resets. */
  resetMs: number;
}

/** Fixed-window counters keyed by API key. One interface, two homes for the counts. */
export interface RateLimitStore {
  hit(key: string, windowMs: number, now?: number): Promise<WindowHit>;
  /** The same, synchronously, for a store that counts in process (no promise on the hot path). */
  hitNow?(key: string, windowMs: number, now?: number): WindowHit;
  close(): Promise<void>;
}

export class MemoryRateLimitStore implements RateLimitStore {
  readonly #windows = new Map<string, { start: number; count: number }>();

  async hit(key: string, windowMs: number, now = Date.now()): Promise<WindowHit> {
    return this.hitNow(key, windowMs, now);
  }

  hitNow(key: string, windowMs: number, now = Date.now()): WindowHit {
    const start = now - (now % windowMs);
    let window = this.#windows.get(key);
    if (!window || window.start !== start) {
      window = { start, count: 0 };
      this.#windows.set(key, window);
      if (this.#windows.size > 100_000) this.#sweep(start);
    }
    window.count += 1;
    return { count: window.count, resetMs: start + windowMs - now };
  }

  #sweep(currentStart: number): void {
    for (const [key, w] of this.#windows) if (w.start < currentStart) this.#windows.delete(key);
  }

  async close(): Promise<void> {}
}

// INCR and the expiry in one atomic step, so every instance sharing Redis counts one window.
const HIT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
return {count, ttl}
`;

export class RedisRateLimitStore implements RateLimitStore {
  readonly #redis: Redis;

  constructor(url: string) {
    this.#redis = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 1, enableOfflineQueue: true });
    this.#redis.on('error', () => {});
  }

  async hit(key: string, windowMs: number, now = Date.now()): Promise<WindowHit> {
    const start = now - (now % windowMs);
    const redisKey = `bh:rl:${key}:${start}`;
    const [count, ttl] = (await this.#redis.eval(HIT_SCRIPT, 1, redisKey, String(windowMs))) as [
      number,
      number,
    ];
    return { count, resetMs: ttl > 0 ? ttl : start + windowMs - now };
  }

  async close(): Promise<void> {
    await this.#redis.quit().catch(() => this.#redis.disconnect());
  }
}
