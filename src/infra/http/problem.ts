/**
 * RFC 9457 problem details. Every error the API returns is one of these; `title` is the
 * spec's error name ("Plan Required", "Too Early") and `type` a stable URI per title.
 */
export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance?: string;
  request_id?: string;
  errors?: Array<{ parameter: string; message: string }>;
  [extension: string]: unknown;
}

export interface ProblemOptions {
  headers?: Record<string, string>;
  extensions?: Record<string, unknown>;
  errors?: Array<{ parameter: string; message: string }>;
}

export function problemType(title: string): string {
  return `/problems/${title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')}`;
}

export class ProblemError extends Error {
  readonly status: number;
  readonly title: string;
  readonly detail: string;
  readonly headers: Record<string, string>;
  readonly extensions: Record<string, unknown>;
  readonly errors: Array<{ parameter: string; message: string }> | undefined;

  constructor(status: number, title: string, detail: string, options: ProblemOptions = {}) {
    super(`${status} ${title}: ${detail}`);
    this.status = status;
    this.title = title;
    this.detail = detail;
    this.headers = options.headers ?? {};
    this.extensions = options.extensions ?? {};
    this.errors = options.errors;
  }

  body(instance: string, requestId: string): ProblemBody {
    return {
      type: problemType(this.title),
      title: this.title,
      status: this.status,
      detail: this.detail,
      instance,
      request_id: requestId,
      ...(this.errors ? { errors: this.errors } : {}),
      ...this.extensions,
    };
  }
}

/**
 * Problems that exist only at the HTTP edge (authentication, rate limits, request framing). Anything a
 * domain can say is a DomainError (src/core/errors.ts) mapped in domain-problems.ts instead.
 */
export const problems = {
  badRequest: (title: string, detail: string, parameter?: string) =>
    new ProblemError(400, title, detail, parameter ? { errors: [{ parameter, message: detail }] } : {}),
  unauthorized: (detail = 'A valid API key is required: send it as "Authorization: Bearer <key>".') =>
    new ProblemError(401, 'Unauthorized', detail, {
      headers: { 'WWW-Authenticate': 'Bearer realm="brand-health"' },
    }),
  /** `required_plan` names the lowest plan that allows it (`free`, `pro`, ...), for a client to say so. */
  planRequired: (plan: string, label: string) =>
    new ProblemError(403, 'Plan Required', `This endpoint needs the ${label} plan or above.`, {
      extensions: { required_plan: plan },
    }),
  conflict: (title: string, detail: string) => new ProblemError(409, title, detail),
  unprocessable: (title: string, detail: string) => new ProblemError(422, title, detail),
  rateLimited: (retryAfterSeconds: number, headers: Record<string, string>) =>
    new ProblemError(
      429,
      'Rate Limited',
      `Too many requests for this key; retry in ${retryAfterSeconds} s.`,
      {
        headers: { ...headers, 'Retry-After': String(retryAfterSeconds) },
      },
    ),
  authFailuresLimited: (retryAfterSeconds: number) =>
    new ProblemError(
      429,
      'Rate Limited',
      `Too many requests without a valid API key from this address; retry in ${retryAfterSeconds} s.`,
      { headers: { 'Retry-After': String(retryAfterSeconds) } },
    ),
  unavailable: (detail = 'The database is unavailable; retry shortly.') =>
    new ProblemError(503, 'Service Unavailable', detail, { headers: { 'Retry-After': '5' } }),
};
