import createFetchClient, { type Client, type Middleware } from 'openapi-fetch';
import { ProblemError, retryAfterMs, unwrap } from './problem.ts';
import { DEFAULT_RETRY, retryingFetch, sleep, type RetryOptions } from './retry.ts';
import type { paths } from './schema.js';

/** The JSON body of a path's 200 answer. */
export type Ok<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends {
  responses: { 200: { content: { 'application/json': infer B } } };
}
  ? B
  : never;
type Query<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends {
  parameters: { query?: infer Q };
}
  ? NonNullable<Q>
  : never;

export type Campaign = Ok<'/v1/campaigns', 'get'>['campaigns'][number];
export type AuditSummary = Ok<'/v1/audits', 'get'>['audits'][number];
export type LicensedSector = Ok<'/v1/tacsi/sectors', 'get'>['sectors'][number];
export type TacsiHistoryRow = Ok<'/v1/tacsi/history', 'get'>['rows'][number];
export type ScoreLogRow = Ok<'/v1/export/scores', 'get'>['scores'][number];
export type AuditStart = Ok<'/v1/audit/run', 'post'>;
/** An alert rule, with whether it is firing (GET /v1/alerts). */
export type Alert = Ok<'/v1/alerts', 'get'>['alerts'][number];
/** One episode of an alert: what fired, why (drivers), when it resolved, how it was notified. */
export type AlertEpisode = Ok<'/v1/alerts/{alert_id}/history', 'get'>['episodes'][number];
export type CreateAlertBody = NonNullable<
  paths['/v1/alerts']['post']['requestBody']
>['content']['application/json'];
export type AuditRunBody = NonNullable<
  paths['/v1/audit/run']['post']['requestBody']
>['content']['application/json'];
/** A finished audit: `status` is `completed` (with the score) or `failed` (with the reason). */
export type AuditResult = Ok<'/v1/audit/{audit_id}', 'get'>;

export interface BrandHealthOptions {
  /**
   * The API key (`bh_live_...`, or a sandbox `bh_test_...` key), sent as a Bearer token. Leave it
   * out in a browser signed in with a session cookie (the web dashboard): then `requestHeaders`
   * supplies the session's CSRF token and workspace, and `idempotencyKeys` is false (a session's
   * requests cannot be replayed by key).
   */
  apiKey?: string;
  /** Where the API is, e.g. `https://api.example.com` or `http://localhost:8080`. */
  baseUrl: string;
  /** Retries of 429, 425 and 503 answers honouring Retry-After; `false` turns them off. */
  retry?: RetryOptions | false;
  /** The fetch to use (default: the global one). */
  fetch?: (request: Request) => Promise<Response>;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
  /** Headers computed for each request from its method (a session's CSRF token on changes). */
  requestHeaders?: (method: string) => Record<string, string>;
  /** Give every POST a random Idempotency-Key when the caller gave none (default true). */
  idempotencyKeys?: boolean;
}

export interface PageOptions {
  signal?: AbortSignal;
}

export interface WaitOptions {
  /** Give up waiting after this long (default 10 minutes): AuditTimeoutError. */
  timeoutMs?: number;
  /** Stops waiting (and any request in flight) when aborted. */
  signal?: AbortSignal;
  /** Poll interval when a 425 has no Retry-After (default 2 s). */
  pollIntervalMs?: number;
}

export interface ScoreLogOptions extends PageOptions {
  /** Rows recorded at or after this instant (ISO 8601 date or date-time, or a Date). */
  since: string | Date;
  /** Rows per call, 1-1000 (default 1000). */
  limit?: number;
  /**
   * Keep polling for new rows every `follow` milliseconds instead of ending when none are left; the
   * iteration then ends only when `signal` aborts (or the loop breaks).
   */
  follow?: number;
}

export interface RunAuditOptions extends WaitOptions {
  /** Sent as the Idempotency-Key (default: a random one), so a retried start never starts twice. */
  idempotencyKey?: string;
  /**
   * Called with the start's answer before waiting: keep `audit_id` to resume with `waitForAudit`
   * after a timeout, and `webhook_secret` (with `webhook_url`) to verify the audit's delivery.
   */
  onStart?: (start: AuditStart) => void;
}

/** Waiting for an audit took longer than `timeoutMs`; the audit itself goes on (`waitForAudit` again). */
export class AuditTimeoutError extends Error {
  override readonly name = 'AuditTimeoutError';
  readonly auditId: string;
  readonly timeoutMs: number;
  constructor(auditId: string, timeoutMs: number) {
    super(`audit ${auditId} was still processing after ${timeoutMs} ms`);
    this.auditId = auditId;
    this.timeoutMs = timeoutMs;
  }
}

