/**
 * The audit log's action names (docs/security.md "Audit log"): `<area>.<what happened>`, lower case
 * with underscores, the verb in the past tense (`key.revoked`), a failure as `<area>.<verb>_failed`.
 * A domain that records a new kind of action adds it here, with the meaning of its target and detail,
 * and to the table in docs/security.md.
 */
export const AUDIT_ACTIONS = {
  'session.signed_in': 'A person signed in. Target: the person; detail: the method (password).',
  'session.sign_in_failed':
    "A sign-in was refused. Target: the person (or the email as typed when no account has it: then it is in no workspace's log); detail: why.",
  'session.signed_out': 'A person ended their session. Target: the person.',
  'session.signed_out_everywhere': 'A person ended all their sessions. Target: the person.',
  'person.password_reset':
    'A person set a new password from a reset link (all their sessions end). Target: the person.',
  'workspace.created':
    'A signed-in person created a workspace (on the Free plan, as its owner). Target: the workspace; detail: its name.',
  'member.added': 'A person with an account was added. Target: the person; detail: the role.',
  'member.role_changed': "A member's role changed. Target: the person; detail: `old -> new`.",
  'member.removed':
    'A member was removed. Target: the person; detail: `sessions ended` when it was their last workspace (all their sessions end).',
  'invitation.created': 'An address was invited. Target: the invitation; detail: the address and role.',
  'invitation.accepted':
    'An invitation was accepted (actor: the person who joined). Target: the invitation; detail: the role.',
  'invitation.revoked': 'A pending invitation was revoked. Target: the invitation; detail: the address.',
  'key.created': 'An API key was created. Target: the key; detail: its name and scopes.',
  'key.revoked': 'An API key was revoked. Target: the key.',
  'webhook.created': 'A webhook was registered. Target: the webhook; detail: its URL and events.',
  'webhook.deleted': 'A webhook was deleted. Target: the webhook.',
  'platform.connected':
    'A platform account was connected (or reconnected in place). Target: the connection; detail: platform and handle.',
  'platform.disconnected': 'A platform was disconnected. Target: the connection; detail: the platform.',
  'passkey.registered': 'A person registered a passkey. Target: the person; detail: the passkey name.',
  'passkey.removed': 'A person removed a passkey. Target: the person; detail: the passkey name.',
  'sso.settings_changed':
    "A workspace's single sign-on settings changed. Target: the workspace; detail: what changed.",
} as const satisfies Record<string, string>;

export type AuditAction = keyof typeof AUDIT_ACTIONS;

/** The shape every action name has: what a filter on `action` accepts (known or not yet recorded). */
export const ACTION_NAME_PATTERN = '^[a-z][a-z_]*\\.[a-z][a-z_]*$';
