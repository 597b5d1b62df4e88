import type { Kysely } from 'kysely';
import { issueKey, parseKey, secretMatches } from '../infra/auth/api-keys.ts';
import type { Scope } from '../core/catalog.ts';
import type { DB } from '../infra/db/types.ts';

export interface SandboxKeySpec {
  /** The manifest's name for the key, e.g. `pro`. */
  name: string;
  workspaceId?: string;
  subscriberId?: string;
  scopes: Scope[];
  revoked?: boolean;
  expired?: boolean;
}

const PAST = new Date('2025-01-01T00:00:00Z');

/**
 * The sandbox's keys: random per database (`bh_test_...`, never derived from anything in the
 * source), one per role, found again by name. Secrets are stored hashed, so a key can only be
 * handed out again by the manifest that first showed it: a key of `previous` (the manifest already
 * on disk) that still matches its row is kept, any other role gets a fresh key and its old one is
 * deleted. So `demo` run twice keeps the keys, and a lost manifest costs only new keys.
 */
export async function sandboxKeys(
  db: Kysely<DB>,
  specs: SandboxKeySpec[],
  previous: Record<string, unknown> | undefined,
): Promise<Record<string, string>> {
  const keys: Record<string, string> = {};
  for (const spec of specs) {
    const name = `sandbox ${spec.name}`;
    const kept = await stillValid(db, name, previous?.[spec.name]);
    if (kept) {
      keys[spec.name] = kept;
      continue;
    }
    const issued = issueKey('test');
    await db.transaction().execute(async (trx) => {
      await trx.deleteFrom('api_keys').where('mode', '=', 'test').where('name', '=', name).execute();
      await trx
        .insertInto('api_keys')
        .values({
          id: issued.id,
          workspace_id: spec.workspaceId ?? null,
          subscriber_id: spec.subscriberId ?? null,
          name,
          mode: 'test',
          secret_hash: issued.secretHash,
          scopes: spec.scopes,
          revoked_at: spec.revoked ? PAST : null,
          expires_at: spec.expired ? PAST : null,
        })
        .execute();
    });
    keys[spec.name] = issued.token;
  }
  return keys;
}

async function stillValid(db: Kysely<DB>, name: string, token: unknown): Promise<string | null> {
  if (typeof token !== 'string') return null;
  const parsed = parseKey(token);
  if (!parsed || parsed.mode !== 'test') return null;
  const row = await db
    .selectFrom('api_keys')
    .select(['secret_hash'])
    .where('id', '=', parsed.id)
    .where('mode', '=', 'test')
    .where('name', '=', name)
    .executeTakeFirst();
  return row && secretMatches(parsed.secret, Buffer.from(row.secret_hash)) ? token : null;
}
