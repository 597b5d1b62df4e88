import { listenMetrics } from '../../src/infra/observability/metrics.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, startTestService, workspaceWithKey, type TestService } from '../helpers/service.ts';

let t: TestService;
let agencyKey: string;
beforeAll(async () => {
  t = await startTestService({ metricsPort: 0 });
  ({ key: agencyKey } = await workspaceWithKey(t.db, { plan: 'agency', accountType: 'agency' }));
});
afterAll(async () => t?.close());

describe('errors are RFC 9457 problem+json', () => {
  it('unknown routes are 404 problem+json, with the request id', async () => {
    const res = await t.request({
      method: 'GET',
      url: '/v2/anything',
      headers: { 'x-request-id': 'trace-123' },
    });
    const body = expectProblem(res, 404, 'Not Found');
    expect(body.request_id).toBe('trace-123');
    expect(body.type).toBe('/problems/not-found');
    expect(body.instance).toBe('/v2/anything');
  });

  it('a hostile request id is replaced by a generated one', async () => {
    const res = await t.request({
      method: 'GET',
      url: '/healthz',
      headers: { 'x-request-id': 'x'.repeat(500) },
    });
    expect(res.headers['x-request-id']).toMatch(/^req_/);
  });

  it('unknown query parameters are named in a 400', async () => {
    const body = expectProblem(
      await t.request({ method: 'GET', url: '/v1/platforms?include=all', key: agencyKey }),
      400,
    );
    expect(body.errors).toEqual([{ parameter: 'include', message: expect.any(String) }]);
    expect(body.detail).toContain('include');
  });

  it('malformed JSON, wrong content types and oversized bodies are 400, 415 and 413', async () => {
    const json = { 'content-type': 'application/json' };
    expectProblem(
      await t.request({
        method: 'POST',
        url: '/v1/webhooks',
        key: agencyKey,
        headers: json,
        payload: '{"url":',
      }),
      400,
      'Malformed JSON',
    );
    expectProblem(
      await t.request({
        method: 'POST',
        url: '/v1/webhooks',
        key: agencyKey,
        headers: { 'content-type': 'text/plain' },
        payload: 'hi',
      }),
      415,
      'Unsupported Media Type',
    );
    const huge = JSON.stringify({
      url: 'https://example.com/' + 'a'.repeat(2 * 1024 * 1024),
      events: ['audit.completed'],
    });
    expectProblem(
      await t.request({ method: 'POST', url: '/v1/webhooks', key: agencyKey, headers: json, payload: huge }),
      413,
      'Content Too Large',
    );
  });

  it('no stack trace or SQL reaches a client', async () => {
    const res = await t.request({
      method: 'GET',
      url: '/v1/platforms?workspace_id=%27%3B%20DROP%20TABLE%20x',
      key: agencyKey,
    });
    const body = expectProblem(res, 404);
    expect(JSON.stringify(body)).not.toMatch(/at .*\.ts:\d+|SELECT|syntax error/i);
  });

  it('serves health, readiness, metrics and the OpenAPI document', async () => {
    expect((await t.request({ method: 'GET', url: '/healthz' })).json()).toEqual({ status: 'ok' });
    expect((await t.request({ method: 'GET', url: '/readyz' })).json()).toMatchObject({
      status: 'ok',
      migrations: 'applied',
    });
    // Metrics are not on the API port: per-route traffic is for the operator's scraper only.
    expectProblem(await t.request({ method: 'GET', url: '/metrics' }), 404, 'Not Found');
    const listener = await t.service.listenMetrics();
    expect(listener!.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const metrics = await fetch(`${listener!.url}/metrics`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toContain('http_requests_total{method="GET",route="/readyz",status="200"}');
    expect((await fetch(`${listener!.url}/v1/workspace`)).status).toBe(404);
    // A taken port is a configuration problem, said in one line.
    const port = Number(new URL(listener!.url).port);
    await expect(listenMetrics(t.ctx.metrics, port, '127.0.0.1')).rejects.toThrow(
      `METRICS_PORT ${port} on METRICS_HOST 127.0.0.1 cannot be used (EADDRINUSE)`,
    );
    const doc = (await t.request({ method: 'GET', url: '/openapi.json' })).json();
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.paths['/v1/workspace'].get.responses['401']).toBeDefined();
    expect(doc.components.schemas.Problem).toBeDefined();
    const docs = await t.request({ method: 'GET', url: '/docs' });
    expect([200, 302]).toContain(docs.statusCode);
  });
});
