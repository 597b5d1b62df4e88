import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { KeyRingError, type KeyRing } from './keyring.ts';

/**
 * Every column that holds a sealed secret, with the column beside it that names the key. Start-up
 * checks and key rotation walk this list, so a new secret (e.g. platform OAuth tokens) is covered
 * by adding it here.
 */
export interface SealedColumn {
  table: keyof DB & string;
  /** SQL expression naming a row uniquely (a trusted constant: it is inlined). */
  idColumn: string;
  column: string;
  keyIdColumn: string;
  /** Bound to the ciphertext (AAD): values of one purpose never open as another. */
  purpose: string;
}

export const WEBHOOK_SECRET_PURPOSE = 'webhook-secret';
export const IDEMPOTENT_RESPONSE_PURPOSE = 'idempotent-response';
export const PLATFORM_TOKEN_PURPOSE = 'platform-token';
export const OAUTH_VERIFIER_PURPOSE = 'oauth-verifier';

export const SEALED_COLUMNS: SealedColumn[] = [
  {
    table: 'webhooks',
    idColumn: 'id',
    column: 'secret',
    keyIdColumn: 'secret_key_id',
    purpose: WEBHOOK_SECRET_PURPOSE,
  },
  {
    table: 'webhook_deliveries',
    idColumn: 'id',
    column: 'secret',
    keyIdColumn: 'secret_key_id',
    purpose: WEBHOOK_SECRET_PURPOSE,
  },
  {
    table: 'audits',
    idColumn: 'id',
    column: 'webhook_secret',
    keyIdColumn: 'webhook_secret_key_id',
    purpose: WEBHOOK_SECRET_PURPOSE,
  },
  {
    // A replayed response may carry a secret shown once (a webhook's, an audit's delivery secret).
    table: 'idempotency_keys',
    idColumn: "owner_key_id || '/' || idempotency_key",
    column: 'response_sealed',
    keyIdColumn: 'response_key_id',
    purpose: IDEMPOTENT_RESPONSE_PURPOSE,
  },
  {
    table: 'platform_connections',
    idColumn: 'id',
    column: 'access_token',
    keyIdColumn: 'access_token_key_id',
    purpose: PLATFORM_TOKEN_PURPOSE,
  },
  {
    table: 'platform_connections',
    idColumn: 'id',
    column: 'refresh_token',
    keyIdColumn: 'refresh_token_key_id',
    purpose: PLATFORM_TOKEN_PURPOSE,
  },
  {
    table: 'oauth_states',
    idColumn: 'state_hash',
    column: 'code_verifier',
    keyIdColumn: 'code_verifier_key_id',
    purpose: OAUTH_VERIFIER_PURPOSE,
  },
  {
    // A connect attempt waiting for the brand to pick an account holds the user's tokens.
    table: 'oauth_states',
    idColumn: 'state_hash',
    column: 'access_token',
    keyIdColumn: 'access_token_key_id',
    purpose: PLATFORM_TOKEN_PURPOSE,
  },
  {
    table: 'oauth_states',
    idColumn: 'state_hash',
    column: 'refresh_token',
    keyIdColumn: 'refresh_token_key_id',
    purpose: PLATFORM_TOKEN_PURPOSE,
  },
];

const BATCH = 500;

/** Key ids that sealed stored values but are not in the ring: those values cannot be opened. */
export async function missingKeyIds(db: Kysely<DB>, keyRing: KeyRing): Promise<string[]> {
  const found = new Set<string>();
  for (const c of SEALED_COLUMNS) {
    const rows = await sql<{ kid: string }>`
      SELECT DISTINCT ${sql.ref(c.keyIdColumn)} AS kid FROM ${sql.table(c.table)}
      WHERE ${sql.ref(c.keyIdColumn)} IS NOT NULL`.execute(db);
    for (const r of rows.rows) if (!keyRing.has(r.kid)) found.add(r.kid);
  }
  return [...found].sort();
}

/**
 * Refuses to start when a stored value's key is not configured, or a configured key id holds other
 * key material than the one that sealed (one sample per column and key id is opened), with what to
 * do about it: better a clean refusal at start than failed deliveries later.
 */
