import { createRequire } from 'node:module';

/** One request of a rotation: its path (with query) and Authorization header ('' for none). */
export interface RotatedRequest {
  path: string;
  authorization: string;
}

export interface LoadResult {
  /** Mean requests per second over the run (every response counted). */
  rps: number;
  total: number;
  /** Latency of 2xx responses, ms (autocannon's histogram has 1 ms resolution). */
  p50: number;
  p99: number;
  /** Connection errors, timeouts and non-2xx answers. */
  errors: number;
  statusCodes: Record<string, number>;
}

interface AutocannonRequest {
  path?: string;
  headers?: Record<string, string>;
  setupRequest?: (request: AutocannonRequest) => AutocannonRequest;
}

interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  errors: number;
  timeouts: number;
  non2xx: number;
  statusCodeStats: Record<string, { count: number }>;
}

type Autocannon = (options: {
  url: string;
  connections: number;
  duration: number;
  amount?: number;
  requests: AutocannonRequest[];
  timeout?: number;
}) => Promise<AutocannonResult>;

// autocannon is CommonJS without type declarations; only the few fields above are used.
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

/**
 * Drives `baseUrl` with `connections` keep-alive connections for `seconds`, each request taking the
 * next (path, key) pair of the rotation, so tenants and keys change on every request. With `amount`,
 * exactly that many requests instead (at least `connections`; `seconds` is then ignored).
 */
export async function drive(
  baseUrl: string,
  rotation: readonly RotatedRequest[],
  options: { connections: number; seconds: number; amount?: number },
): Promise<LoadResult> {
  let next = 0;
  const result = await autocannon({
    url: baseUrl,
    connections: options.connections,
    duration: options.seconds,
    ...(options.amount !== undefined ? { amount: options.amount } : {}),
    // Above the queueing delay of the slowest scenario (export on PGlite), below the service's 30 s request timeout.
    timeout: 25,
    requests: [
      {
        setupRequest(request) {
          const pick = rotation[next++ % rotation.length]!;
          request.path = pick.path;
          request.headers = pick.authorization
            ? { ...request.headers, authorization: pick.authorization }
            : request.headers;
          return request;
        },
      },
    ],
  });
  const statusCodes: Record<string, number> = {};
  for (const [code, { count }] of Object.entries(result.statusCodeStats ?? {})) statusCodes[code] = count;
  return {
    rps: Math.round(result.requests.average),
    total: result.requests.total,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts + result.non2xx,
    statusCodes,
  };
}
