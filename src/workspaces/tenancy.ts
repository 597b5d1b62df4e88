import type { ExpressionBuilder, Kysely } from 'kysely';
import type { DB, Workspace } from '../infra/db/types.ts';
import { DomainError } from '../core/errors.ts';
import type { WorkspacePrincipal } from '../infra/auth/principal.ts';

/**
 * The tenant boundary, decided inside the query: a key sees its owner's workspace and, when
 * the owner is an agency, the workspaces whose parent it is. Anything else is "not found",
 * never "forbidden", so workspace ids cannot be probed.
 */
export function visibleTo(ownerId: string) {
  return (eb: ExpressionBuilder<DB, 'workspaces'>) =>
    eb.or([eb('workspaces.id', '=', ownerId), eb('workspaces.parent_id', '=', ownerId)]);
}

/**
 * Work done on a workspace (campaigns, audits) belongs to whoever did it: the workspace itself, or
 * the agency whose key created it. It is visible while its creator still manages the workspace:
 * created by the workspace (or by the system: NULL) or by its current agency. So a client that
 * moves to another agency takes its own work along and leaves the old agency's behind; if it moves
 * back, that work is visible again. Use in a query that joins `workspaces` to the row's workspace.
 */
export function currentlyManaged(createdBy: 'campaigns.created_by' | 'audits.created_by') {
  return <TB extends keyof DB>(builder: ExpressionBuilder<DB, TB>) => {
    // The query joins `workspaces` and the row's table, and may join others (a campaign's phases):
    // Kysely's builder types cannot say "at least these tables", so the builder is narrowed here.
    const eb = builder as unknown as ExpressionBuilder<DB, 'workspaces' | 'campaigns' | 'audits'>;
    return eb.or([
      eb(createdBy, 'is', null),
      eb(createdBy, '=', eb.ref('workspaces.id')),
      eb(createdBy, '=', eb.ref('workspaces.parent_id')),
    ]);
  };
}

export async function resolveWorkspace(
  db: Kysely<DB>,
  principal: WorkspacePrincipal,
  workspaceId: string | undefined,
): Promise<Workspace> {
  const id = workspaceId ?? principal.workspaceId;
  const workspace = await db
    .selectFrom('workspaces')
    .selectAll()
    .where('id', '=', id)
    .where(visibleTo(principal.workspaceId))
    .executeTakeFirst();
  if (!workspace) throw workspaceNotFound(id);
  return workspace;
}

/** The answer for a workspace id the key cannot see: "not found", whether it exists or not. */
export function workspaceNotFound(id: string): DomainError<'not_found'> {
  return new DomainError('not_found', `No workspace "${id}" is visible to this API key.`);
}
