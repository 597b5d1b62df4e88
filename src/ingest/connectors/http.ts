import type { Platform } from '../../core/catalog.ts';
import { utcDay } from '../../core/days.ts';
import { wallClockMs } from '../../infra/wall-clock.ts';

/**
 * What a platform's error means for the service, whatever signal the platform used to say it (an HTTP
 * status, a code in the body of a 200, a header). Each connector reads its own platform's signals
 * (`PlatformConnector.readFault`); the sync scheduler acts on the kind alone (src/platforms/sync-worker.ts).
 * - throttled: a rate limit; retry when the platform's own signal says, never a failure of the connection.
 * - quota_exhausted: a daily or monthly quota; nothing more until its known reset (`retryAt`).
 * - token_refused: the access token expired or was revoked: refresh it, else the brand reconnects.
 * - permission_missing: a scope the call needs was not granted (`scope` names it when known): reconnect.
 * - account_gone: the account, Page or channel no longer exists or is no longer reachable by this token.
 * - unavailable: network failure, timeout or 5xx: back off; counts towards the platform's breaker.
 * - invalid_request: the platform refused our request (a removed metric, a bad parameter, a window too long).
 * - invalid_response: an answer we cannot read (the platform's answer changed shape).
 */
export const CONNECTOR_ERROR_KINDS = [
  'throttled',
  'quota_exhausted',
  'token_refused',
  'permission_missing',
  'account_gone',
  'unavailable',
  'invalid_request',
  'invalid_response',
] as const;
export type ConnectorErrorKind = (typeof CONNECTOR_ERROR_KINDS)[number];

/** One platform answer as the connector's `readFault` sees it. */
export interface PlatformAnswer {
  status: number;
  headers: Headers;
  /** The parsed JSON body (undefined when the body was not JSON). */
  json: unknown;
  /** The path called, e.g. `/v24.0/123/insights`. */
  path: string;
  /** Epoch milliseconds when the answer was read. */
  now: number;
}

/** A platform's answer read as an error. */
export interface PlatformFault {
  kind: ConnectorErrorKind;
  message: string;
  /** When the platform will accept the call again, by its own signal (Retry-After, a reset header or time). */
  retryAt?: Date | null;
  /** The permission (scope) the platform says is missing, when it names one. */
  scope?: string | null;
}

export interface ConnectorErrorOptions {
  kind?: ConnectorErrorKind;
  status?: number | null;
  retryAt?: Date | null;
  scope?: string | null;
  /** The call that failed (its path), and the metric when one metric of it failed. */
  call?: string | null;
  metric?: string | null;
}

/** A platform API answered with an error or something we cannot read. */
export class ConnectorError extends Error {
  readonly platform: Platform;
  readonly kind: ConnectorErrorKind;
  readonly status: number | null;
  readonly retryAt: Date | null;
  readonly scope: string | null;
  readonly call: string | null;
  readonly metric: string | null;
  constructor(platform: Platform, message: string, options: ConnectorErrorOptions = {}) {
    super(`${platform}: ${message}`);
    this.name = 'ConnectorError';
    this.platform = platform;
    this.kind = options.kind ?? 'invalid_response';
    this.status = options.status ?? null;
    this.retryAt = options.retryAt ?? null;
    this.scope = options.scope ?? null;
    this.call = options.call ?? null;
    this.metric = options.metric ?? null;
  }
  /** The platform refused the access token itself (expired or revoked), not the request. */
  get tokenRefused(): boolean {
    return this.kind === 'token_refused';
  }
  /** Seconds until the platform's own retry signal, else null. */
  retryAfterSeconds(now = wallClockMs()): number | null {
    return this.retryAt ? Math.max(0, Math.ceil((this.retryAt.getTime() - now) / 1000)) : null;
  }
}

/** One call of a sync that failed while the rest succeeded. */
export interface PartialFailure {
  /** The call, as `METHOD path` with ids left out, e.g. `GET /{ig-user-id}/insights`. */
  call: string;
  /** The metric or field the call was for (`views`, `comments`), null for the whole call. */
  metric: string | null;
  kind: ConnectorErrorKind;
  message: string;
  /** The permission the platform said is missing, when it named one. */
  scope: string | null;
}

/**
 * Kinds that stop the whole sync (every other call would meet them too); the rest fail one call,
 * which `partial` records while the others go on.
 */
const WHOLE_SYNC_KINDS: ReadonlySet<ConnectorErrorKind> = new Set([
  'throttled',
  'quota_exhausted',
  'token_refused',
  'unavailable',
  'account_gone',
]);

