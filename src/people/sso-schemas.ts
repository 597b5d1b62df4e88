// TypeBox schemas of the single sign-on endpoints, with their OpenAPI examples.
import { Type } from 'typebox';
import { Timestamp } from '../infra/http/schemas.ts';
import { SSO_ERRORS } from './sso.ts';

const SSO_ROLES = ['admin', 'member', 'viewer'] as const;
const Issuer = Type.String({
  minLength: 8,
  maxLength: 500,
  description: "the provider's issuer identifier; discovery reads <issuer>/.well-known/openid-configuration",
  examples: ['https://login.agency.example'],
});
const ClientId = Type.String({ minLength: 1, maxLength: 500, examples: ['brand-health'] });
const Domains = Type.Array(Type.String({ minLength: 3, maxLength: 253, examples: ['agency.example'] }), {
  minItems: 1,
  maxItems: 50,
  description: 'email domains the provider may sign in (lower-cased on save)',
});
const DefaultRole = Type.Enum([...SSO_ROLES], {
  description: 'the role a person gets when their first sign-in makes them a member (never owner)',
});

const SETTINGS_EXAMPLE = {
  issuer: 'https://login.agency.example',
  client_id: 'brand-health',
  client_secret_set: true as const,
  allowed_domains: ['agency.example'],
  default_role: 'member' as const,
  enabled: true,
  redirect_uri: 'https://brandhealth.example/v1/auth/sso/callback',
  updated_at: '2026-11-28T09:00:00.000Z',
};

export const SsoSettings = Type.Object(
  {
    issuer: Type.String(),
    client_id: Type.String(),
    client_secret_set: Type.Literal(true, {
      description: 'the secret is stored, sealed; it is never returned',
    }),
    allowed_domains: Type.Array(Type.String()),
    default_role: Type.Enum([...SSO_ROLES]),
    enabled: Type.Boolean(),
    redirect_uri: Type.Union([Type.String(), Type.Null()], {
      description:
        "the URL to register at the provider as the client's redirect URI (null when PUBLIC_URL is not set)",
    }),
    updated_at: Timestamp,
  },
  { $id: 'SsoSettings', examples: [SETTINGS_EXAMPLE] },
);

export const SsoSettingsBody = Type.Object(
  {
    issuer: Issuer,
    client_id: ClientId,
    client_secret: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 2000,
        writeOnly: true,
        description: 'required the first time; left out, the stored secret is kept',
        examples: ['s3cr3t-from-the-provider'],
      }),
    ),
    allowed_domains: Domains,
    default_role: DefaultRole,
    enabled: Type.Optional(
      Type.Boolean({ description: 'default true; false keeps the settings but refuses sign-ins' }),
    ),
  },
  {
    additionalProperties: false,
    examples: [
      {
        issuer: 'https://login.agency.example',
        client_id: 'brand-health',
        client_secret: 's3cr3t-from-the-provider',
        allowed_domains: ['agency.example'],
        default_role: 'member',
      },
    ],
  },
);

export const SsoStartQuery = Type.Object(
  {
    workspace: Type.Optional(
      Type.String({ minLength: 1, maxLength: 64, description: 'the workspace whose provider signs in' }),
    ),
    email: Type.Optional(
      Type.String({
        format: 'email',
        maxLength: 254,
        description:
          "or the person's address: the one workspace allowing its domain (two workspaces allowing it: use `workspace`)",
      }),
    ),
    return_to: Type.Optional(
      Type.String({ maxLength: 300, description: 'a dashboard path (starting with /app/) to land on' }),
    ),
  },
  { additionalProperties: false, examples: [{ email: 'ana@agency.example' }] },
);

export const SsoCallbackQuery = Type.Object(
  {
    code: Type.Optional(Type.String({ maxLength: 2000 })),
    state: Type.Optional(Type.String({ maxLength: 2000 })),
    iss: Type.Optional(Type.String({ maxLength: 2000 })),
    error: Type.Optional(Type.String({ maxLength: 2000 })),
    error_description: Type.Optional(Type.String({ maxLength: 2000 })),
    session_state: Type.Optional(Type.String({ maxLength: 2000 })),
  },
  {
    examples: [{ code: 'SplxlOBeZQQYbYS6WxSbIA', state: 'af0ifjsldkj', iss: 'https://login.agency.example' }],
  },
);

export const SSO_ERROR_CODES_TEXT = SSO_ERRORS.map((c) => `\`${c}\``).join(', ');

export const Redirect = (description: string) => ({
  description,
  headers: { Location: { schema: { type: 'string' }, description: 'where the browser goes next' } },
  type: 'null',
});
