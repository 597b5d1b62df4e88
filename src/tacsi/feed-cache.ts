// Hot TACSI responses served from memory. Published cells never change, so a serialized body and its
// ETag stay valid until a new cell lands. A publication through this service bumps its cache's
// generation and drops everything at once; one in another process (a CLI run, another instance) is seen within the
// TTL. Only published data is cached: entitlement checks run on every request, before the cache.
// Not a NotifiedCache: published data is global and changes only on publication, so an instance-local
// generation plus a TTL is enough (docs/architecture.md "State lives in the context").
import { createHash } from 'node:crypto';
import type { AppContext } from '../context.ts';
import { stateSlot } from '../infra/state.ts';

/** How long another process's publication can take to appear here. */
export const FEED_CACHE_TTL_MS = 30_000;
const MAX_ENTRIES = 2_000;

export interface CachedFeed {
  /**
   * The response body (JSON) as UTF-8 bytes, what is sent: a string would be encoded again on every
   * write (the largest share of the feeds' CPU in profiles; the score cache keeps bytes for the same
   * reason). Only bytes are kept; the rare CSV answer decodes them.
   */
  bytes: Buffer;
  /** Strong validator: a hash of those bytes. */
  etag: string;
}

const FEED_CACHE = stateSlot('tacsi.feed-cache', () => new FeedCache());

/** This service's feed cache (one per service: two services in one process never share it). */
export function feedCache(ctx: Pick<AppContext, 'state'>): FeedCache {
  return ctx.state.get(FEED_CACHE);
}

/** Called by the publisher after a commit that published at least one cell. */
export function notePublication(ctx: Pick<AppContext, 'state'>): void {
  feedCache(ctx).invalidate();
}

export function strongEtag(body: string | Buffer): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"`;
}

interface Entry {
  value: Promise<CachedFeed | null>;
  generation: number;
  expiresAt: number;
}

export class FeedCache {
  readonly #entries = new Map<string, Entry>();
  readonly #ttlMs: number;
  readonly #clock: () => number;
  #generation = 0;

  constructor(ttlMs = FEED_CACHE_TTL_MS, clock: () => number = () => performance.now()) {
    this.#ttlMs = ttlMs;
    this.#clock = clock;
  }

  /**
   * The cached response for `key`, building its body with `build` (JSON bytes as the route's own
   * serializer writes them; null = nothing published) on a miss. Concurrent misses share one build; a
   * failed build is not cached.
   */
  get(key: string, build: () => Promise<Buffer | null>): Promise<CachedFeed | null> {
    const now = this.#clock();
    const hit = this.#entries.get(key);
    if (hit && hit.generation === this.#generation && hit.expiresAt > now) return hit.value;
    if (hit) this.#entries.delete(key);
    if (this.#entries.size >= MAX_ENTRIES) {
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
    const value = build().then((bytes) => (bytes === null ? null : { bytes, etag: strongEtag(bytes) }));
    const entry: Entry = { value, generation: this.#generation, expiresAt: now + this.#ttlMs };
    this.#entries.set(key, entry);
    value.catch(() => {
      if (this.#entries.get(key) === entry) this.#entries.delete(key);
    });
    return value;
  }

  /** Everything cached so far is stale (a cell was published). */
  invalidate(): void {
    this.#generation += 1;
  }

  clear(): void {
    this.#entries.clear();
  }
}

/** RFC 9110 If-None-Match: true when one of the listed validators (or *) matches `etag`. */
export function ifNoneMatchHits(header: string | string[] | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const value = Array.isArray(header) ? header.join(',') : header;
  if (value.trim() === '*') return true;
  // If-None-Match uses the weak comparison: W/ prefixes are ignored.
  return value.split(',').some((candidate) => candidate.trim().replace(/^W\//, '') === etag);
}
