import type { FastifyInstance } from 'fastify';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConfigError } from '../config.ts';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

type RequestLabels = { method: string; route: string; status: string };

/** One (method, route, status) series: its request count and latency histogram, in plain numbers. */
interface Series {
  labels: RequestLabels;
  /** Requests not yet added to the prom-client counter. */
  pending: number;
  /** Per bucket (not cumulative), as prom-client keeps them; values above the last bound only count. */
  buckets: number[];
  sum: number;
  count: number;
}

/** One exported value, shaped as prom-client's own (`setValuePair` in its histogram.js). */
function entry(
  labels: object,
  sharedLabels: RequestLabels,
  value: number,
  metricName: string,
  exemplar: null | undefined,
) {
  return { labels, sharedLabels, value, metricName, exemplar };
}

/** What prom-client's registry reads from a histogram (`getForPromString`, not in its typings). */
interface PromStringSource {
  getForPromString(): Promise<{ values: object[] }>;
}

/**
 * Request counts and latencies recorded per request with a Map lookup and a few additions, instead
 * of prom-client's per-call label validation and hashing (twice per request: a profiled share of
 * every route). The prom-client metrics stay the ones registered and exposed: the counter is
 * brought up to date by its `collect` on each scrape, and the histogram's export appends these
 * series in prom-client's own format (test/unit/request-metrics.test.ts compares the text).
 */
export class RequestMetrics {
  readonly #series = new Map<string, Series>();
  readonly #bounds: readonly number[];

  constructor(bounds: readonly number[]) {
    this.#bounds = bounds;
  }

  record(method: string, route: string, status: number, seconds: number): void {
    const key = `${method} ${status} ${route}`;
    let series = this.#series.get(key);
    if (series === undefined) {
      series = {
        labels: { method, route, status: String(status) },
        pending: 0,
        buckets: this.#bounds.map(() => 0),
        sum: 0,
        count: 0,
      };
      this.#series.set(key, series);
    }
    series.pending += 1;
    series.count += 1;
    series.sum += seconds;
    const bounds = this.#bounds;
    for (let i = 0; i < bounds.length; i++) {
      if (seconds <= bounds[i]!) {
        series.buckets[i]! += 1;
        break;
      }
    }
  }

  /** Adds the requests counted since the last call to `counter`. */
  flushCounts(counter: Counter<keyof RequestLabels>): void {
    for (const series of this.#series.values()) {
      if (series.pending === 0) continue;
      counter.inc(series.labels, series.pending);
      series.pending = 0;
    }
  }

  /** The histogram's exported values for these series, as prom-client builds them. */
  histogramValues(name: string): object[] {
    const values: object[] = [];
    for (const { labels, buckets, sum, count } of this.#series.values()) {
      let cumulative = 0;
      this.#bounds.forEach((bound, i) => {
        cumulative += buckets[i]!;
        values.push(entry({ le: bound }, labels, cumulative, `${name}_bucket`, null));
      });
      values.push(
        entry({ le: '+Inf' }, labels, count, `${name}_bucket`, null),
        entry({}, labels, sum, `${name}_sum`, undefined),
        entry({}, labels, count, `${name}_count`, undefined),
      );
    }
    return values;
  }
}

/** Prometheus metrics: request counts and latency by route template and status. */
export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const recorder = new RequestMetrics(LATENCY_BUCKETS);
  const requests: Counter<keyof RequestLabels> = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests by method, route template and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
    collect() {
      recorder.flushCounts(requests);
    },
  });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency by method, route template and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  // Observations made through prom-client's own API still count; the recorder's series follow.
  const source = duration as unknown as PromStringSource;
  const ownValues = source.getForPromString.bind(duration);
  source.getForPromString = async () => {
    const data = await ownValues();
    data.values.push(...recorder.histogramValues('http_request_duration_seconds'));
    return data;
  };
  return { registry, requests, duration, recorder };
}

export type Metrics = ReturnType<typeof createMetrics>;

export async function metricsPlugin(app: FastifyInstance, metrics: Metrics): Promise<void> {
  // A callback hook (no promise per request).
  app.addHook('onResponse', (request, reply, done) => {
    // The route template, never the raw URL: ids in paths would explode the label set.
    metrics.recorder.record(
      request.method,
      request.routeOptions.url ?? 'unmatched',
      reply.statusCode,
      reply.elapsedTime / 1000,
    );
    done();
  });
}

export interface MetricsListener {
  /** http://host:port of the listener. */
  url: string;
  close(): Promise<void>;
}

/**
 * `GET /metrics` on its own listener, never on the API port: per-route traffic (TACSI feeds,
 * exports) is operational data for the operator's scraper, not for API callers. Binds loopback
 * unless METRICS_HOST opens it; anything but GET /metrics is 404.
 */
export async function listenMetrics(metrics: Metrics, port: number, host: string): Promise<MetricsListener> {
  const server = http.createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    if ((request.method === 'GET' || request.method === 'HEAD') && path === '/metrics') {
      metrics.registry.metrics().then(
        (text) => response.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text),
        () => response.writeHead(500).end(),
      );
      return;
    }
    response.writeHead(404, { 'content-type': 'text/plain' }).end('not found: GET /metrics\n');
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'EADDRINUSE' || error.code === 'EACCES' || error.code === 'EADDRNOTAVAIL'
          ? new ConfigError(
              `METRICS_PORT ${port} on METRICS_HOST ${host} cannot be used (${error.code}): ` +
                'choose another port, 0 for any free one, or METRICS_PORT=off',
            )
          : error,
      ),
    );
    server.listen(port, host, () => {
      server.removeAllListeners('error');
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${shown}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
