import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/infra/observability/metrics.ts';

// The service records request metrics without prom-client's per-call label hashing; what a scrape
// shows must be exactly what prom-client's own Counter and Histogram show for the same requests.
const LABELS = ['method', 'route', 'status'] as const;
const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

function reference() {
  const registry = new Registry();
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests by method, route template and status',
    labelNames: LABELS,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency by method, route template and status',
    labelNames: LABELS,
    buckets: BUCKETS,
    registers: [registry],
  });
  return {
    registry,
    record(method: string, route: string, status: number, seconds: number) {
      const labels = { method, route, status: String(status) };
      requests.inc(labels);
      duration.observe(labels, seconds);
    },
  };
}

const REQUESTS: Array<[string, string, number, number]> = [
  ['GET', '/v1/score', 200, 0.0004],
  ['GET', '/v1/score', 200, 0.001], // on a bound: counted in that bucket (le)
  ['GET', '/v1/score', 404, 0.0123],
  ['POST', '/v1/audit/run', 202, 0.3],
  ['GET', 'unmatched', 404, 7.5], // above the last bound: only +Inf, sum and count
  ['GET', '/v1/tacsi/history', 200, 0.02],
  ['GET', '/v1/score', 200, 0.049],
];

async function text(registry: Registry): Promise<string> {
  return [
    await registry.getSingleMetricAsString('http_requests_total'),
    await registry.getSingleMetricAsString('http_request_duration_seconds'),
  ].join('\n');
}

describe('request metrics', () => {
  it('expose the same text as prom-client for the same requests, scrape after scrape', async () => {
    const service = createMetrics();
    const ref = reference();
    for (const r of REQUESTS.slice(0, 4)) {
      service.recorder.record(...r);
      ref.record(...r);
    }
    expect(await text(service.registry)).toBe(await text(ref.registry));
    // Counts keep adding up across scrapes (nothing counted twice, nothing lost).
    for (const r of REQUESTS) {
      service.recorder.record(...r);
      ref.record(...r);
    }
    const scraped = await text(service.registry);
    expect(scraped).toBe(await text(ref.registry));
    expect(scraped).toContain('http_requests_total{method="GET",route="/v1/score",status="200"} 5');
    expect(await text(service.registry)).toBe(scraped);
    // The JSON form (registry.getMetricsAsJSON) agrees too.
    const json = async (registry: Registry) =>
      (await registry.getMetricsAsJSON()).filter((m) => m.name.startsWith('http_'));
    expect(await json(service.registry)).toEqual(await json(ref.registry));
  });
});
