// TypeBox schemas of the sign-up, sign-in and session endpoints, with their OpenAPI examples.
import { Type } from 'typebox';
import { Timestamp } from '../infra/http/schemas.ts';
import { MAX_PASSWORD_LENGTH } from './password.ts';
import { ROLES } from '../core/permissions.ts';

const Email = Type.String({ format: 'email', maxLength: 254, examples: ['ana@example.com'] });
const Password = Type.String({
  minLength: 1,
  maxLength: MAX_PASSWORD_LENGTH,
  examples: ['violet-harbour-lantern-42'],
});
const Token = Type.String({ minLength: 1, maxLength: 100, description: 'the token from the emailed link' });

export const SignUpBody = Type.Object(
  {
    email: Email,
    name: Type.String({ minLength: 1, maxLength: 200, examples: ['Ana Silva'] }),
    password: Password,
  },
  {
    additionalProperties: false,
    examples: [{ email: 'ana@example.com', name: 'Ana Silva', password: 'violet-harbour-lantern-42' }],
  },
);
export const SignInBody = Type.Object(
  { email: Email, password: Password },
  {
    additionalProperties: false,
    examples: [{ email: 'ana@example.com', password: 'violet-harbour-lantern-42' }],
  },
);
export const TokenBody = Type.Object(
  { token: Token },
  { additionalProperties: false, examples: [{ token: 'k7Qx2mR9vT4wZ8pL1nB6cY3hJ5sD0fGa' }] },
);
export const ResetRequestBody = Type.Object(
  { email: Email },
  { additionalProperties: false, examples: [{ email: 'ana@example.com' }] },
);
export const ResetConfirmBody = Type.Object(
  { token: Token, password: Password },
  {
    additionalProperties: false,
    examples: [{ token: 'k7Qx2mR9vT4wZ8pL1nB6cY3hJ5sD0fGa', password: 'violet-harbour-lantern-42' }],
  },
);

export const Accepted = Type.Object(
  {
    status: Type.Literal('check_your_email', {
      description: 'the same answer whether or not the address has an account',
    }),
  },
  { $id: 'MailAccepted', examples: [{ status: 'check_your_email' }] },
);

const PersonFields = {
  id: Type.String({ examples: ['per_01JD3Q5W8N2M4K6P8R0T2V4X6Z'] }),
  email: Type.String(),
  name: Type.String(),
};

export const SessionView = Type.Object(
  {
    person: Type.Object(PersonFields),
    csrf_token: Type.String({
      description:
        'send it as the X-CSRF-Token header with every state-changing request made with the session cookie',
    }),
    expires_at: Timestamp,
    workspaces: Type.Array(
      Type.Object({
        id: Type.String(),
        name: Type.String(),
        role: Type.Enum([...ROLES]),
        plan: Type.String(),
      }),
      { description: 'the workspaces the person is a member of, oldest membership first' },
    ),
  },
  {
    $id: 'Session',
    examples: [
      {
        person: { id: 'per_01JD3Q5W8N2M4K6P8R0T2V4X6Z', email: 'ana@example.com', name: 'Ana Silva' },
        csrf_token: 'q1n8Jd0bX4c2Vv6mL9sR3tY7wZ5kP0aE1fG2hJ3kL4m',
        expires_at: '2026-12-12T09:00:00.000Z',
        workspaces: [{ id: 'ws_01JD3Q5W8N2M4K6P8R0T2V4X6Z', name: 'Acme', role: 'owner', plan: 'pro' }],
      },
    ],
  },
);

export const Done = Type.Object({ ok: Type.Literal(true) }, { $id: 'Done', examples: [{ ok: true }] });

export const SessionsEnded = Type.Object(
  { sessions_ended: Type.Integer({ minimum: 0 }) },
  { $id: 'SessionsEnded', examples: [{ sessions_ended: 3 }] },
);

export const NewWorkspaceBody = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 200, examples: ['Acme Outdoor'] }) },
  { additionalProperties: false, examples: [{ name: 'Acme Outdoor' }] },
);
export const NewWorkspace = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    plan: Type.Literal('free'),
    role: Type.Literal('owner'),
  },
  {
    $id: 'NewWorkspace',
    examples: [{ id: 'ws_01JD3Q5W8N2M4K6P8R0T2V4X6Z', name: 'Acme Outdoor', plan: 'free', role: 'owner' }],
  },
);
