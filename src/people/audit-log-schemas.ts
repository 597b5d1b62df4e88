// TypeBox schemas of GET /v1/audit-log (the log itself is src/audit-log), with their OpenAPI examples.
import { Type, type Static } from 'typebox';
import { Timestamp, WorkspaceIdInput, withDefault } from '../infra/http/schemas.ts';

/** Entries per page at most, and by default. */
export const AUDIT_PAGE_MAX = 200;
export const AUDIT_PAGE_DEFAULT = 50;
/** Entries one CSV answer holds at most; its Link header (rel="next") continues the range. */
export const AUDIT_CSV_MAX = 10_000;

const ACTION_LIST = '^[a-z][a-z_]*\\.[a-z][a-z_]*(,[a-z][a-z_]*\\.[a-z][a-z_]*){0,19}$';

const INSTANT = {
  maxLength: 64,
  description: 'ISO 8601 date or date-time (no offset: UTC), years 0001-9999',
};

export const AuditLogQuery = Type.Object(
  {
    workspace_id: Type.Optional({
      ...WorkspaceIdInput,
      description:
        "default: the caller's workspace; an agency's owners and admins may name one of its client workspaces",
    }),
    action: Type.Optional(
      Type.String({
        maxLength: 1000,
        pattern: ACTION_LIST,
        description: 'one action name or several, comma-separated (up to 20): entries of any of them',
        examples: ['key.created,key.revoked'],
      }),
    ),
    actor: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description: 'a person id or an API key id: the entries it made',
        examples: ['per_01JD3Q5W8N2M4K6P8R0T2V4X6Z'],
      }),
    ),
    target: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 254,
        description: 'the id of what the action was done to (a person, key, invitation, webhook, connection)',
        examples: ['key_01JD3Q5W8N2M4K6P8R0T2V4X6Z'],
      }),
    ),
    since: Type.Optional(Type.String({ ...INSTANT, examples: ['2026-11-01'] })),
    until: Type.Optional(
      Type.String({
        ...INSTANT,
        description: `${INSTANT.description}; entries before it (a date alone: up to the end of that day)`,
        examples: ['2026-11-30'],
      }),
    ),
    limit: withDefault(
      Type.Integer({
        minimum: 1,
        maximum: AUDIT_PAGE_MAX,
        default: AUDIT_PAGE_DEFAULT,
        format: 'int32',
        description: 'entries per JSON page (a CSV answer holds the whole range, up to 10,000 entries)',
      }),
    ),
    cursor: Type.Optional(
      Type.String({
        maxLength: 200,
        description: 'next_cursor of the previous page',
        examples: ['WyIyMDI2LTExLTIwVDA5OjAwOjAwLjAwMFoiLCJhbG9nXzAxIl0'],
      }),
    ),
  },
  { additionalProperties: false },
);

const Nullable = <T extends ReturnType<typeof Type.String>>(s: T) => Type.Union([s, Type.Null()]);

export const AuditActorData = Type.Object(
  {
    kind: Type.Enum(['person', 'key', 'none'], {
      description: 'a signed-in person, an API key, or none (a failed sign-in)',
    }),
    id: Nullable(Type.String({ description: 'the person id or key id' })),
    label: Nullable(
      Type.String({ description: "the person's email, or the key's name and prefix; null once deleted" }),
    ),
  },
  { additionalProperties: false },
);

export const AuditEntry = Type.Object(
  {
    id: Type.String(),
    at: Timestamp,
    action: Type.String({ description: 'docs/security.md "Audit log" lists the action names' }),
    actor: AuditActorData,
    target: Nullable(Type.String({ description: 'the id of what the action was done to' })),
    detail: Nullable(Type.String({ description: 'what the entry says beyond its target' })),
    address: Nullable(Type.String({ description: 'the client address of the request' })),
  },
  { $id: 'AuditEntry', additionalProperties: false },
);

export const AUDIT_ENTRY_EXAMPLE: Static<typeof AuditEntry> = {
  id: 'alog_01JD3Q5W8N2M4K6P8R0T2V4X6Z',
  at: '2026-11-20T09:00:00.000Z',
  action: 'member.role_changed',
  actor: { kind: 'person', id: 'per_01JD3Q5W8N2M4K6P8R0T2V4X6Z', label: 'ada@example.com' },
  target: 'per_01JD3Q5W8N2M4K6P8R0T2V4X7A',
  detail: 'member -> admin',
  address: '203.0.113.7',
};

export const AuditLogPage = Type.Object(
  {
    workspace_id: Type.String(),
    entries: Type.Array(AuditEntry),
    next_cursor: Nullable(
      Type.String({ description: 'the cursor of the next (older) page, or null on the last page' }),
    ),
  },
  { $id: 'AuditLogPage', additionalProperties: false },
);

export const AUDIT_LOG_PAGE_EXAMPLE: Static<typeof AuditLogPage> = {
  workspace_id: 'ws_01JD8Z6Q9W4T3B2N1M0K5R7H8C',
  entries: [AUDIT_ENTRY_EXAMPLE],
  next_cursor: null,
};
