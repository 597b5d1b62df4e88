import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import {
  BOUND_PREFIX,
  isRowBound,
  KeyRingError,
  type Binding,
  type KeyRing,
  type Sealed,
} from './keyring.ts';

/**
 * Every column that holds a sealed secret, with the column beside it that names the key. Start-up
 * checks and key rotation walk this list, so a new secret is covered by adding it here. Each value
 * is bound to its purpose, its `table.column` and its row (`sealedAt`), so it opens nowhere else.
 */
export interface SealedColumn {
  table: keyof DB & string;
  /**
   * SQL expression naming a row uniquely and stably (a trusted constant: it is inlined); the row part
   * of the binding, so the code that seals or opens passes the same value to `sealedAt`.
   */
  idColumn: string;
  column: string;
  keyIdColumn: string;
  /** Values of one purpose never open as another. */
  purpose: string;
}

export const WEBHOOK_SECRET_PURPOSE = 'webhook-secret';
export const IDEMPOTENT_RESPONSE_PURPOSE = 'idempotent-response';
export const PLATFORM_TOKEN_PURPOSE = 'platform-token';
export const OAUTH_VERIFIER_PURPOSE = 'oauth-verifier';
export const SSO_CLIENT_SECRET_PURPOSE = 'sso-client-secret';

const COLUMNS = [
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
  {
    table: 'sso_settings',
    idColumn: 'workspace_id',
    column: 'client_secret',
    keyIdColumn: 'client_secret_key_id',
    purpose: SSO_CLIENT_SECRET_PURPOSE,
  },
  {
    table: 'sso_attempts',
    idColumn: 'state_hash',
    column: 'code_verifier',
    keyIdColumn: 'code_verifier_key_id',
    purpose: OAUTH_VERIFIER_PURPOSE,
  },
] as const satisfies readonly SealedColumn[];

/** A sealed column by name: `table.column`. */
export type SealedColumnName = NameOf<(typeof COLUMNS)[number]>;
type NameOf<C> = C extends { table: infer T extends string; column: infer K extends string }
  ? `${T}.${K}`
  : never;

export const SEALED_COLUMNS: readonly SealedColumn[] = COLUMNS;

const BY_NAME = new Map<string, SealedColumn>(COLUMNS.map((c) => [`${c.table}.${c.column}`, c]));

function placeOf(c: SealedColumn): string {
  return `${c.table}.${c.column}`;
}

/**
 * The binding of the value in `column` of the row `row` (that row's `idColumn` value): what every
 * `keyRing.seal` and `keyRing.open` takes, so a value opens only in the row and column it was sealed for.
 */
export function sealedAt(column: SealedColumnName, row: string): Binding {
  const c = BY_NAME.get(column);
  if (!c) throw new KeyRingError(`${column} is not a sealed column`);
  return { purpose: c.purpose, place: column, row };
}

function bindingOf(c: SealedColumn, row: string): Binding {
  return { purpose: c.purpose, place: placeOf(c), row };
}

/** Opens a stored value of either format (for re-sealing only): row-bound, or purpose-only from before. */
function openStored(keyRing: KeyRing, c: SealedColumn, row: string, sealed: Sealed): string {
  return isRowBound(sealed.ciphertext)
    ? keyRing.open(sealed, bindingOf(c, row))
    : keyRing.openPurposeOnly(sealed, c.purpose);
}

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
 * key material than the one that sealed (up to SAMPLES values per column and key id are tried; one
 * that opens is enough, so a single value moved to another row does not stop the service), with
 * what to do about it: better a clean refusal at start than failed deliveries later.
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
    const samples = await sql<{ id: string; value: string; kid: string; n: string }>`
      SELECT id, value, kid, n FROM (
        SELECT ${sql.raw(c.idColumn)} AS id, ${sql.ref(c.column)} AS value, ${sql.ref(c.keyIdColumn)} AS kid,
          row_number() OVER (PARTITION BY ${sql.ref(c.keyIdColumn)}) AS n
        FROM ${sql.table(c.table)}
        WHERE ${sql.ref(c.keyIdColumn)} IS NOT NULL AND ${sql.ref(c.column)} IS NOT NULL
      ) s WHERE n <= ${SAMPLES}`.execute(db);
    const opened = new Set<string>();
    const tried = new Set<string>();
    for (const s of samples.rows) {
      tried.add(s.kid);
      if (opened.has(s.kid)) continue;
      try {
        openStored(keyRing, c, s.id, { ciphertext: s.value, keyId: s.kid });
        opened.add(s.kid);
      } catch {
        // another sample of this key id may open
      }
    }
    for (const kid of tried) {
      if (!opened.has(kid)) {
        throw new KeyRingError(
          `key "${kid}" in the key ring does not open the secrets stored under that id in ${placeOf(c)}: ` +
            'ENCRYPTION_KEYS holds other key material for it',
        );
      }
    }
  }
}

const SAMPLES = 5;

export type SealBinding = 'row' | 'purpose only' | 'plaintext';

