export interface WindowHit {
  /** Requests counted in the current window, this one included. */
  count: number;
  /** Milliseconds until the window resets. */
  resetMs: number;
}

/** 'degraded': the shared store is unreachable and this instance counts on its own. */
export type StoreHealth = 'ok' | 'degraded';

/** Fixed-window counters keyed by API key. One interface, two homes for the counts. */
export interface RateLimitStore {
  /** Whether the counts are where they should be (always 'ok' for the in-process store). */
  health?(): StoreHealth;
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
