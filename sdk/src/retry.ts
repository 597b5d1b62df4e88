import { retryAfterMs } from './problem.ts';

export interface RetryOptions {
  /** Retries after the first attempt (default 3). */
  retries?: number;
  /** Statuses retried (default 429 Rate Limited, 425 Too Early, 503 Service Unavailable). */
  statuses?: readonly number[];
  /**
   * The longest single wait (default 60 s). An answer asking for longer (a Retry-After of an hour) is
   * returned to the caller at once rather than slept on.
   */
  maxWaitMs?: number;
  /** First wait when an answer has no Retry-After, doubling per retry (default 1 s; with jitter). */
  baseDelayMs?: number;
}

export const DEFAULT_RETRY: Required<RetryOptions> = {
  retries: 3,
  statuses: [429, 425, 503],
  maxWaitMs: 60_000,
  baseDelayMs: 1_000,
};

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal | null): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** How long to wait before retry number `retry` (1-based), or null to give the answer back. */
export function retryDelay(
  response: Response,
  retry: number,
  options: Required<RetryOptions>,
): number | null {
  const asked = retryAfterMs(response.headers.get('retry-after'), Date.now());
  if (asked !== null) return asked <= options.maxWaitMs ? asked : null;
  const backoff = options.baseDelayMs * 2 ** (retry - 1);
  return Math.min(options.maxWaitMs, backoff / 2 + Math.random() * (backoff / 2));
}

/**
 * A fetch that retries the given statuses, honouring Retry-After. Every attempt sends a clone of the
 * original request, so a POST retries with the same body and the same Idempotency-Key (the service
 * replays the first answer instead of acting twice). Waits end early when the request's signal aborts.
 */
export function retryingFetch(
  fetchImpl: (request: Request) => Promise<Response>,
  given: RetryOptions = {},
): (request: Request) => Promise<Response> {
  const options = { ...DEFAULT_RETRY, ...given };
  return async (request) => {
    for (let retry = 1; ; retry++) {
      const response = await fetchImpl(request.clone());
      if (retry > options.retries || !options.statuses.includes(response.status)) return response;
      const wait = retryDelay(response, retry, options);
      if (wait === null) return response;
      // Free the connection of the answer we discard.
      await response.body?.cancel().catch(() => {});
      await sleep(wait, request.signal);
    }
  };
}
