import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import type { Plan, Scope } from '../../core/catalog.ts';
import type { DB, KeyMode } from '../db/types.ts';
import { randomBytes } from 'node:crypto';
import { parseKey, secretMatches } from './api-keys.ts';
import type { Principal } from './principal.ts';
import { actionsOfScopes } from '../../core/permissions.ts';

interface CachedKey {
  secretHash: Buffer;
  mode: KeyMode;
  /** Null for a key id that does not exist: remembered like a real key, so it costs the same. */
  principal: Principal | null;
  revoked: boolean;
  cachedAt: number;
  /** The exact Authorization header last verified against this entry (see `#verified`). */
  verifiedHeader?: string;
  /** When the key's use was last recorded (api_keys.last_used_at, ms), as this process knows it. */
  lastUsedAt: number | null;
}

/**
 * A key's `last_used_at` is written when it authenticates at most once per this interval (like a
 * session's last_seen_at), so reading with a key does not write on every request.
 */
export const KEY_LAST_USED_INTERVAL_MS = 60_000;

/**
 * Compared against when the key id is unknown: a random hash no secret matches (the chance is
 * 2^-256), so an unknown id and a wrong secret both run one SHA-256 and one constant-time compare.
 */
const UNKNOWN_KEY_HASH = randomBytes(32);

/**
 * Verifies bearer tokens. Verified key rows are kept in memory for `ttlMs`, so a hot key costs
 * no database round trip; the price is that a revocation (or plan change) made by another
 * process takes up to `ttlMs` to be seen here. Expiry is checked on every request. The secret
 * itself is compared in constant time on every request, cached or not.
 */
export class Authenticator {
  readonly #db: Kysely<DB>;
  readonly #ttlMs: number;
  readonly #cache = new Map<string, CachedKey>();
  /**
   * Authorization headers that passed the full check, keyed by the exact header (which holds the
   * whole secret), pointing at the key-id entry they were verified against. A hit skips parsing,
   * SHA-256 and the compare: the lookup cannot match on a partial secret (the Map hashes the whole
   * string, and compares strings only on a hash match), and only the full valid token finds an
   * entry. A miss (any wrong, unknown or new token) takes the full path below. An entry is valid only
   * while its key-id entry is the one cached (same TTL, dropped with it by `forget` and eviction),
   * so this cache holds at most one header per cached key id. See docs/adr/0144-shared-per-request-work.md.
   */
  readonly #verified = new Map<string, CachedKey>();
  /**
   * Key ids that do not exist, remembered apart (and fewer): a flood of made-up keys evicts only
   * other made-up keys, never a real key from #cache.
   */
  readonly #unknown = new Map<string, CachedKey>();
  readonly #maxEntries: number;
  readonly #maxUnknown: number;

  constructor(db: Kysely<DB>, ttlMs: number, limits: { maxEntries?: number; maxUnknown?: number } = {}) {
    this.#db = db;
    this.#ttlMs = ttlMs;
    this.#maxEntries = limits.maxEntries ?? 50_000;
    this.#maxUnknown = limits.maxUnknown ?? 10_000;
  }

  /**
   * The principal of an Authorization header verified earlier within the cache TTL, from memory
   * (expiry still checked); undefined when the header needs the full check (`authenticate`).
   */
  authenticateCached(authorization: string | undefined, now = Date.now()): Principal | null | undefined {
    if (!authorization) return null;
    const entry = this.#verified.get(authorization);
    if (entry === undefined) return undefined;
    if (now - entry.cachedAt >= this.#ttlMs || this.#cache.get(entry.principal!.keyId) !== entry) {
      this.#verified.delete(authorization);
      return undefined;
    }
    const principal = entry.principal!;
    if (principal.expiresAt !== null && principal.expiresAt <= now) return null;
    return principal;
  }

  /** Whether a cached key's use is due to be recorded (`recordUseIfDue`): at most once per interval. */
  useDue(keyId: string, now = Date.now()): boolean {
    const entry = this.#cache.get(keyId);
    return entry !== undefined && usedLongAgo(entry, now);
  }

  /** Records a cached key's use when it is due (a principal from `authenticateCached`). */
  async recordUseIfDue(keyId: string, now = Date.now()): Promise<void> {
    const entry = this.#cache.get(keyId);
    if (entry !== undefined && usedLongAgo(entry, now)) await this.#recordUse(keyId, entry, now);
  }

  /** Returns the principal, or null for a missing, malformed, unknown, expired or revoked key. */
  async authenticate(authorization: string | undefined, now = Date.now()): Promise<Principal | null> {
    const cached = this.authenticateCached(authorization, now);
    if (cached !== undefined) return cached;
    if (!authorization) return null;
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!match) return null;
    const parsed = parseKey(match[1]!);
    if (!parsed) return null;

