import type { Plan, Scope } from '../../core/catalog.ts';

/** Who a request acts for, established once per request from its API key. */
export type Principal = WorkspacePrincipal | SubscriberPrincipal;

export interface WorkspacePrincipal {
  kind: 'workspace';
  keyId: string;
  scopes: Scope[];
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