/**
 * Runs one call that the rest of a sync can do without (comments, one metric, per-post insights):
 * a refusal of that call alone is recorded in `failures` and answers `fallback`; an error that would
 * stop every call (throttled, token refused, platform down, account gone) is thrown.
 */
export async function partial<T>(
  failures: PartialFailure[],
  what: { call: string; metric?: string | null },
  fallback: T,
  run: () => Promise<T>,
): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (!(error instanceof ConnectorError) || WHOLE_SYNC_KINDS.has(error.kind)) throw error;
    failures.push({
      call: what.call,
      metric: what.metric ?? null,
      kind: error.kind,
      message: error.message,
      scope: error.scope,
    });
    return fallback;
  }
}

/** Retry-After as delay-seconds or an HTTP date (RFC 9110 10.2.3); null when absent or unreadable. */
export function retryAfterSeconds(value: string | null, now = wallClockMs()): number | null {
  if (value === null) return null;
  const text = value.trim();
  if (/^\d{1,9}$/.test(text)) return Number(text);
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}

export interface ApiClientOptions {
  platform: Platform;
  /** Base URL per API name. */
  baseUrls: Record<string, string>;
  headers: Record<string, string>;
  timeoutMs: number;
  /** Largest response body read, in bytes. */
  maxBytes: number;
  fetch: typeof fetch;
  /** Reads an answer as the platform's error, if it is one (default: `httpFault`). */
  readFault?: (answer: PlatformAnswer) => PlatformFault | null;
}

type Query = Record<string, string | number | undefined>;

/**
 * JSON over HTTP to one platform's APIs. Paths are resolved against the configured base URL of
 * the named API; pagination links the platform returns are only followed when they stay under
 * that base, so an API response cannot send the connector (and its token) elsewhere.
 */
export class ApiClient {
  readonly #o: ApiClientOptions;
  /** Pages fetched, a guard against pagination loops. */
  requests = 0;
  static readonly MAX_REQUESTS = 200;
  /**
   * The platform's own UTC day: the latest `Date` header of its successful answers (RFC 9110
   * 6.6.1), null when none carried one. A sync stores no day after it (src/ingest/sync.ts).
   */
  platformToday: string | null = null;

  constructor(options: ApiClientOptions) {
    this.#o = options;
  }

  #base(api: string): string {
    const base = this.#o.baseUrls[api];
    if (!base) throw new ConnectorError(this.#o.platform, `no base URL configured for the ${api} API`);
    return base.replace(/\/+$/, '');
  }

  url(api: string, path: string, query: Query = {}): URL {
    const url = new URL(this.#base(api) + path);
    for (const [k, v] of Object.entries(query)) if (v !== undefined) url.searchParams.set(k, String(v));
    return url;
  }

  async get<T>(api: string, path: string, query: Query = {}): Promise<T> {
    return this.#send<T>(this.url(api, path, query), 'GET');
  }

  async post<T>(api: string, path: string, query: Query, body: unknown): Promise<T> {
    return this.#send<T>(this.url(api, path, query), 'POST', body);
  }

  /** A `next` link from a paginated answer; refused unless it points under the API's base URL. */
  async follow<T>(api: string, next: string): Promise<T> {
    const base = this.#base(api);
    let url: URL;
    try {
      url = new URL(next);
    } catch {
      throw new ConnectorError(this.#o.platform, 'the API returned an unreadable next-page link');
    }
    if (!url.href.startsWith(`${base}/`)) {
      throw new ConnectorError(this.#o.platform, `refusing a next-page link outside ${base}`);
    }
    return this.#send<T>(url, 'GET');
  }

  async #send<T>(url: URL, method: 'GET' | 'POST', body?: unknown): Promise<T> {
    const { platform } = this.#o;
    if (++this.requests > ApiClient.MAX_REQUESTS) {
      throw new ConnectorError(platform, `more than ${ApiClient.MAX_REQUESTS} requests in one sync`);
    }
    let res: Response;
    const call = url.pathname;
    try {
      res = await this.#o.fetch(url, {
        method,
        headers: {
          accept: 'application/json',
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...this.#o.headers,
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        redirect: 'error',
        signal: AbortSignal.timeout(this.#o.timeoutMs),
      });
    } catch (error) {
      throw new ConnectorError(
        platform,
        `request to ${url.origin}${call} failed: ${(error as Error).message}`,
        {
          kind: 'unavailable',
          call,
        },
      );
    }
    const text = await this.#read(res);
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    const answer: PlatformAnswer = {
      status: res.status,
      headers: res.headers,
      json,
      path: call,
      now: wallClockMs(),
    };
    const fault = (this.#o.readFault ?? httpFault)(answer) ?? (res.ok ? null : httpFault(answer));
    if (fault) {
      throw new ConnectorError(platform, `${call} answered ${res.status}: ${fault.message}`, {
        kind: fault.kind,
        status: res.status,
        retryAt: fault.retryAt ?? null,
        scope: fault.scope ?? null,
        call,
      });
    }
    if (json === undefined) {
      throw new ConnectorError(platform, `${call} answered ${res.status} with a body that is not JSON`, {
        kind: 'invalid_response',
        status: res.status,
        call,
      });
    }
    const date = Date.parse(res.headers.get('date') ?? '');
    if (Number.isFinite(date)) {
      const day = utcDay(new Date(date));
      if (this.platformToday === null || day > this.platformToday) this.platformToday = day;
    }
    return json as T;
  }

  async #read(res: Response): Promise<string> {
    const declared = Number(res.headers.get('content-length') ?? 0);
    if (declared > this.#o.maxBytes) {
      throw new ConnectorError(
        this.#o.platform,
        `response of ${declared} bytes is over the ${this.#o.maxBytes} limit`,
        {
          kind: 'invalid_response',
          status: res.status,
        },
      );
    }
    const reader = res.body?.getReader();
    if (!reader) return '';
    const chunks: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > this.#o.maxBytes) {
        await reader.cancel();
        throw new ConnectorError(this.#o.platform, `response is over the ${this.#o.maxBytes} byte limit`, {
          kind: 'invalid_response',
          status: res.status,
        });
      }
      chunks.push(value);
    }
    return Buffer.concat(chunks).toString('utf8');
  }
}

