// TypeBox schemas of the passkey (WebAuthn) endpoints, with their OpenAPI examples. The WebAuthn
// JSON shapes are those of the WebAuthn Level 3 spec (PublicKeyCredential.toJSON(), section 5.1),
// as @simplewebauthn/browser produces and @simplewebauthn/server reads them.
import { Type } from 'typebox';
import { Timestamp } from '../infra/http/schemas.ts';

const B64URL = '^[A-Za-z0-9_-]*$';
const b64url = (maxLength: number, description: string) =>
  Type.String({ pattern: B64URL, minLength: 1, maxLength, description });

const CLIENT_DATA = 'base64url clientDataJSON';
const Transports = Type.Array(Type.String({ maxLength: 32 }), { maxItems: 10 });
const ClientExtensionResults = Type.Object(
  {},
  { additionalProperties: true, description: 'the client extension results (not used)' },
);
const AuthenticatorAttachment = Type.Optional(Type.Enum(['platform', 'cross-platform']));

/** The browser's answer to navigator.credentials.create (RegistrationResponseJSON). */
export const RegistrationResponse = Type.Object(
  {
    id: b64url(1366, 'the credential id'),
    rawId: b64url(1366, 'the credential id (the same value)'),
    type: Type.Literal('public-key'),
    response: Type.Object(
      {
        clientDataJSON: b64url(8192, CLIENT_DATA),
        attestationObject: b64url(65536, 'base64url CBOR attestation object'),
        authenticatorData: Type.Optional(b64url(65536, 'base64url authenticator data')),
        transports: Type.Optional(Transports),
        publicKeyAlgorithm: Type.Optional(Type.Integer({ minimum: -65536, maximum: 65536 })),
        publicKey: Type.Optional(b64url(65536, 'base64url SubjectPublicKeyInfo')),
      },
      { additionalProperties: false },
    ),
    authenticatorAttachment: AuthenticatorAttachment,
    clientExtensionResults: ClientExtensionResults,
  },
  { additionalProperties: false },
);

/** The browser's answer to navigator.credentials.get (AuthenticationResponseJSON). */
export const AuthenticationResponse = Type.Object(
  {
    id: b64url(1366, 'the credential id'),
    rawId: b64url(1366, 'the credential id (the same value)'),
    type: Type.Literal('public-key'),
    response: Type.Object(
      {
        clientDataJSON: b64url(8192, CLIENT_DATA),
        authenticatorData: b64url(65536, 'base64url authenticator data'),
        signature: b64url(8192, 'base64url signature'),
        userHandle: Type.Optional(Type.String({ pattern: B64URL, maxLength: 128 })),
      },
      { additionalProperties: false },
    ),
    authenticatorAttachment: AuthenticatorAttachment,
    clientExtensionResults: ClientExtensionResults,
  },
  { additionalProperties: false },
);

const EXAMPLE_REGISTRATION = {
  id: 'Xk3f9Qm2TqWc0vZr8yH1bA',
  rawId: 'Xk3f9Qm2TqWc0vZr8yH1bA',
  type: 'public-key' as const,
  response: {
    clientDataJSON: 'eyJ0eXBlIjoid2ViYXV0aG4uY3JlYXRlIiwiY2hhbGxlbmdlIjoiLi4uIn0',
    attestationObject: 'o2NmbXRkbm9uZWdhdHRTdG10oGhhdXRoRGF0YVjE',
    transports: ['internal'],
  },
  authenticatorAttachment: 'platform' as const,
  clientExtensionResults: {},
};

export const AddPasskeyBody = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: 100,
      pattern: '\\S',
      description: 'a name the person chooses for it, to tell their passkeys apart',
      examples: ['Work laptop'],
    }),
    response: RegistrationResponse,
  },
  { additionalProperties: false, examples: [{ name: 'Work laptop', response: EXAMPLE_REGISTRATION }] },
);

export const PasskeySignInBody = Type.Object(
  {
    challenge_id: Type.String({
      pattern: B64URL,
      minLength: 1,
      maxLength: 100,
      description: 'the challenge_id of POST /v1/auth/passkey/options',
    }),
    response: AuthenticationResponse,
  },
  {
    additionalProperties: false,
    examples: [
      {
        challenge_id: 'pR4c1Vb8Zk2mQw7xN0sT3yH6jL9dF5gA1eU8iO2uY4c',
        response: {
          id: 'Xk3f9Qm2TqWc0vZr8yH1bA',
          rawId: 'Xk3f9Qm2TqWc0vZr8yH1bA',
          type: 'public-key',
          response: {
            clientDataJSON: 'eyJ0eXBlIjoid2ViYXV0aG4uZ2V0IiwiY2hhbGxlbmdlIjoiLi4uIn0',
            authenticatorData: 'SZYN5YgOjGh0NBcPZHZgW4_krrmihjLHmVzzuoMdl2MFAAAAAQ',
            signature: 'MEUCIQDk2m0',
            userHandle: 'cGVyXzAxSkQzUTVXOE4yTTRLNlA4UjBUMlY0WDZa',
          },
          authenticatorAttachment: 'platform',
          clientExtensionResults: {},
        },
      },
    ],
  },
);

