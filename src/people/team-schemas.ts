// TypeBox schemas of the members, invitations and keys endpoints, with their OpenAPI examples.
import { Type } from 'typebox';
import { SCOPES } from '../core/catalog.ts';
import { ROLES } from '../core/permissions.ts';
import { Timestamp } from '../infra/http/schemas.ts';
import { MAX_PASSWORD_LENGTH } from './password.ts';

const RoleName = Type.Enum([...ROLES], {
  description: 'owner, admin, member or viewer (docs/security.md "Roles")',
});
const Email = Type.String({ format: 'email', maxLength: 254, examples: ['bo@example.com'] });
const PersonId = Type.String({ minLength: 1, maxLength: 64, examples: ['per_01JD3Q5W8N2M4K6P8R0T2V4X6Z'] });

export const MEMBER_EXAMPLE = {
  person_id: 'per_01JD3Q5W8N2M4K6P8R0T2V4X6Z',
  email: 'bo@example.com',
  name: 'Bo Lind',
  role: 'member' as const,
  created_at: '2026-11-20T09:00:00.000Z',
};
export const Member = Type.Object(
  {
    person_id: Type.String(),
    email: Type.String(),
    name: Type.String(),
    role: RoleName,
    created_at: Timestamp,
  },
  { $id: 'Member', examples: [MEMBER_EXAMPLE] },
);
export const MemberList = Type.Object(
  { members: Type.Array(Member) },
  { $id: 'MemberList', examples: [{ members: [MEMBER_EXAMPLE] }] },
);
export const AddMemberBody = Type.Object(
  { email: Email, role: RoleName },
  { additionalProperties: false, examples: [{ email: 'bo@example.com', role: 'member' }] },
);
export const ChangeRoleBody = Type.Object(
  { role: RoleName },
  { additionalProperties: false, examples: [{ role: 'admin' }] },
);
export const PersonParams = Type.Object({ person_id: PersonId }, { additionalProperties: false });

const INVITATION_EXAMPLE = {
  id: 'inv_01JD3Q5W8N2M4K6P8R0T2V4X6Z',
  email: 'bo@example.com',
  role: 'member' as const,
  invited_by: 'per_01JD3Q5W8N2M4K6P8R0T2V4X6Z',
  status: 'pending' as const,
  expires_at: '2026-11-27T09:00:00.000Z',
  created_at: '2026-11-20T09:00:00.000Z',
};
export const Invitation = Type.Object(
  {
    id: Type.String(),
    email: Type.String(),
    role: RoleName,
    invited_by: Type.Union([Type.String(), Type.Null()]),
    status: Type.Enum(['pending', 'accepted', 'revoked', 'expired']),
    expires_at: Timestamp,
    created_at: Timestamp,
  },
  { $id: 'Invitation', examples: [INVITATION_EXAMPLE] },
);
export const InvitationList = Type.Object(
  { invitations: Type.Array(Invitation) },
  { $id: 'InvitationList', examples: [{ invitations: [INVITATION_EXAMPLE] }] },
);
export const InviteBody = Type.Object(
  { email: Email, role: RoleName },
  { additionalProperties: false, examples: [{ email: 'bo@example.com', role: 'member' }] },
);
export const InvitationParams = Type.Object(
  { id: Type.String({ minLength: 1, maxLength: 64 }) },
  { additionalProperties: false },
);
export const AcceptBody = Type.Object(
  {
    token: Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'the token from the emailed invitation link',
    }),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'for a new account' })),
    password: Type.Optional(
      Type.String({ minLength: 1, maxLength: MAX_PASSWORD_LENGTH, description: 'for a new account' }),
    ),
  },
  {
    additionalProperties: false,
    examples: [
      { token: 'k7Qx2mR9vT4wZ8pL1nB6cY3hJ5sD0fGa', name: 'Bo Lind', password: 'violet-harbour-lantern-42' },
    ],
  },
);
export const Accepted = Type.Object(
  { workspace_id: Type.String(), person_id: Type.String(), role: RoleName },
  {
    $id: 'InvitationAccepted',
    examples: [
      {
        workspace_id: 'ws_01JD3Q5W8N2M4K6P8R0T2V4X6Z',
        person_id: 'per_01JD3Q5W8N2M4K6P8R0T2V4X6Z',
        role: 'member',
      },
    ],
  },
);

const KEY_EXAMPLE = {
  id: 'key_01JD3Q5W8N2M4K6P8R0T2V4X6Z',
  prefix: 'bh_live_key_01JD3Q5W',
  name: 'CI',
  scopes: ['read' as const],
  created_by_person_id: 'per_01JD3Q5W8N2M4K6P8R0T2V4X6Z',
  expires_at: null,
  revoked_at: null,
  last_used_at: null,
  created_at: '2026-11-20T09:00:00.000Z',
};
const ScopeName = Type.Enum([...SCOPES]);
export const ApiKey = Type.Object(
  {
    id: Type.String(),
    prefix: Type.String(),
    name: Type.String(),
    scopes: Type.Array(ScopeName),
    created_by_person_id: Type.Union([Type.String(), Type.Null()]),
    expires_at: Type.Union([Timestamp, Type.Null()]),
    revoked_at: Type.Union([Timestamp, Type.Null()]),
    last_used_at: Type.Union([Timestamp, Type.Null()]),
    created_at: Timestamp,
  },
  { $id: 'ApiKey', examples: [KEY_EXAMPLE] },
);
export const ApiKeyList = Type.Object(
  { keys: Type.Array(ApiKey) },
  { $id: 'ApiKeyList', examples: [{ keys: [KEY_EXAMPLE] }] },
);
export const CreateKeyBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100 }),
    scopes: Type.Array(ScopeName, { minItems: 1, maxItems: SCOPES.length, uniqueItems: true }),
    expires_at: Type.Optional(Type.Union([Timestamp, Type.Null()])),
  },
  { additionalProperties: false, examples: [{ name: 'CI', scopes: ['read'], expires_at: null }] },
);
export const CreatedKey = Type.Object(
  { ...ApiKey.properties, key: Type.String({ description: 'the secret: shown once, never again' }) },
  { $id: 'CreatedApiKey', examples: [{ ...KEY_EXAMPLE, key: 'bh_live_key_01JD3Q5W_s3cr3t' }] },
);
export const KeyParams = Type.Object(
  { id: Type.String({ minLength: 1, maxLength: 64 }) },
  { additionalProperties: false },
);
export const Removed = Type.Object({ ok: Type.Literal(true) }, { $id: 'TeamDone', examples: [{ ok: true }] });
