import { sql, type Kysely } from 'kysely';
import type { DB } from '../infra/db/types.ts';
import { DomainError } from '../core/errors.ts';
import { SANDBOX_ULID_PREFIX } from './ids.ts';

/**
 * What in the database is not sandbox data: workspaces and subscribers whose ids are not sandbox
 * ids, and live keys still in force (a key minted for a sandbox workspace is a test key; a revoked
 * one opens nothing). `demo` seeds keys anyone holding the manifest can use and data that would
 * mix into real cohorts, so it refuses such a database unless forced.
 */
export async function foreignData(
  db: Kysely<DB>,
): Promise<{ workspaces: number; subscribers: number; liveKeys: number }> {
  const row = await sql<{ workspaces: string; subscribers: string; live_keys: string }>`
    SELECT
      (SELECT count(*) FROM workspaces WHERE id NOT LIKE ${`ws\\_${SANDBOX_ULID_PREFIX}%`}) AS workspaces,
      (SELECT count(*) FROM tacsi_subscribers WHERE id NOT LIKE ${`sub\\_${SANDBOX_ULID_PREFIX}%`}) AS subscribers,
      (SELECT count(*) FROM api_keys WHERE mode = 'live' AND revoked_at IS NULL) AS live_keys`.execute(db);
  const r = row.rows[0]!;
  return {
    workspaces: Number(r.workspaces),
    subscribers: Number(r.subscribers),
    liveKeys: Number(r.live_keys),
  };
}

export async function assertSandboxOnly(db: Kysely<DB>): Promise<void> {
  const found = await foreignData(db);
  const parts = [
    found.workspaces && `${found.workspaces} workspace${found.workspaces === 1 ? '' : 's'}`,
    found.subscribers && `${found.subscribers} TACSI subscriber${found.subscribers === 1 ? '' : 's'}`,
    found.liveKeys && `${found.liveKeys} live API key${found.liveKeys === 1 ? '' : 's'}`,
  ].filter(Boolean);
  if (parts.length === 0) return;
  throw new DomainError(
    'conflict',
    `this database holds data that is not the sandbox's (${parts.join(', ')}); ` +
      'seeding it would add sandbox keys and synthetic brands beside real ones. ' +
      'Use an empty database (another DATA_DIR or DATABASE_URL), or pass --force if you really mean it.',
  );
}
