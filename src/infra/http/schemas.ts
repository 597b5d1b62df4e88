import { Type, type Static, type TSchema } from 'typebox';
import { COMPOSITE_GRADES, DRIVER_METRICS, PILLARS, PLATFORMS } from '../../core/catalog.ts';

/**
 * How route schemas become the OpenAPI document (@fastify/swagger reads them; the same schemas
 * validate requests and serialise responses):
 * - A resource schema carries an `$id`; placed inside a response's `content` (see `json`) it is
 *   emitted once as `#/components/schemas/<$id>` and referenced wherever it appears.
 * - An input with a default is optional on the wire (`withDefault`), so it is not `required`.
 * - Every response and request body carries a realistic example (taken from the sandbox).
 * - Cross-cutting headers (request id, rate limit, idempotency, conditional GETs) are documented
 *   from the route's config by `documentRoute` (src/infra/http/openapi.ts), not per route.
 */

/**
 * A field with a default: optional in the request (and so not `required` in the document), always
 * present after validation (Ajv fills defaults), hence typed as present.
 */
export function withDefault<T extends TSchema>(schema: T): T {
  return Type.Optional(schema) as unknown as T;
}

/**
 * A JSON response with its description and example (by default the schema's own first `examples`
 * entry); a schema with an `$id` becomes a named component.
 */
export function json<T extends TSchema>(
  schema: T,
  description: string,
  example: Static<T> = ownExample(schema),
) {
  return { description, content: { 'application/json': { schema, example } } };
}

/** The first of a schema's own `examples`, for a response that documents the resource's example. */
function ownExample<T extends TSchema>(schema: T): Static<T> {
  const { examples, $id } = schema as { examples?: unknown; $id?: string };
  if (!Array.isArray(examples) || examples.length === 0) {
    throw new Error(`schema ${$id ?? '(anonymous)'} has no examples: pass the response example`);
  }
  return examples[0] as Static<T>;
}

const ProblemFields = {
  type: Type.String({
    maxLength: 200,
    format: 'uri-reference',
    description: 'URI reference naming the problem type, e.g. /problems/plan-required',
  }),
  title: Type.String({ maxLength: 200, description: 'The error name, e.g. "Plan Required"' }),
  status: Type.Integer({ minimum: 400, maximum: 599, format: 'int32' }),
  detail: Type.String({ maxLength: 2000 }),
  instance: Type.Optional(Type.String({ maxLength: 2048, description: 'the request path' })),
  request_id: Type.Optional(
    Type.String({ maxLength: 64, pattern: '^[A-Za-z0-9._:-]{1,64}$', description: 'also X-Request-Id' }),
  ),
  errors: Type.Optional(
    Type.Array(
      Type.Object({ parameter: Type.String({ maxLength: 200 }), message: Type.String({ maxLength: 2000 }) }),
      { maxItems: 50, description: 'Which parameters were invalid, and why' },
    ),
  ),
};

/** RFC 9457 problem details, as every error response of the API. */
export const Problem = Type.Object(ProblemFields, {
  $id: 'Problem',
  additionalProperties: true,
  description: 'RFC 9457 problem details',
});

/** 402 Audit Limit Reached: the monthly audit quota and when it resets. */
export const AuditLimitProblem = Type.Object(
  {
    ...ProblemFields,
    audits_used: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000, format: 'int32' })),
    audits_limit: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000, format: 'int32' })),
    resets_at: Type.Optional(
      Type.String({ format: 'date-time', description: 'start of the next calendar month (UTC)' }),
    ),
  },
  {
    $id: 'AuditLimitProblem',
    additionalProperties: true,
    description: 'RFC 9457 problem; Audit Limit Reached adds the quota fields',
  },
);

/** 425 Too Early: the audit still processing and when it is expected. */
export const TooEarlyProblem = Type.Object(
  {
    ...ProblemFields,
    audit_id: Type.String({ maxLength: 64, pattern: '^aud_[0-9A-Z]{26}$' }),
    estimated_completion: Type.String({ format: 'date-time' }),
  },
  {
    $id: 'TooEarlyProblem',
    additionalProperties: true,
    description: 'RFC 9457 problem: audit still processing',
  },
);