/**
 * How many stored values each key id seals, per table.column and binding (for `brandhealth encryption
 * status`): `row` (the current format), `purpose only` (sealed before row binding: `rotate` binds them)
 * or `plaintext` (from before encryption, NULL key id: sealed at the next start).
 */
export async function sealedCounts(
  db: Kysely<DB>,
): Promise<Array<{ column: string; key_id: string | null; binding: SealBinding; values: number }>> {
  const out: Array<{ column: string; key_id: string | null; binding: SealBinding; values: number }> = [];
  for (const c of SEALED_COLUMNS) {
    const rows = await sql<{ kid: string | null; bound: boolean; n: string }>`
      SELECT ${sql.ref(c.keyIdColumn)} AS kid, starts_with(${sql.ref(c.column)}, ${BOUND_PREFIX}) AS bound,
        count(*) AS n
      FROM ${sql.table(c.table)}
      WHERE ${sql.ref(c.column)} IS NOT NULL GROUP BY 1, 2 ORDER BY 1, 2 DESC`.execute(db);
    for (const r of rows.rows)
      out.push({
        column: placeOf(c),
        key_id: r.kid,
        binding: r.kid === null ? 'plaintext' : r.bound ? 'row' : 'purpose only',
        values: Number(r.n),
      });
  }
  return out;
}

/**
 * Re-seals, bound to its row, every value that is not row-bound under the active key: values of
 * other keys, values sealed with their purpose only (the earlier format), and plaintext left from
 * before encryption (a NULL key id); `unboundOnly` leaves row-bound values of other keys alone. Each
 * row is updated only if it still holds what was read, so a concurrent writer is never overwritten.
 * A row-bound value that does not open in its own row (moved there from another row) is left as it
 * is and counted in `refused`: its owner reconnects (or re-creates the webhook). Returns the number
 * of values re-sealed and refused per table.column.
 */
export async function resealAll(
  db: Kysely<DB>,
  keyRing: KeyRing,
  options: { unboundOnly?: boolean; log?: (message: string) => void } = {},
): Promise<{ resealed: Record<string, number>; refused: Record<string, number> }> {
  const resealed: Record<string, number> = {};
  const refused: Record<string, number> = {};
  for (const c of SEALED_COLUMNS) {
    let done = 0;
    let bad = 0;
    let afterId = '';
    const pending = options.unboundOnly
      ? sql`(${sql.ref(c.keyIdColumn)} IS NULL OR NOT starts_with(${sql.ref(c.column)}, ${BOUND_PREFIX}))`
      : sql`(${sql.ref(c.keyIdColumn)} IS DISTINCT FROM ${keyRing.activeKeyId}
             OR NOT starts_with(${sql.ref(c.column)}, ${BOUND_PREFIX}))`;
    for (;;) {
      const rows = await sql<{ id: string; value: string; kid: string | null }>`
        SELECT ${sql.raw(c.idColumn)} AS id, ${sql.ref(c.column)} AS value, ${sql.ref(c.keyIdColumn)} AS kid
        FROM ${sql.table(c.table)}
        WHERE ${sql.ref(c.column)} IS NOT NULL AND ${pending} AND ${sql.raw(c.idColumn)} > ${afterId}
        ORDER BY ${sql.raw(c.idColumn)} LIMIT ${BATCH}`.execute(db);
      if (rows.rows.length === 0) break;
      for (const row of rows.rows) {
        let plaintext: string;
        try {
          plaintext =
            row.kid === null
              ? row.value
              : openStored(keyRing, c, row.id, { ciphertext: row.value, keyId: row.kid });
        } catch (error) {
          if (!(error instanceof KeyRingError) || !isRowBound(row.value) || !keyRing.has(row.kid!))
            throw error;
          bad += 1;
          options.log?.(error.message);
          continue;
        }
        const sealed = keyRing.seal(plaintext, bindingOf(c, row.id));
        const result = await sql`
          UPDATE ${sql.table(c.table)}
          SET ${sql.ref(c.column)} = ${sealed.ciphertext}, ${sql.ref(c.keyIdColumn)} = ${sealed.keyId}
          WHERE ${sql.raw(c.idColumn)} = ${row.id} AND ${sql.ref(c.column)} = ${row.value}
            AND ${sql.ref(c.keyIdColumn)} IS NOT DISTINCT FROM ${row.kid}`.execute(db);
        done += Number(result.numAffectedRows ?? 0n);
      }
      afterId = rows.rows[rows.rows.length - 1]!.id;
    }
    resealed[placeOf(c)] = done;
    if (bad > 0) refused[placeOf(c)] = bad;
  }
  return { resealed, refused };
}

/**
 * Run at every start, after the migrations (a migration has no key ring): seals plaintext left from
 * before encryption and binds values sealed with their purpose only to their row. Usually a no-op.
 */
export async function sealUnbound(db: Kysely<DB>, keyRing: KeyRing): Promise<number> {
  const { resealed } = await resealAll(db, keyRing, { unboundOnly: true });
  return Object.values(resealed).reduce((a, b) => a + b, 0);
}