export const PasskeyParams = Type.Object(
  { id: Type.String({ minLength: 1, maxLength: 64, examples: ['pk_01JD3Q5W8N2M4K6P8R0T2V4X6Z'] }) },
  { additionalProperties: false },
);

const PASSKEY_EXAMPLE = {
  id: 'pk_01JD3Q5W8N2M4K6P8R0T2V4X6Z',
  name: 'Work laptop',
  transports: ['internal'],
  aaguid: null,
  created_at: '2026-11-28T09:00:00.000Z',
  last_used_at: '2026-11-28T09:05:00.000Z',
};

export const Passkey = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    transports: Type.Array(Type.String(), { description: 'how the browser reaches the authenticator' }),
    aaguid: Type.Union([Type.String(), Type.Null()], {
      description: 'the authenticator model, when it names one',
    }),
    created_at: Timestamp,
    last_used_at: Type.Union([Timestamp, Type.Null()], { description: 'the last sign-in with it' }),
  },
  { $id: 'Passkey', examples: [PASSKEY_EXAMPLE] },
);

export const PasskeyList = Type.Object(
  { data: Type.Array(Passkey) },
  { $id: 'PasskeyList', examples: [{ data: [PASSKEY_EXAMPLE] }] },
);

const Open = { additionalProperties: true };
const CredentialDescriptor = Type.Object(
  {
    id: Type.String(),
    type: Type.String({ examples: ['public-key'] }),
    transports: Type.Optional(Transports),
  },
  Open,
);

/** PublicKeyCredentialCreationOptionsJSON, for navigator.credentials.create. */
export const RegistrationOptions = Type.Object(
  {
    rp: Type.Object({ name: Type.String(), id: Type.Optional(Type.String()) }, Open),
    user: Type.Object({ id: Type.String(), name: Type.String(), displayName: Type.String() }, Open),
    challenge: Type.String(),
    pubKeyCredParams: Type.Array(Type.Object({ alg: Type.Integer(), type: Type.String() })),
    timeout: Type.Optional(Type.Integer()),
    excludeCredentials: Type.Optional(Type.Array(CredentialDescriptor)),
    authenticatorSelection: Type.Optional(
      Type.Object(
        {
          residentKey: Type.Optional(Type.String()),
          requireResidentKey: Type.Optional(Type.Boolean()),
          userVerification: Type.Optional(Type.String()),
          authenticatorAttachment: Type.Optional(Type.String()),
        },
        Open,
      ),
    ),
    attestation: Type.Optional(Type.String()),
    hints: Type.Optional(Type.Array(Type.String())),
    extensions: Type.Optional(Type.Object({}, Open)),
  },
  {
    ...Open,
    $id: 'PasskeyRegistrationOptions',
    description: 'pass to navigator.credentials.create (or startRegistration of @simplewebauthn/browser)',
    examples: [
      {
        rp: { name: 'Brand Health', id: 'brandhealth.example' },
        user: {
          id: 'cGVyXzAxSkQzUTVXOE4yTTRLNlA4UjBUMlY0WDZa',
          name: 'ana@example.com',
          displayName: 'Ana Silva',
        },
        challenge: 'Jq0bX4c2Vv6mL9sR3tY7wZ5kP0aE1fG2hJ3kL4mN5o',
        pubKeyCredParams: [
          { alg: -8, type: 'public-key' },
          { alg: -7, type: 'public-key' },
          { alg: -257, type: 'public-key' },
        ],
        timeout: 300000,
        excludeCredentials: [],
        authenticatorSelection: {
          residentKey: 'required',
          requireResidentKey: true,
          userVerification: 'preferred',
        },
        attestation: 'none',
        extensions: { credProps: true },
      },
    ],
  },
);

export const SignInOptions = Type.Object(
  {
    challenge_id: Type.String({ description: 'send it back with the assertion; valid once, 5 minutes' }),
    options: Type.Object(
      {
        challenge: Type.String(),
        rpId: Type.Optional(Type.String()),
        timeout: Type.Optional(Type.Integer()),
        userVerification: Type.Optional(Type.String()),
        allowCredentials: Type.Optional(Type.Array(CredentialDescriptor)),
        hints: Type.Optional(Type.Array(Type.String())),
        extensions: Type.Optional(Type.Object({}, Open)),
      },
      {
        ...Open,
        description:
          'PublicKeyCredentialRequestOptionsJSON: pass to navigator.credentials.get (or startAuthentication of @simplewebauthn/browser)',
      },
    ),
  },
  {
    $id: 'PasskeySignInOptions',
    examples: [
      {
        challenge_id: 'pR4c1Vb8Zk2mQw7xN0sT3yH6jL9dF5gA1eU8iO2uY4c',
        options: {
          challenge: 'Jq0bX4c2Vv6mL9sR3tY7wZ5kP0aE1fG2hJ3kL4mN5o',
          rpId: 'brandhealth.example',
          timeout: 300000,
          userVerification: 'preferred',
        },
      },
    ],
  },
);