/**
 * A score-log call came back full, so rows between the cursor and the oldest row returned may exist
 * that the export cannot return (it answers the newest rows and has no cursor): call more often, or
 * start from a later `since`. Nothing of the full page was yielded.
 */
export class ScoreLogGapError extends Error {
  override readonly name = 'ScoreLogGapError';
  readonly since: string;
  readonly oldestReturned: string;
  readonly limit: number;
  constructor(since: string, oldestReturned: string, limit: number) {
    super(
      `the score-log export returned its maximum of ${limit} rows since ${since} (oldest ${oldestReturned}); older rows since then cannot be read`,
    );
    this.since = since;
    this.oldestReturned = oldestReturned;
    this.limit = limit;
  }
}

/**
 * The answers this client parses: JSON and problem+json. The exports and the TACSI history can also
 * answer text/csv (Accept: text/csv), which is for spreadsheets; without this filter their typed
 * data would be "the JSON body or a string".
 */
type JsonMedia = `${string}/${string}json`;

/** The typed openapi-fetch client (`GET`, `POST`, ... on every path) plus the SDK's helpers. */
export interface BrandHealthClient extends Client<paths, JsonMedia> {
  /** Every campaign matching the filters, newest first, following offset pages. */
  campaigns(
    filters?: Omit<Query<'/v1/campaigns', 'get'>, 'limit' | 'offset'> & { pageSize?: number },
    options?: PageOptions,
  ): AsyncGenerator<Campaign>;
  /**
   * Every audit of a workspace matching the filters (summaries, not results), newest first,
   * following offset pages; an audit started meanwhile shifts the pages but is not yielded twice.
   */
  audits(
    filters?: Omit<Query<'/v1/audits', 'get'>, 'limit' | 'offset'> & { pageSize?: number },
    options?: PageOptions,
  ): AsyncGenerator<AuditSummary>;
  /** Every weekly TACSI row of a sector, newest first, following the `before` cursor. */
  tacsiHistory(
    query: Query<'/v1/tacsi/history', 'get'>,
    options?: PageOptions,
  ): AsyncGenerator<TacsiHistoryRow>;
  /**
   * The score-log rows recorded at or after `since`, oldest first, each once: calls the export with
   * `since` set to the newest row seen until nothing new is left (or forever with `follow`).
   */
  scoreLog(options: ScoreLogOptions): AsyncGenerator<ScoreLogRow>;
  /** Starts an audit (`POST /v1/audit/run`, with an Idempotency-Key) and waits for its result. */
  runAudit(body?: AuditRunBody, options?: RunAuditOptions): Promise<AuditResult>;
  /** Polls `GET /v1/audit/{audit_id}` honouring Retry-After until the audit is completed or failed. */
  waitForAudit(auditId: string, options?: WaitOptions): Promise<AuditResult>;
}

/** Every POST carries an Idempotency-Key (the caller's, or a random one), so retrying it is safe. */
const idempotencyKeys: Middleware = {
  onRequest({ request }) {
    if (request.method === 'POST' && !request.headers.has('idempotency-key')) {
      request.headers.set('Idempotency-Key', crypto.randomUUID());
    }
  },
};