    // Unknown ids, wrong secrets, revoked and expired keys take the same path: the same cache
    // (unknown ids are cached too), the same one query on a miss, the same hash and compare.
    // Only then is the outcome decided, so timing does not tell which key ids exist.
    let entry = this.#cache.get(parsed.id) ?? this.#unknown.get(parsed.id);
    if (!entry || now - entry.cachedAt >= this.#ttlMs) {
      entry = await this.#load(parsed.id, now);
      if (this.#ttlMs > 0) this.#remember(parsed.id, entry);
    }
    const matches = secretMatches(parsed.secret, entry.secretHash);
    const principal = entry.principal;
    if (!matches || principal === null || entry.revoked || parsed.mode !== entry.mode) return null;
    if (principal.expiresAt !== null && principal.expiresAt <= now) return null;
    if (usedLongAgo(entry, now)) await this.#recordUse(parsed.id, entry, now);
    // Verified: later requests with this exact header skip the hash while the entry stays cached.
    if (this.#ttlMs > 0 && this.#cache.get(parsed.id) === entry) {
      if (entry.verifiedHeader !== undefined) this.#verified.delete(entry.verifiedHeader);
      entry.verifiedHeader = authorization;
      this.#verified.set(authorization, entry);
    }
    return principal;
  }

  /**
   * Records that a key was used (api_keys.last_used_at). Conditional, so instances sharing the
   * database write it at most once per interval between them. A failed write does not refuse the
   * request: the next one tries again.
   */
  async #recordUse(id: string, entry: CachedKey, now: number): Promise<void> {
    try {
      await this.#db
        .updateTable('api_keys')
        .set({ last_used_at: new Date(now) })
        .where('id', '=', id)
        .where((eb) =>
          eb.or([
            eb('last_used_at', 'is', null),
            eb('last_used_at', '<=', new Date(now - KEY_LAST_USED_INTERVAL_MS)),
          ]),
        )
        .execute();
      entry.lastUsedAt = now;
    } catch {
      // The database is unreachable or busy: the key stays usable; its last use is written later.
    }
  }

  /** Drops a key from this process's cache at once (used by in-process revocation). */
  forget(keyId: string): void {
    this.#drop(keyId);
  }

  #drop(id: string): void {
    this.#unknown.delete(id);
    const entry = this.#cache.get(id);
    if (entry === undefined) return;
    this.#cache.delete(id);
    if (entry.verifiedHeader !== undefined) this.#verified.delete(entry.verifiedHeader);
  }

  #remember(id: string, entry: CachedKey): void {
    this.#drop(id); // re-inserted at the end: the oldest entry is evicted first
    const [map, max] =
      entry.principal === null ? [this.#unknown, this.#maxUnknown] : [this.#cache, this.#maxEntries];
    if (map.size >= max) {
      const oldest = map.keys().next().value;
      if (oldest !== undefined) this.#drop(oldest);
    }
    map.set(id, entry);
  }

  async #load(id: string, now: number): Promise<CachedKey> {
    const unknown: CachedKey = {
      secretHash: UNKNOWN_KEY_HASH,
      mode: 'live',
      principal: null,
      revoked: false,
      cachedAt: now,
      lastUsedAt: null,
    };
    // One row whether or not the id exists (nulls when it does not), and the workspace index is
    // probed either way: an unknown id costs the database what a known one does.
    const result = await sql<{
      id: string | null;
      secret_hash: Buffer | null;
      mode: KeyMode | null;
      scopes: Scope[] | null;
      expires_at: Date | null;
      revoked_at: Date | null;
      last_used_at: Date | null;
      workspace_id: string | null;
      subscriber_id: string | null;
      plan: Plan | null;
      account_type: string | null;
    }>`
      SELECT k.id, k.secret_hash, k.mode, k.scopes, k.expires_at, k.revoked_at, k.last_used_at, k.workspace_id,
             k.subscriber_id, w.plan, w.account_type
      FROM (SELECT ${id}::text AS id) q
      LEFT JOIN api_keys k ON k.id = q.id
      LEFT JOIN workspaces w ON w.id = coalesce(k.workspace_id, '')`.execute(this.#db);
    const found = result.rows[0];
    const row = found && found.id !== null && found.secret_hash !== null ? found : null;
    if (!row) return unknown;
    const expiresAt = row.expires_at ? new Date(row.expires_at).getTime() : null;
    const base = { keyId: row.id!, scopes: row.scopes ?? [], expiresAt };
    let principal: Principal;
    if (row.workspace_id && row.plan) {
      principal = {
        ...base,
        kind: 'workspace',
        actions: actionsOfScopes(base.scopes),
        personId: null,
        role: null,
        workspaceId: row.workspace_id,
        plan: row.plan,
        accountType: row.account_type ?? 'brand',
      };
    } else if (row.subscriber_id) {
      principal = { ...base, kind: 'subscriber', subscriberId: row.subscriber_id };
    } else {
      return unknown;
    }
    return {
      secretHash: Buffer.from(row.secret_hash!),
      mode: row.mode ?? 'live',
      principal,
      revoked: row.revoked_at !== null,
      cachedAt: now,
      lastUsedAt: row.last_used_at ? new Date(row.last_used_at).getTime() : null,
    };
  }
}

function usedLongAgo(entry: CachedKey, now: number): boolean {
  return entry.lastUsedAt === null || now - entry.lastUsedAt >= KEY_LAST_USED_INTERVAL_MS;
}
