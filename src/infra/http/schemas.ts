import { Type, type TSchema } from 'typebox';
import { PILLARS, PLATFORMS } from '../../core/catalog.ts';

/** RFC 9457 problem details, as every error response of the API. */
export const Problem = Type.Object(
  {
    type: Type.String({ description: 'URI reference naming the problem type' }),
    title: Type.String({ description: 'The error name, e.g. "Plan Required"' }),
    status: Type.Integer(),
    detail: Type.String(),
    instance: Type.Optional(Type.String()),
    request_id: Type.Optional(Type.String()),
    errors: Type.Optional(
      Type.Array(Type.Object({ parameter: Type.String(), message: Type.String() }), {
        description: 'Which parameters were invalid, and why',
      }),
    ),
  },
  { $id: 'Problem', additionalProperties: true, description: 'RFC 9457 problem details' },
);

const DESCRIPTIONS: Record<number, string> = {
  304: 'Not Modified',
  400: 'Invalid request (a parameter is named in `errors`)',
  401: 'Unauthorized: missing, malformed, unknown, expired or revoked key',
  402: 'Payment required',
  403: 'Forbidden',
  404: 'Not found',
  409: 'Conflict',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable',
  425: 'Too Early',
  429: 'Rate Limited (honour Retry-After)',
  503: 'Service Unavailable (honour Retry-After)',
};

/** Response schemas for error statuses, all problem+json. */
export function errorResponses(...statuses: number[]): Record<number, TSchema> {
  const out: Record<number, TSchema> = {};
  for (const status of [...new Set([...statuses, 400, 401, 429, 503])].sort()) {
    out[status] = Type.Unsafe({ $ref: 'Problem#', description: DESCRIPTIONS[status] ?? 'Error' });
  }
  return out;
}

export const PlatformName = Type.Enum(PLATFORMS);
export const PillarName = Type.Enum(PILLARS);

export const Timestamp = Type.String({ format: 'date-time' });
export const DateOnly = Type.String({ format: 'date', description: 'YYYY-MM-DD' });
