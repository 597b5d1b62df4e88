import type { ExpressionBuilder, Kysely } from 'kysely';
import type { DB, Workspace } from '../db/types.ts';
import { problems } from '../http/problem.ts';
import type { WorkspacePrincipal } from './principal.ts';

/**
 * The tenant boundary, decided inside the query: a key sees its owner's workspace and, when
 * the owner is an agency, the workspaces whose parent it is. Anything else is "not found",
 * never "forbidden", so workspace ids cannot be probed.
 */
export function visibleTo(ownerId: string) {
  return (eb: ExpressionBuilder<DB, 'workspaces'>) =>
    eb.or([eb('workspaces.id', '=', ownerId), eb('workspaces.parent_id', '=', ownerId)]);
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
  if (!workspace) throw problems.notFound(`No workspace "${id}" is visible to this API key.`);
  return workspace;
}
