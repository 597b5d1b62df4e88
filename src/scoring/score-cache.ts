import type { AppContext } from '../context.ts';
import { listenChannel, type ChannelSubscription } from '../infra/db/notifications.ts';
import { stateSlot } from '../infra/state.ts';

/** Sent by the triggers of migration 0062 with a workspace id, or '*' for every workspace. */
export const SCORE_CHANNEL = 'score_changed';

interface Entry {
  /** UTF-8 bytes: sending a Buffer skips encoding the string on every write (a quarter of the CPU). */
  body: Buffer;
  expiresAt: number;
}

/** A read in flight: an invalidation that arrives while it runs makes its answer unfit to keep. */
export interface PendingRead {
  readonly workspaceId: string;
  dirty: boolean;
}

/**
 * GET /v1/score answers, serialized, per requested workspace and then per (key owner, plan,
 * include_pillars, UTC day) — the key owner first of all, so an answer is only ever found again
 * by a key of the same tenancy. Everything the answer is computed from notifies on change (see
 * migration 0062), and only while this instance is listening is anything served or kept: a lost
 * listening connection empties the cache and turns it off until it listens again. The TTL bounds
 * what a missed notification could cost.
 */
export class ScoreCache {
  readonly #byWorkspace = new Map<string, Map<string, Entry>>();
  readonly #pending = new Map<string, Set<PendingRead>>();
  #size = 0;
  #listening = false;
  #subscription: ChannelSubscription | null = null;

  readonly ttlMs: number;
  readonly maxEntries: number;

  constructor(ttlMs: number, maxEntries: number) {
    this.ttlMs = ttlMs;
    this.maxEntries = maxEntries;
  }

  get enabled(): boolean {
    return this.ttlMs > 0;
  }

  async start(ctx: AppContext): Promise<void> {
    if (!this.enabled || this.#subscription) return;
    this.#subscription = await listenChannel(ctx.database, SCORE_CHANNEL, {
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

  get(workspaceId: string, variant: string, nowMs: number): Buffer | undefined {
    if (!this.#listening) return undefined;
    const entry = this.#byWorkspace.get(workspaceId)?.get(variant);
    if (!entry) return undefined;
    if (entry.expiresAt > nowMs) return entry.body;
    this.#remove(workspaceId, variant);
    return undefined;
  }

  /** Call before reading the database; pass the result to `set` or `abandon`. */
  begin(workspaceId: string): PendingRead {
    const read: PendingRead = { workspaceId, dirty: false };
    let reads = this.#pending.get(workspaceId);
    if (!reads) this.#pending.set(workspaceId, (reads = new Set()));
    reads.add(read);
    return read;
  }

  abandon(read: PendingRead): void {
    const reads = this.#pending.get(read.workspaceId);
    reads?.delete(read);
    if (reads?.size === 0) this.#pending.delete(read.workspaceId);
  }

  /** Keeps the answer unless the workspace changed (or listening stopped) since `begin`. */
  set(read: PendingRead, variant: string, body: Buffer, nowMs: number): void {
    this.abandon(read);
    if (read.dirty || !this.#listening) return;
    let variants = this.#byWorkspace.get(read.workspaceId);
    if (!variants) this.#byWorkspace.set(read.workspaceId, (variants = new Map()));
    if (!variants.has(variant)) this.#size++;
    variants.set(variant, { body, expiresAt: nowMs + this.ttlMs });
    // Oldest workspace first (Map order is insertion order): a cheap bound, not an LRU.
    for (const [oldest, entries] of this.#byWorkspace) {
      if (this.#size <= this.maxEntries) break;
      this.#size -= entries.size;
      this.#byWorkspace.delete(oldest);
    }
  }

  invalidate(workspaceId: string): void {
    const variants = this.#byWorkspace.get(workspaceId);
    if (variants) {
      this.#size -= variants.size;
      this.#byWorkspace.delete(workspaceId);
    }
    for (const read of this.#pending.get(workspaceId) ?? []) read.dirty = true;
  }

  clear(): void {
    this.#byWorkspace.clear();
    this.#size = 0;
    for (const reads of this.#pending.values()) for (const read of reads) read.dirty = true;
  }

  get size(): number {
    return this.#size;
  }

  #remove(workspaceId: string, variant: string): void {
    const variants = this.#byWorkspace.get(workspaceId);
    if (!variants?.delete(variant)) return;
    this.#size--;
    if (variants.size === 0) this.#byWorkspace.delete(workspaceId);
  }
}

const SCORE_CACHE = stateSlot('scoring.score-cache', () => ({ cache: null as ScoreCache | null }));

/** This service's score cache, configured by SCORE_CACHE_TTL_MS and SCORE_CACHE_ENTRIES. */
export function scoreCache(ctx: Pick<AppContext, 'state' | 'config'>): ScoreCache {
  const slot = ctx.state.get(SCORE_CACHE);
  slot.cache ??= new ScoreCache(ctx.config.scoreCacheTtlMs, ctx.config.scoreCacheEntries);
  return slot.cache;
}