/**
 * The HTTP reading of an answer, for platforms whose errors are plain HTTP: 429 throttled (Retry-After,
 * RFC 9110 10.2.3), 401 token refused (the OAuth bearer rule, RFC 6750 3.1), 403 with a Bearer
 * `insufficient_scope` challenge a missing permission (RFC 6750 3.1; Google APIs send it, naming the
 * scopes that would do), 410 Gone an account that no longer exists (RFC 9110 15.5.11), 5xx unavailable
 * (Retry-After on a 503), any other non-2xx an invalid request. Null for a 2xx. Connectors whose
 * platforms say more (Graph codes, Google reasons, TikTok's 200 envelopes, X's reset header) read those first.
 */
export function httpFault(answer: PlatformAnswer): PlatformFault | null {
  const { status, headers, json, now } = answer;
  if (status >= 200 && status < 300) return null;
  const message = errorMessage(json);
  const wait = retryAfterSeconds(headers.get('retry-after'), now);
  const retryAt = wait === null ? null : new Date(now + wait * 1000);
  if (status === 429) return { kind: 'throttled', message, retryAt };
  if (status === 401) return { kind: 'token_refused', message };
  if (status === 403) {
    const challenge = bearerChallenge(headers.get('www-authenticate'));
    if (challenge.error === 'insufficient_scope') {
      return { kind: 'permission_missing', message, scope: challenge.scope?.split(' ')[0] ?? null };
    }
  }
  if (status === 410) return { kind: 'account_gone', message };
  if (status >= 500) return { kind: 'unavailable', message, retryAt };
  return { kind: 'invalid_request', message };
}

/** The `error` and `scope` parameters of a Bearer challenge (RFC 6750 3), e.g. `Bearer error="insufficient_scope", scope="a b"`. */
export function bearerChallenge(header: string | null): { error?: string; scope?: string } {
  const out: { error?: string; scope?: string } = {};
  if (!header || !/^\s*Bearer\b/i.test(header)) return out;
  for (const m of header.matchAll(/\b(error|scope)\s*=\s*(?:"([^"]*)"|([^\s,]+))/gi)) {
    out[m[1]!.toLowerCase() as 'error' | 'scope'] = (m[2] ?? m[3] ?? '').slice(0, 2000);
  }
  return out;
}

/** The error text of the platforms' error envelopes (Graph, Google, X, TikTok). */
export function errorMessage(json: unknown): string {
  const j = json as any;
  return String(
    j?.error?.message ??
      j?.errors?.[0]?.detail ??
      j?.errors?.[0]?.message ??
      j?.detail ??
      j?.message ??
      'unknown error',
  ).slice(0, 300);
}
