import type { Kysely, Transaction } from 'kysely';
import { issueKey, keyPrefix } from '../infra/auth/api-keys.ts';
import type { DB } from '../infra/db/types.ts';
import { type Scope, SCOPES } from '../core/catalog.ts';
import { DomainError, invalidParameter } from '../core/errors.ts';
import { isSandboxId } from '../sandbox/ids.ts';

export interface KeyOwner {
  workspaceId?: string;
  subscriberId?: string;
}

export interface CreatedKey {
  id: string;
  /** The full secret key: shown once, never stored. */
  key: string;
  prefix: string;
  scopes: Scope[];
  expiresAt: string | null;
}

export async function createApiKey(
  db: Kysely<DB> | Transaction<DB>,
  owner: KeyOwner,
  options: { scopes?: Scope[]; expiresAt?: Date | null; name?: string; createdByPersonId?: string } = {},
): Promise<CreatedKey> {
  if (!!owner.workspaceId === !!owner.subscriberId)
    throw invalidParameter('owner', 'a key needs exactly one owner: a workspace or a subscriber');
  const scopes = options.scopes ?? ['read', 'write'];
  for (const s of scopes)
    if (!SCOPES.includes(s))
      throw invalidParameter('scopes', `unknown scope "${s}" (use ${SCOPES.join(', ')})`);
  if (owner.workspaceId) {
    const ws = await db
      .selectFrom('workspaces')
      .select('id')
      .where('id', '=', owner.workspaceId)
      .executeTakeFirst();
    if (!ws) throw new DomainError('not_found', `workspace ${owner.workspaceId} does not exist`);
  }
  if (owner.subscriberId) {
    const sub = await db
      .selectFrom('tacsi_subscribers')
      .select('id')
      .where('id', '=', owner.subscriberId)
      .executeTakeFirst();
    if (!sub) throw new DomainError('not_found', `subscriber ${owner.subscriberId} does not exist`);
  }
  // A key's mode follows its owner: a sandbox workspace's or subscriber's key is a test key (bh_test_),
  // so a key minted for the sandbox never makes it a database with real keys.
  const issued = issueKey(isSandboxId(owner.workspaceId ?? owner.subscriberId!) ? 'test' : 'live');
  await db
    .insertInto('api_keys')
    .values({
      id: issued.id,
      workspace_id: owner.workspaceId ?? null,
      subscriber_id: owner.subscriberId ?? null,
      name: options.name ?? '',
      mode: issued.mode,
      secret_hash: issued.secretHash,
      scopes: [...new Set(scopes)],
      expires_at: options.expiresAt ?? null,
      created_by_person_id: options.createdByPersonId ?? null,
    })
    .execute();
  return {
    id: issued.id,
    key: issued.token,
    prefix: issued.prefix,
    scopes: [...new Set(scopes)],
    expiresAt: options.expiresAt?.toISOString() ?? null,
  };
}

export async function listApiKeys(db: Kysely<DB>, owner: KeyOwner = {}) {
  let q = db
    .selectFrom('api_keys')
    .select([
      'id',
      'workspace_id',
      'subscriber_id',
      'name',
      'scopes',
      'expires_at',
      'revoked_at',
      'last_used_at',
      'created_at',
      'created_by_person_id',
      'mode',
    ])
    .orderBy('created_at')
    .orderBy('id');
  if (owner.workspaceId) q = q.where('workspace_id', '=', owner.workspaceId);
  if (owner.subscriberId) q = q.where('subscriber_id', '=', owner.subscriberId);
  const rows = await q.execute();
  return rows.map((r) => ({ ...r, prefix: keyPrefix(r.id, r.mode) }));
}

/** Revokes a key; with `workspaceId`, only a key of that workspace (any other is "not found"). */
export async function revokeApiKey(
  db: Kysely<DB> | Transaction<DB>,
  keyId: string,
  at: Date,
  workspaceId?: string,
): Promise<void> {
  let update = db
    .updateTable('api_keys')
    .set({ revoked_at: at })
    .where('id', '=', keyId)
    .where('revoked_at', 'is', null);
  if (workspaceId !== undefined) update = update.where('workspace_id', '=', workspaceId);
  const result = await update.executeTakeFirst();
  if (!result.numUpdatedRows) {
    let lookup = db.selectFrom('api_keys').select('id').where('id', '=', keyId);
    if (workspaceId !== undefined) lookup = lookup.where('workspace_id', '=', workspaceId);
    const exists = await lookup.executeTakeFirst();
    if (!exists) throw new DomainError('not_found', `key ${keyId} does not exist`);
  }
}
