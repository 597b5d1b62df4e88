/** One invalid parameter of a 400 problem. */
export interface ProblemParameter {
  parameter: string;
  message: string;
}

const KNOWN = new Set(['type', 'title', 'status', 'detail', 'instance', 'request_id', 'errors']);

/**
 * An RFC 9457 problem answered by the API (every error it sends is one), thrown by `unwrap()` and the
 * SDK's helpers. `extensions` holds the problem's own fields (`audits_used`, `resets_at` of a 402, the
 * estimate of a 425, `invalid_events` of a 422, ...).
 */
export class ProblemError extends Error {
  override readonly name = 'ProblemError';
  readonly status: number;
  /** URI reference naming the problem type, e.g. `/problems/plan-required`. */
  readonly type: string;
  /** The error's name, e.g. `Plan Required`. */
  readonly title: string;
  readonly detail: string;
  readonly instance: string | undefined;
  /** The request id (also the X-Request-Id header): quote it when asking for support. */
  readonly requestId: string | undefined;
  /** Which parameters were invalid, and why (400s). */
  readonly errors: ProblemParameter[];
  /** Every other field of the problem body. */
  readonly extensions: Readonly<Record<string, unknown>>;
  /** Seconds from the Retry-After header, when the answer had one. */
  readonly retryAfterSeconds: number | undefined;
  readonly headers: Headers;

  constructor(status: number, body: Record<string, unknown>, headers: Headers = new Headers()) {
    const title = typeof body.title === 'string' ? body.title : `HTTP ${status}`;
    const detail = typeof body.detail === 'string' ? body.detail : '';
    super(`${status} ${title}${detail ? `: ${detail}` : ''}`);
    this.status = status;
    this.type = typeof body.type === 'string' ? body.type : 'about:blank';
    this.title = title;
    this.detail = detail;
    this.instance = typeof body.instance === 'string' ? body.instance : undefined;
    this.requestId =
      typeof body.request_id === 'string' ? body.request_id : (headers.get('x-request-id') ?? undefined);
    this.errors = Array.isArray(body.errors) ? (body.errors as ProblemParameter[]) : [];
    this.extensions = Object.fromEntries(Object.entries(body).filter(([k]) => !KNOWN.has(k)));
    const wait = retryAfterMs(headers.get('retry-after'), Date.now());
    this.retryAfterSeconds = wait === null ? undefined : wait / 1000;
    this.headers = headers;
  }

  /**
   * The problem of a failed response: its parsed body when that is a JSON object, otherwise (a proxy's
   * HTML page, an empty body) a problem made of the status, keeping the text as the detail.
   */
  static from(error: unknown, response: Response): ProblemError {
    const body =
      error && typeof error === 'object' && !Array.isArray(error)
        ? (error as Record<string, unknown>)
        : {
            title: response.statusText || `HTTP ${response.status}`,
            detail: typeof error === 'string' ? error.slice(0, 500) : '',
          };
    return new ProblemError(response.status, body, response.headers);
  }
}

/** The result of an openapi-fetch call. */
export interface FetchResult {
  data?: unknown;
  error?: unknown;
  response: Response;
}

/**
 * The body of a successful (2xx) answer; a ProblemError for anything else.
 * `const score = unwrap(await bh.GET('/v1/score', ...))`.
 */
export function unwrap<R extends FetchResult>(result: R): NonNullable<R['data']> {
  if (!result.response.ok) throw ProblemError.from(result.error, result.response);
  return result.data as NonNullable<R['data']>;
}

/**
 * Milliseconds to wait from a Retry-After value (delay-seconds or an HTTP-date, RFC 9110 10.2.3);
 * null when absent or unreadable.
 */
export function retryAfterMs(value: string | null, now: number): number | null {
  if (value === null) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}