/** 422 on webhook registration: Invalid Events names the unknown event names. */
export const InvalidEventsProblem = Type.Object(
  {
    ...ProblemFields,
    invalid_events: Type.Optional(
      Type.Array(Type.String({ maxLength: 100 }), {
        maxItems: 20,
        description: 'Invalid Events only: the unrecognised names (empty when none was given)',
      }),
    ),
  },
  {
    $id: 'InvalidEventsProblem',
    additionalProperties: true,
    description: 'RFC 9457 problem; Invalid Events adds invalid_events',
  },
);

const STATUSES: Record<number, { description: string; title: string; detail: string }> = {
  400: {
    description: 'Invalid request (a parameter is named in `errors`)',
    title: 'Invalid Parameter',
    detail: 'limit must be <= 100',
  },
  401: {
    description: 'Unauthorized: missing, malformed, unknown, expired or revoked key',
    title: 'Unauthorized',
    detail: 'A valid API key is required: send it as "Authorization: Bearer <key>".',
  },
  402: {
    description: 'Payment required: a plan quota is used up',
    title: 'Audit Limit Reached',
    detail:
      'The Pro plan includes 10 audits per calendar month (UTC) and 10 have been used; the quota resets at 2026-12-01T00:00:00.000Z.',
  },
  403: {
    description: 'Forbidden: the key, its plan or its scopes do not allow this',
    title: 'Plan Required',
    detail: 'This endpoint needs the Agency plan or above.',
  },
  404: {
    description: 'Not found',
    title: 'Not Found',
    detail: 'No audit "aud_01" is visible to this API key.',
  },
  409: {
    description: 'Conflict with the current state',
    title: 'Audit In Progress',
    detail: 'An audit is already running for this workspace.',
  },
  413: {
    description: 'Content Too Large',
    title: 'Content Too Large',
    detail: 'The request body is too large.',
  },
  415: {
    description: 'Unsupported Media Type',
    title: 'Unsupported Media Type',
    detail: 'Send the request body as application/json.',
  },
  422: {
    description: 'Unprocessable: well-formed but not acceptable',
    title: 'Invalid Platform',
    detail: 'platform must be one of instagram, tiktok, youtube, twitter, facebook',
  },
  425: {
    description: 'Too Early: still processing (honour Retry-After)',
    title: 'Too Early',
    detail: 'Audit aud_01 is still processing.',
  },
  429: {
    description: 'Rate Limited (honour Retry-After)',
    title: 'Rate Limited',
    detail: 'Too many requests for this key; retry in 42 s.',
  },
  500: {
    description: 'Internal error (logged with the request id)',
    title: 'Internal Server Error',
    detail: 'Something went wrong on our side; it has been logged.',
  },
  502: {
    description: 'Bad Gateway: the platform answered badly',
    title: 'Platform Error',
    detail: 'The platform did not answer the token exchange.',
  },
  503: {
    description: 'Service Unavailable (honour Retry-After)',
    title: 'Service Unavailable',
    detail: 'The database is unavailable; retry shortly.',
  },
};

function problemExample(status: number, title: string, detail: string) {
  return {
    type: `/problems/${title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`,
    title,
    status,
    detail,
    instance: '/v1/audit/run',
    request_id: 'req_Qm9vZ3xs00000000001',
    ...(status === 400 ? { errors: [{ parameter: 'limit', message: 'must be <= 100' }] } : {}),
  };
}

/** A problem+json response; `schema` is Problem or one of the typed problems above. */
export function problemResponse(
  status: number,
  schema: TSchema = Problem,
  example: Record<string, unknown> = {},
) {
  const known = STATUSES[status] ?? { description: 'Error', title: 'Error', detail: 'The request failed.' };
  return {
    description: known.description,
    content: {
      'application/problem+json': {
        schema,
        example: { ...problemExample(status, known.title, known.detail), ...example },
      },
    },
  };
}

/**
 * Error responses of a route, all problem+json: the given statuses plus those any API route can
 * answer (400, 401, 429, 500, 503). Typed problems (402, 425, 422 with extension fields) are
 * spread after it with `problemResponse`.
 */
export function errorResponses(...statuses: number[]) {
  const out: Record<number, ReturnType<typeof problemResponse>> = {};
  for (const status of [...new Set([...statuses, 400, 401, 429, 500, 503])].sort()) {
    out[status] = problemResponse(status);
  }
  return out;
}

