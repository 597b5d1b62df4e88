import type { Plan, Scope } from '../../core/catalog.ts';
import type { Action, Role } from '../../core/permissions.ts';

/**
 * Who a request acts for, established once per request from its API key or its session cookie.
 * Either way the routes check the same thing: `actions` (src/core/permissions.ts).
 */
export type Principal = WorkspacePrincipal | SubscriberPrincipal;

/** A session principal's `keyId` is this prefix and the person's id (an API key id never starts so). */
export const SESSION_PRINCIPAL_PREFIX = 'session:';

export interface WorkspacePrincipal {
  kind: 'workspace';
  /** The API key's id; for a session, SESSION_PRINCIPAL_PREFIX + the person's id (the rate-limit bucket). */
  keyId: string;
  scopes: Scope[];
  /** What this principal may do: its key's scopes' actions, or its person's role's. */
  actions: ReadonlySet<Action>;
  /** The signed-in person and their role in `workspaceId`; null for an API key. */
  personId: string | null;
  role: Role | null;
  /** The key owner's workspace: its primary workspace and the root of its tenancy. */
  workspaceId: string;
  plan: Plan;
  accountType: string;
  expiresAt: number | null;
}

export interface SubscriberPrincipal {
  kind: 'subscriber';
  keyId: string;
  scopes: Scope[];
  subscriberId: string;
  expiresAt: number | null;
}
