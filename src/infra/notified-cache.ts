import type { AppContext } from '../context.ts';
import { listenChannel, type ChannelSubscription } from './db/notifications.ts';

interface Entry {
  /** UTF-8 bytes: sending a Buffer skips encoding a string on every write (a quarter of the CPU). */
  body: Buffer;
  expiresAt: number;
  weight: number;
}

/** A read in flight: an invalidation that arrives while it runs makes its answer unfit to keep. */
export interface PendingRead {
  readonly key: string;
  dirty: boolean;
}

export interface NotifiedCacheOptions {
  /** The NOTIFY channel; each payload is a key to drop, or '*' for every key. */
  channel: string;
  /** How long an answer is kept at most: a safety net for a missed notification. 0 turns it off. */
  ttlMs: number;
  /** The bound on the sum of the entries' weights; the oldest keys go first. */
  maxWeight: number;
  /** An entry's weight: 1 to bound the number of entries, its byte length to bound memory. */
  weigh: (body: Buffer) => number;
  /**
   * Milliseconds on a monotonic clock, for the TTL (default `performance.now`). Elapsed real time, not
   * the service's business clock (`ctx.now()`), which tests move by days.
   */
  clock?: () => number;
}

/**
 * Serialized answers in memory, per key (a workspace) and then per variant of the request, dropped
 * when the database notifies a change of the key on `channel` (triggers send it in the transaction
 * of the write, whoever writes). Only while this instance is listening is anything served or kept:
 * a lost listening connection empties the cache and turns it off until it listens again. A read
 * registers with `begin` before it queries, so an invalidation that overtakes it is not lost.
 */
export class NotifiedCache {
  readonly #byKey = new Map<string, Map<string, Entry>>();
  readonly #pending = new Map<string, Set<PendingRead>>();
  #size = 0;
  #weight = 0;
  #listening = false;
  #subscription: ChannelSubscription | null = null;

  readonly channel: string;
  readonly ttlMs: number;
  readonly maxWeight: number;
  readonly #weigh: (body: Buffer) => number;
  readonly #clock: () => number;

  constructor(options: NotifiedCacheOptions) {
    this.channel = options.channel;
    this.ttlMs = options.ttlMs;
    this.maxWeight = options.maxWeight;
    this.#weigh = options.weigh;
    this.#clock = options.clock ?? (() => performance.now());
  }

  get enabled(): boolean {
    return this.ttlMs > 0;
  }

  async start(ctx: Pick<AppContext, 'database'>): Promise<void> {
    if (!this.enabled || this.#subscription) return;
    this.#subscription = await listenChannel(ctx.database, this.channel, {
      message: (payload) => (payload === '*' ? this.clear() : this.invalidate(payload)),
      listening: (on) => {
        this.clear();
        this.#listening = on;
      },
    });
  }

  async stop(): Promise<void> {
    const subscription = this.#subscription;
    this.#subscription = null;
    await subscription?.close();
    this.clear();
  }

  get(key: string, variant: string): Buffer | undefined {
    if (!this.#listening) return undefined;
    const entry = this.#byKey.get(key)?.get(variant);
    if (!entry) return undefined;
    if (entry.expiresAt > this.#clock()) return entry.body;
    this.#remove(key, variant);
    return undefined;
  }

  /** Call before reading the database; pass the result to `set` or `abandon`. */
  begin(key: string): PendingRead {
    const read: PendingRead = { key, dirty: false };
    let reads = this.#pending.get(key);
    if (!reads) this.#pending.set(key, (reads = new Set()));
    reads.add(read);
    return read;
  }

  abandon(read: PendingRead): void {
    const reads = this.#pending.get(read.key);
    reads?.delete(read);
    if (reads?.size === 0) this.#pending.delete(read.key);
  }

  /** Keeps the answer unless the key changed (or listening stopped) since `begin`. */
  set(read: PendingRead, variant: string, body: Buffer): void {
    this.abandon(read);
    if (read.dirty || !this.#listening) return;
    const weight = this.#weigh(body);
    if (weight > this.maxWeight) return;
    let variants = this.#byKey.get(read.key);
    if (!variants) this.#byKey.set(read.key, (variants = new Map()));
    const previous = variants.get(variant);
    if (previous) this.#weight -= previous.weight;
    else this.#size++;
    variants.set(variant, { body, expiresAt: this.#clock() + this.ttlMs, weight });
    this.#weight += weight;
    // Oldest key first (Map order is insertion order): a cheap bound, not an LRU.
    for (const oldest of this.#byKey.keys()) {
      if (this.#weight <= this.maxWeight) break;
      this.#drop(oldest);
    }
  }

  invalidate(key: string): void {
    this.#drop(key);
    for (const read of this.#pending.get(key) ?? []) read.dirty = true;
  }

  clear(): void {
    this.#byKey.clear();
    this.#size = 0;
    this.#weight = 0;
    for (const reads of this.#pending.values()) for (const read of reads) read.dirty = true;
  }

  /** Entries kept. */
  get size(): number {
    return this.#size;
  }

  /** The sum of their weights. */
  get weight(): number {
    return this.#weight;
  }

  #drop(key: string): void {
    const variants = this.#byKey.get(key);
    if (!variants) return;
    this.#byKey.delete(key);
    this.#size -= variants.size;
    for (const entry of variants.values()) this.#weight -= entry.weight;
  }

  #remove(key: string, variant: string): void {
    const variants = this.#byKey.get(key);
    const entry = variants?.get(variant);
    if (!variants || !entry) return;
    variants.delete(variant);
    this.#size--;
    this.#weight -= entry.weight;
    if (variants.size === 0) this.#byKey.delete(key);
  }
}

/**
 * The answer for `variant` of `key` as JSON bytes: the kept bytes when this instance has them, else
 * `load`'s, kept unless the key changed while `load` ran. A `load` that throws keeps nothing. The one
 * way a route reads through a NotifiedCache, so the begin/get/set/abandon protocol lives only here.
 */
export async function cachedJson(
  cache: NotifiedCache,
  key: string,
  variant: string,
  load: () => Promise<Buffer>,
): Promise<Buffer> {
  if (!cache.enabled) return load();
  const hit = cache.get(key, variant);
  if (hit !== undefined) return hit;
  const read = cache.begin(key);
  let body: Buffer;
  try {
    body = await load();
  } catch (error) {
    cache.abandon(read);
    throw error;
  }
  cache.set(read, variant, body);
  return body;
}