export const PlatformName = Type.Enum(PLATFORMS);
export const PillarName = Type.Enum(PILLARS);

/** The composite grade of a Brand Credit Score (docs/scoring.md). */
export const Grade = Type.Enum([...COMPOSITE_GRADES], {
  description: 'composite grade: elite, strong, moderate, weak or critical',
});

export const Timestamp = Type.String({ format: 'date-time' });
export const DateOnly = Type.String({ format: 'date', description: 'YYYY-MM-DD' });

/** A workspace id (`ws_` + ULID) as a query or body input. */
export const WorkspaceIdInput = Type.String({
  minLength: 1,
  maxLength: 64,
  description: "default: the API key owner's workspace",
  examples: ['ws_01JD8Z6Q9W4T3B2N1M0K5R7H8C'],
});

const Share = (description: string) => Type.Number({ minimum: 0, maximum: 1, description });
/** Formula v3's crisis signal (src/scoring/engine/v3/crisis.ts), as events and GET /v1/score give it. */
export const CrisisData = Type.Object(
  {
    active: Type.Boolean(),
    negative_share: Share('negative share of the last 7 days'),
    baseline_negative_share: Share('negative share of the 90 days before them'),
    volume_ratio: Type.Number({
      minimum: 0,
      maximum: 1_000_000,
      description: 'classified items a day in the last 7 days over the 90 days before',
    }),
    since: Type.Union([Type.String({ format: 'date', maxLength: 10 }), Type.Null()], {
      description: 'first day of the running crisis',
    }),
  },
  { description: "The brand's conversation, all platforms pooled, against its own last 90 days." },
);

const DriverPlatform = Type.Union([Type.Enum(PLATFORMS), Type.Null()], {
  description: 'the platform; null for coverage (the share of the requested platforms with data)',
});
const DriverMetricName = Type.Enum(DRIVER_METRICS, {
  description:
    'the measured input (docs/scoring.md "Why the score is what it is"); platform_weight and conversation_share only in a change',
});
const Points = (description: string) => Type.Number({ minimum: -100, maximum: 100, description });

/**
 * One driver of a formula v3 score: a measured input against the median account of the same platform
 * and size, and the composite points it puts the score above or below 50 (src/scoring/explanations.ts).
 */
export const ScoreDriverData = Type.Object(
  {
    pillar: Type.Enum(PILLARS),
    platform: DriverPlatform,
    metric: DriverMetricName,
    value: Type.Number({ description: "the account's value (six significant digits)" }),
    median: Type.Number({ description: "the median account's value: what scores 50" }),
    points: Points(
      'composite points this input puts the score above (+, lifts it) or below (-, holds it back) 50; over all drivers they sum to score - 50 within rounding',
    ),
    text: Type.String({ maxLength: 400, description: 'the same in one plain sentence' }),
  },
  { $id: 'ScoreDriver' },
);

/** One driver of a change of the composite: an input's value before and after and its part of the change. */
export const ChangeDriverData = Type.Object(
  {
    pillar: Type.Enum(PILLARS),
    platform: DriverPlatform,
    metric: DriverMetricName,
    before: Type.Union([Type.Number(), Type.Null()], {
      description: 'the value in the previous score; null where the platform or input was absent',
    }),
    after: Type.Union([Type.Number(), Type.Null()], {
      description: 'the value in this score; null where the platform or input is absent',
    }),
    median: Type.Union([Type.Number(), Type.Null()], {
      description: "the median account's value; null for platform_weight and conversation_share",
    }),
    points: Points('composite points of the change this driver accounts for'),
    text: Type.String({ maxLength: 400, description: 'the same in one plain sentence' }),
  },
  { description: 'one part of a change of the composite' },
);

/** Formula v3's explanation of a change of the composite (src/scoring/explanations.ts). */
export const ChangeExplanationData = Type.Object(
  {
    summary: Type.String({ maxLength: 600, description: 'the change and its largest parts in one sentence' }),
    drivers: Type.Array(ChangeDriverData, {
      maxItems: 5,
      description: 'the largest parts of the change, largest first (at most 5)',
    }),
    other_points: Points('points of the change the drivers not listed account for together'),
    rounding: Points("change minus every driver's points: the rounding of the scores and points"),
  },
  {
    description:
      'extension (formula v3): what moved the score since the previous score; drivers, other_points and rounding sum to the change',
  },
);