export function createBrandHealthClient(options: BrandHealthOptions): BrandHealthClient {
  const baseFetch = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const retry = options.retry === false ? { retries: 0 } : (options.retry ?? {});
  const api = createFetchClient<paths, JsonMedia>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers: {
      ...options.headers,
      ...(options.apiKey !== undefined ? { Authorization: `Bearer ${options.apiKey}` } : {}),
    },
    fetch: retryingFetch(baseFetch, retry),
  });
  if (options.idempotencyKeys !== false) api.use(idempotencyKeys);
  const { requestHeaders } = options;
  if (requestHeaders) {
    api.use({
      onRequest({ request }) {
        for (const [name, value] of Object.entries(requestHeaders(request.method))) {
          request.headers.set(name, value);
        }
      },
    });
  }
  // Polling an audit answers 425 until it is done: the poll loop waits on those itself (up to its
  // timeout), so its requests retry only 429 and 503.
  const pollFetch = retryingFetch(baseFetch, {
    ...retry,
    statuses: (retry.statuses ?? DEFAULT_RETRY.statuses).filter((s) => s !== 425),
  });

  async function* campaigns(
    filters: Omit<Query<'/v1/campaigns', 'get'>, 'limit' | 'offset'> & { pageSize?: number } = {},
    { signal }: PageOptions = {},
  ): AsyncGenerator<Campaign> {
    const { pageSize = 100, ...query } = filters;
    for (let offset = 0; ;) {
      const page = unwrap(
        await api.GET('/v1/campaigns', { params: { query: { ...query, limit: pageSize, offset } }, signal }),
      );
      yield* page.campaigns;
      offset += page.campaigns.length;
      // Offset pages over a list that can grow: stop at the total, or at an empty page.
      if (page.campaigns.length === 0 || offset >= page.total) return;
    }
  }

  async function* audits(
    filters: Omit<Query<'/v1/audits', 'get'>, 'limit' | 'offset'> & { pageSize?: number } = {},
    { signal }: PageOptions = {},
  ): AsyncGenerator<AuditSummary> {
    const { pageSize = 100, ...query } = filters;
    const seen = new Set<string>();
    for (let offset = 0; ;) {
      const page = unwrap(
        await api.GET('/v1/audits', { params: { query: { ...query, limit: pageSize, offset } }, signal }),
      );
      for (const audit of page.audits) {
        // A new audit moves every older one an offset down: the next page repeats one already given.
        if (seen.has(audit.audit_id)) continue;
        seen.add(audit.audit_id);
        yield audit;
      }
      offset += page.audits.length;
      if (page.audits.length === 0 || offset >= page.total) return;
    }
  }

  async function* tacsiHistory(
    query: Query<'/v1/tacsi/history', 'get'>,
    { signal }: PageOptions = {},
  ): AsyncGenerator<TacsiHistoryRow> {
    let before = query.before;
    for (;;) {
      const page = unwrap(
        await api.GET('/v1/tacsi/history', {
          params: { query: { ...query, ...(before ? { before } : {}) } },
          signal,
        }),
      );
      yield* page.rows;
      if (!page.hasMore || !page.nextBefore) return;
      before = page.nextBefore;
    }
  }

  async function* scoreLog({
    since,
    limit = 1000,
    follow,
    signal,
  }: ScoreLogOptions): AsyncGenerator<ScoreLogRow> {
    let cursor = since instanceof Date ? since.toISOString() : since;
    // Rows recorded exactly at the cursor were yielded already: the export's `since` is inclusive.
    let seenAtCursor = new Set<string>();
    const identity = (r: ScoreLogRow) => `${r.workspaceId}\u0000${r.platform}\u0000${r.recordedAt}`;
    for (;;) {
      const page = unwrap(
        await api.GET('/v1/export/scores', { params: { query: { since: cursor, limit } }, signal }),
      );
      const rows = page.scores;
      if (rows.length >= limit) throw new ScoreLogGapError(cursor, rows.at(-1)!.recordedAt, limit);
      const fresh = rows.filter((r) => !seenAtCursor.has(identity(r))).reverse();
      if (fresh.length > 0) {
        yield* fresh;
        cursor = fresh.at(-1)!.recordedAt;
        seenAtCursor = new Set(rows.filter((r) => r.recordedAt === cursor).map(identity));
        continue;
      }
      if (follow === undefined) return;
      await sleep(follow, signal);
    }
  }

  async function waitForAudit(auditId: string, options: WaitOptions = {}): Promise<AuditResult> {
    const { timeoutMs = 10 * 60_000, pollIntervalMs = 2_000 } = options;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    try {
      for (;;) {
        const result = await api.GET('/v1/audit/{audit_id}', {
          params: { path: { audit_id: auditId } },
          signal,
          fetch: pollFetch,
        });
        if (result.response.status !== 425) return unwrap(result);
        // 425 Too Early: still processing; Retry-After counts down to the estimate.
        const asked = retryAfterMs(result.response.headers.get('retry-after'), Date.now());
        await sleep(asked ?? pollIntervalMs, signal);
      }
    } catch (error) {
      if (timeout.aborted && !options.signal?.aborted) throw new AuditTimeoutError(auditId, timeoutMs);
      throw error;
    }
  }

  async function runAudit(body: AuditRunBody = {}, options: RunAuditOptions = {}): Promise<AuditResult> {
    const started = unwrap(
      await api.POST('/v1/audit/run', {
        body,
        signal: options.signal,
        headers: options.idempotencyKey ? { 'Idempotency-Key': options.idempotencyKey } : {},
      }),
    );
    options.onStart?.(started);
    return waitForAudit(started.audit_id, options);
  }

  return Object.assign(api, { campaigns, audits, tacsiHistory, scoreLog, runAudit, waitForAudit });
}

export { ProblemError };
