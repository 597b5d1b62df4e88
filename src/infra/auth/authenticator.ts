import type { Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { parseKey, secretMatches } from './api-keys.ts';
import type { Principal } from './principal.ts';

interface CachedKey {
  secretHash: Buffer;
  principal: Principal;
  revoked: boolean;
  cachedAt: number;
}

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
  readonly #maxEntries = 50_000;

  constructor(db: Kysely<DB>, ttlMs: number) {
    this.#db = db;
    this.#ttlMs = ttlMs;
  }

  /** Returns the principal, or null for a missing, malformed, unknown, expired or revoked key. */
  async authenticate(authorization: string | undefined, now = Date.now()): Promise<Principal | null> {
    if (!authorization) return null;
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!match) return null;
    const parsed = parseKey(match[1]!);
    if (!parsed) return null;

    let entry = this.#cache.get(parsed.id);
    if (!entry || now - entry.cachedAt >= this.#ttlMs) {
      const loaded = await this.#load(parsed.id, now);
      if (!loaded) {
        this.#cache.delete(parsed.id);
        return null;
      }
      entry = loaded;
      if (this.#ttlMs > 0) this.#remember(parsed.id, entry);
    }
    if (entry.revoked) return null;
    if (!secretMatches(parsed.secret, entry.secretHash)) return null;
    const expiresAt = entry.principal.expiresAt;
    if (expiresAt !== null && expiresAt <= now) return null;
    return entry.principal;
  }

  /** Drops a key from this process's cache at once (used by in-process revocation). */
  forget(keyId: string): void {
    this.#cache.delete(keyId);
  }

  #remember(id: string, entry: CachedKey): void {
    if (this.#cache.size >= this.#maxEntries) {
      const oldest = this.#cache.keys().next().value;
      if (oldest !== undefined) this.#cache.delete(oldest);
    }
    this.#cache.set(id, entry);
  }

  async #load(id: string, now: number): Promise<CachedKey | null> {
    const row = await this.#db
      .selectFrom('api_keys as k')
      .leftJoin('workspaces as w', 'w.id', 'k.workspace_id')
      .select([
        'k.id',
        'k.secret_hash',
        'k.scopes',
        'k.expires_at',
        'k.revoked_at',
        'k.workspace_id',
        'k.subscriber_id',
        'w.plan',
        'w.account_type',
      ])
      .where('k.id', '=', id)
      .executeTakeFirst();
    if (!row) return null;
    const expiresAt = row.expires_at ? new Date(row.expires_at).getTime() : null;
    const base = { keyId: row.id, scopes: row.scopes, expiresAt };
    let principal: Principal;
    if (row.workspace_id && row.plan) {
      principal = {
        ...base,
        kind: 'workspace',
        workspaceId: row.workspace_id,
        plan: row.plan,
        accountType: row.account_type ?? 'brand',
      };
    } else if (row.subscriber_id) {
      principal = { ...base, kind: 'subscriber', subscriberId: row.subscriber_id };
    } else {
      return null;
    }
    return {
      secretHash: Buffer.from(row.secret_hash),
      principal,
      revoked: row.revoked_at !== null,
      cachedAt: now,
    };
  }
}
