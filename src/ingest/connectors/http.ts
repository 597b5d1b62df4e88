import type { Platform } from '../../core/catalog.ts';
import { utcDay } from '../../core/days.ts';

/** A platform API answered with an error or something we cannot read. */
export class ConnectorError extends Error {
  readonly platform: Platform;
  readonly status: number | null;
  /** Seconds the platform asked us to wait (Retry-After on a 429 or 503), else null. */
  readonly retryAfterSeconds: number | null;
  /** The platform refused the access token itself (expired or revoked), not the request. */
  readonly tokenRefused: boolean;
  constructor(
    platform: Platform,
    message: string,
    status: number | null = null,
    retryAfterSeconds: number | null = null,
    tokenRefused = false,
  ) {
    super(`${platform}: ${message}`);
    this.name = 'ConnectorError';
    this.platform = platform;
    this.status = status;
    this.retryAfterSeconds = retryAfterSeconds;
    this.tokenRefused = tokenRefused;
  }
}

/** Retry-After as delay-seconds or an HTTP date (RFC 9110 10.2.3); null when absent or unreadable. */
export function retryAfterSeconds(value: string | null, now = Date.now()): number | null {
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
        `request to ${url.origin}${url.pathname} failed: ${(error as Error).message}`,
      );
    }
    const text = await this.#read(res);
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new ConnectorError(
        platform,
        `${url.pathname} answered ${res.status} with a body that is not JSON`,
        res.status,
        retryAfterSeconds(res.headers.get('retry-after')),
      );
    }
    if (!res.ok) {
      throw new ConnectorError(
        platform,
        `${url.pathname} answered ${res.status}: ${errorMessage(json)}`,
        res.status,
        retryAfterSeconds(res.headers.get('retry-after')),
        tokenRefused(res.status, json),
      );
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
        throw new ConnectorError(this.#o.platform, `response is over the ${this.#o.maxBytes} byte limit`);
      }
      chunks.push(value);
    }
    return Buffer.concat(chunks).toString('utf8');
  }
}

/**
 * Whether an error answer refuses the access token: HTTP 401 (the OAuth bearer rule, RFC 6750), or
 * Meta's Graph error code 190 (OAuthException: expired or invalidated token), which Graph may send
 * with 400.
 */
function tokenRefused(status: number, json: unknown): boolean {
  return status === 401 || (json as { error?: { code?: unknown } })?.error?.code === 190;
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