export async function assertKeysPresent(db: Kysely<DB>, keyRing: KeyRing): Promise<void> {
  const missing = await missingKeyIds(db, keyRing);
  if (missing.length > 0) {
    throw new KeyRingError(
      `stored secrets are sealed with key id${missing.length > 1 ? 's' : ''} ${missing.map((k) => `"${k}"`).join(', ')}, ` +
        `which the key ring does not hold (it has ${keyRing.keyIds.map((k) => `"${k}"`).join(', ')}). ` +
        'Add the missing key to ENCRYPTION_KEYS (after the active one), run `brandhealth encryption rotate`, then remove it.',
    );
  }
  for (const c of SEALED_COLUMNS) {
    const samples = await sql<{ value: string; kid: string }>`
      SELECT DISTINCT ON (${sql.ref(c.keyIdColumn)}) ${sql.ref(c.column)} AS value, ${sql.ref(c.keyIdColumn)} AS kid
      FROM ${sql.table(c.table)} WHERE ${sql.ref(c.keyIdColumn)} IS NOT NULL`.execute(db);
    for (const s of samples.rows) {
      try {
        keyRing.open({ ciphertext: s.value, keyId: s.kid }, c.purpose);
      } catch {
        throw new KeyRingError(
          `key "${s.kid}" in the key ring does not open the secrets stored under that id: ENCRYPTION_KEYS holds other key material for it`,
        );
      }
    }
  }
}

/** How many stored values each key id seals, per table.column (for `brandhealth encryption status`). */
export async function sealedCounts(
  db: Kysely<DB>,
): Promise<Array<{ column: string; key_id: string | null; values: number }>> {
  const out: Array<{ column: string; key_id: string | null; values: number }> = [];
  for (const c of SEALED_COLUMNS) {
    const rows = await sql<{ kid: string | null; n: string }>`
      SELECT ${sql.ref(c.keyIdColumn)} AS kid, count(*) AS n FROM ${sql.table(c.table)}
      WHERE ${sql.ref(c.column)} IS NOT NULL GROUP BY 1 ORDER BY 1`.execute(db);
    for (const r of rows.rows)
      out.push({ column: `${c.table}.${c.column}`, key_id: r.kid, values: Number(r.n) });
  }
  return out;
}

/**
 * Re-seals every value under the active key: values of other keys, and plaintext left from before
 * encryption (a NULL key id). Each row is updated only if it still holds what was read, so a
 * concurrent writer is never overwritten. Returns the number of values re-sealed per table.column.
 */
export async function resealAll(db: Kysely<DB>, keyRing: KeyRing): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const c of SEALED_COLUMNS) {
    let done = 0;
    let afterId = '';
    for (;;) {
      const rows = await sql<{ id: string; value: string; kid: string | null }>`
        SELECT ${sql.raw(c.idColumn)} AS id, ${sql.ref(c.column)} AS value, ${sql.ref(c.keyIdColumn)} AS kid
        FROM ${sql.table(c.table)}
        WHERE ${sql.ref(c.column)} IS NOT NULL
          AND ${sql.ref(c.keyIdColumn)} IS DISTINCT FROM ${keyRing.activeKeyId}
          AND ${sql.raw(c.idColumn)} > ${afterId}
        ORDER BY ${sql.raw(c.idColumn)} LIMIT ${BATCH}`.execute(db);
      if (rows.rows.length === 0) break;
      for (const row of rows.rows) {
        const plaintext =
          row.kid === null ? row.value : keyRing.open({ ciphertext: row.value, keyId: row.kid }, c.purpose);
        const sealed = keyRing.seal(plaintext, c.purpose);
        const result = await sql`
          UPDATE ${sql.table(c.table)}
          SET ${sql.ref(c.column)} = ${sealed.ciphertext}, ${sql.ref(c.keyIdColumn)} = ${sealed.keyId}
          WHERE ${sql.raw(c.idColumn)} = ${row.id} AND ${sql.ref(c.column)} = ${row.value}
            AND ${sql.ref(c.keyIdColumn)} IS NOT DISTINCT FROM ${row.kid}`.execute(db);
        done += Number(result.numAffectedRows ?? 0n);
      }
      afterId = rows.rows[rows.rows.length - 1]!.id;
    }
    counts[`${c.table}.${c.column}`] = done;
  }
  return counts;
}

/** Seals values stored before encryption existed (NULL key id); run at every start, usually a no-op. */
export async function sealPlaintext(db: Kysely<DB>, keyRing: KeyRing): Promise<number> {
  let total = 0;
  for (const c of SEALED_COLUMNS) {
    const rows = await sql<{ id: string; value: string }>`
      SELECT ${sql.raw(c.idColumn)} AS id, ${sql.ref(c.column)} AS value FROM ${sql.table(c.table)}
      WHERE ${sql.ref(c.column)} IS NOT NULL AND ${sql.ref(c.keyIdColumn)} IS NULL`.execute(db);
    for (const row of rows.rows) {
      const sealed = keyRing.seal(row.value, c.purpose);
      const result = await sql`
        UPDATE ${sql.table(c.table)}
        SET ${sql.ref(c.column)} = ${sealed.ciphertext}, ${sql.ref(c.keyIdColumn)} = ${sealed.keyId}
        WHERE ${sql.raw(c.idColumn)} = ${row.id} AND ${sql.ref(c.keyIdColumn)} IS NULL`.execute(db);
      total += Number(result.numAffectedRows ?? 0n);
    }
  }
  return total;
}
