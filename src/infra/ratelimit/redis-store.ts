import { Redis } from 'ioredis';
import type { RateLimitStore, WindowHit } from './store.ts';

// Its own module, imported only when REDIS_URL is set (src/service.ts): ioredis adds about 20 MB of
// resident memory to a process that loads it, which a single instance without Redis does not need.

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
