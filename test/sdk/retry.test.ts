import { describe, expect, it } from 'vitest';
import { createBrandHealthClient, ProblemError, unwrap } from '../../sdk/src/index.ts';

// The SDK's retry policy on its own: a scripted transport answers each attempt, so the exact
// statuses and Retry-After values a live service gives only under load (503) are reproducible.
// client.test.ts covers the same code against the live service (425 with Retry-After).

interface Attempt {
  method: string;
  idempotencyKey: string | null;
  body: string;
  at: number;
  wall: number;
}

function scripted(...answers: Array<{ status: number; headers?: Record<string, string>; body?: unknown }>) {
  const attempts: Attempt[] = [];
  const fetch = async (request: Request) => {
    attempts.push({
      method: request.method,
      idempotencyKey: request.headers.get('idempotency-key'),
      body: await request.text(),
      at: performance.now(),
      wall: Date.now(),
    });
    const answer = answers[Math.min(attempts.length - 1, answers.length - 1)]!;
    const problem = answer.status >= 400;
    return new Response(
      JSON.stringify(answer.body ?? { type: '/problems/x', title: 'X', status: answer.status, detail: 'x' }),
      {
        status: answer.status,
        headers: {
          'content-type': problem ? 'application/problem+json' : 'application/json',
          ...answer.headers,
        },
      },
    );
  };
  return { attempts, fetch };
}

const BODY = { name: 'Launch', start_date: '2031-03-02', duration_weeks: 4 };
const CAMPAIGN = { id: 'cmp_1' };

describe('retries', () => {
  it('retries a POST answered 503 with the same body and the same Idempotency-Key', async () => {
    const t = scripted(
      { status: 503, headers: { 'retry-after': '0' } },
      { status: 429, headers: { 'retry-after': '0' } },
      { status: 200, body: CAMPAIGN },
    );
    const bh = createBrandHealthClient({ apiKey: 'k', baseUrl: 'http://sdk.invalid', fetch: t.fetch });
    expect(unwrap(await bh.POST('/v1/campaigns', { body: BODY }))).toEqual(CAMPAIGN);
    expect(t.attempts).toHaveLength(3);
    expect(new Set(t.attempts.map((a) => a.idempotencyKey)).size).toBe(1);
    expect(t.attempts[0]!.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    for (const a of t.attempts) expect(JSON.parse(a.body)).toEqual(BODY);
  });

  it('waits the Retry-After of an HTTP-date', async () => {
    const when = new Date(Date.now() + 1_500).toUTCString(); // whole seconds: 0.5-1.5 s from now
    const t = scripted({ status: 429, headers: { 'retry-after': when } }, { status: 200, body: {} });
    const bh = createBrandHealthClient({ apiKey: 'k', baseUrl: 'http://sdk.invalid', fetch: t.fetch });
    await bh.GET('/v1/workspace');
    expect(t.attempts).toHaveLength(2);
    expect(t.attempts[1]!.wall).toBeGreaterThanOrEqual(Date.parse(when) - 20);
  });

  it('backs off within maxWaitMs when there is no Retry-After, and stops after `retries`', async () => {
    const t = scripted({ status: 503 });
    const bh = createBrandHealthClient({
      apiKey: 'k',
      baseUrl: 'http://sdk.invalid',
      fetch: t.fetch,
      retry: { retries: 2, baseDelayMs: 40, maxWaitMs: 60 },
    });
    const result = await bh.GET('/v1/workspace');
    expect(result.response.status).toBe(503);
    expect(t.attempts).toHaveLength(3);
    const gaps = [t.attempts[1]!.at - t.attempts[0]!.at, t.attempts[2]!.at - t.attempts[1]!.at];
    expect(gaps[0]).toBeGreaterThanOrEqual(20 - 5);
    expect(gaps[1]).toBeGreaterThanOrEqual(40 - 5); // 80 ms of back-off capped at 60 (jitter: 40-60)
  });

  it('never retries other statuses, nor anything with retry: false', async () => {
    for (const [status, retry] of [
      [500, undefined],
      [409, undefined],
      [503, false],
    ] as const) {
      const t = scripted({ status, headers: { 'retry-after': '0' } });
      const bh = createBrandHealthClient({
        apiKey: 'k',
        baseUrl: 'http://sdk.invalid',
        fetch: t.fetch,
        retry,
      });
      const result = await bh.GET('/v1/workspace');
      expect(result.response.status).toBe(status);
      expect(t.attempts).toHaveLength(1);
    }
  });

  it('stops waiting when the request is aborted', async () => {
    const t = scripted({ status: 503, headers: { 'retry-after': '30' } });
    const bh = createBrandHealthClient({ apiKey: 'k', baseUrl: 'http://sdk.invalid', fetch: t.fetch });
    // Waiting out the 30 s Retry-After would outlast the test's own timeout.
    await expect(bh.GET('/v1/workspace', { signal: AbortSignal.timeout(100) })).rejects.toThrow();
    expect(t.attempts).toHaveLength(1);
  });

  it('turns a body that is not a problem (a proxy page) into a ProblemError of its status', async () => {
    const fetch = async () =>
      new Response('<html>Bad gateway</html>', { status: 502, statusText: 'Bad Gateway' });
    const bh = createBrandHealthClient({ apiKey: 'k', baseUrl: 'http://sdk.invalid', fetch });
    const result = await bh.GET('/v1/workspace');
    const e = ProblemError.from(result.error, result.response);
    expect(e).toMatchObject({
      status: 502,
      title: 'Bad Gateway',
      type: 'about:blank',
      detail: '<html>Bad gateway</html>',
    });
  });
});
