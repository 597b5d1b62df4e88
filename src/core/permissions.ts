/**
 * The one permission table (docs/security.md, "Roles"; docs/adr/0182-teams-roles-one-permission-check.md).
 * A route names the action it performs; a request may perform it when its principal's actions hold
 * it. A signed-in person's actions are their role's in the workspace; an API key's are its scopes'.
 * Both come from the tables below and are checked by one function, `allows`.
 */
import type { Scope } from './catalog.ts';

export const ACTIONS = [
  'score.read',
  'audit.run',
  'platform.manage',
  'webhook.manage',
  'campaign.manage',
  'studio.use',
  'export.read',
  'alert.manage',
  'report.manage',
  'member.manage',
  'owner.manage',
  'key.manage',
  'audit_log.read',
  'workspace.manage',
  'sso.read',
  'sso.write',
] as const;
export type Action = (typeof ACTIONS)[number];

export const ROLES = ['owner', 'admin', 'member', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

const VIEWER: readonly Action[] = ['score.read', 'export.read'];
const MEMBER: readonly Action[] = [...VIEWER, 'audit.run', 'studio.use', 'campaign.manage'];
const ADMIN: readonly Action[] = [
  ...MEMBER,
  'platform.manage',
  'webhook.manage',
  'alert.manage',
  'report.manage',
  'member.manage',
  'key.manage',
  'audit_log.read',
  'sso.read',
  'sso.write',
];

/**
 * What each role may do. Viewer reads; member also runs audits, the studio and campaigns; admin
 * also manages platforms, webhooks, alerts, reports, members other than owners, keys and single
 * sign-on, and reads the audit log; owner may do everything, including managing owners and the workspace's settings.
 */
export const ROLE_ACTIONS: Readonly<Record<Role, ReadonlySet<Action>>> = {
  viewer: new Set(VIEWER),
  member: new Set(MEMBER),
  admin: new Set(ADMIN),
  owner: new Set(ACTIONS),
};

/**
 * What an API key's scopes allow. `read` reads; `write` does what a workspace's automation does
 * (audits, platforms, webhooks, campaigns, studio, alerts, reports, workspace settings). Managing
 * people, keys and single sign-on (which decides who may join) and reading the audit log are for
 * signed-in people only: no scope grants them.
 */
export const SCOPE_ACTIONS: Readonly<Record<Scope, ReadonlySet<Action>>> = {
  read: new Set(VIEWER),
  write: new Set<Action>([
    'audit.run',
    'platform.manage',
    'webhook.manage',
    'campaign.manage',
    'studio.use',
    'alert.manage',
    'report.manage',
    'workspace.manage',
  ]),
};

/** Actions no API key can hold, whatever its scopes. */
export const PEOPLE_ONLY_ACTIONS: ReadonlySet<Action> = new Set([
  'member.manage',
  'owner.manage',
  'key.manage',
  'audit_log.read',
  'sso.read',
  'sso.write',
]);

/** The action a route performs when it names only a scope: `read` reads scores, `write` changes the workspace. */
export const SCOPE_DEFAULT_ACTION: Readonly<Record<Scope, Action>> = {
  read: 'score.read',
  write: 'workspace.manage',
};

export function actionsOfScopes(scopes: readonly Scope[]): ReadonlySet<Action> {
  const out = new Set<Action>();
  for (const scope of scopes) for (const action of SCOPE_ACTIONS[scope] ?? []) out.add(action);
  return out;
}

export function actionsOfRole(role: Role): ReadonlySet<Action> {
  return ROLE_ACTIONS[role];
}

/** The one check: may a principal holding `actions` perform `action`? */
export function allows(actions: ReadonlySet<Action>, action: Action): boolean {
  return actions.has(action);
}

/** Scopes a person with `role` may put on a key they create: those whose actions the role holds. */
export function scopesGrantableBy(role: Role): Scope[] {
  const held = ROLE_ACTIONS[role];
  return (Object.keys(SCOPE_ACTIONS) as Scope[]).filter((scope) =>
    [...SCOPE_ACTIONS[scope]].every((action) => held.has(action)),
  );
}

/** Whether `actor` may give or take `target` role: only owners touch owners. */
export function mayAssignRole(actor: Role, target: Role): boolean {
  if (!ROLE_ACTIONS[actor].has('member.manage')) return false;
  return target !== 'owner' || ROLE_ACTIONS[actor].has('owner.manage');
}

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}
