import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedInPerson } from '../helpers/people.ts';
import { startTestService, workspaceWithKey, type TestService } from '../helpers/service.ts';
import {
  expectProblemJson,
  http,
  listenOnLoopback,
  problemOf,
  rawExchange,
  type HttpResult,
} from './support.ts';

// Hostile and broken clients over real sockets. Every answer is a 4xx problem+json (Node's own
// 408/431 too, through the clientErrorHandler), never a 5xx, and the server keeps
// serving. The slow-client timeouts are shortened through their env vars (defaults: 30 s).
const CONNECTION_TIMEOUT_MS = 1500;
const REQUEST_TIMEOUT_MS = 2000;

let t: TestService;
let origin: string;
let key: string;
/** The workspace owner's session cookie: the people-only routes (the audit log) answer a key 403 first. */
let ownerCookie: string;
beforeAll(async () => {
  t = await startTestService(
    {},
    {
      AUTH_CACHE_TTL_MS: '5000',
      CONNECTION_TIMEOUT_MS: String(CONNECTION_TIMEOUT_MS),
      REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
    },
  );
  const created = await workspaceWithKey(
    t.db,
    { plan: 'enterprise', accountType: 'agency' },
    { platforms: [{ platform: 'instagram' }] },
  );
  key = created.key;
  const owner = await signedInPerson(t, { workspaceId: created.workspace.id, role: 'owner' });
  ownerCookie = `bh_session=${owner.cookie}`;
  origin = await listenOnLoopback(t.app);
});
afterAll(async () => t?.close());

const post = (path: string, body: string | Buffer, contentType = 'application/json') =>
  http(origin, 'POST', path, { key, body: body as string, headers: { 'content-type': contentType } });

async function expectAlive() {
  const res = await http(origin, 'GET', '/v1/workspace', { key });
  expect(res.status).toBe(200);
}

function expectProblem(res: HttpResult, status: number | number[], title?: string) {
  const statuses = Array.isArray(status) ? status : [status];
  expect(statuses, `${res.status} ${res.text.slice(0, 300)}`).toContain(res.status);
  expectProblemJson(problemOf(res), res.status, title);
}

describe('request bodies', () => {
  it('answers 413 to bodies over the 1 MiB limit, declared, chunked or lying about their length', async () => {
    const huge = JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024), start_date: '2099-01-01' });
    expectProblem(await post('/v1/campaigns', huge), 413, 'Content Too Large');

    // Chunked (no Content-Length): the limit is enforced while reading.
    const chunked = new ReadableStream<Uint8Array>({
      start(controller) {
        const piece = new TextEncoder().encode('x'.repeat(64 * 1024));
        controller.enqueue(new TextEncoder().encode('{"name":"'));
        for (let i = 0; i < 40; i++) controller.enqueue(piece);
        controller.enqueue(new TextEncoder().encode('"}'));
        controller.close();
      },
    });
    const res = await fetch(`${origin}/v1/campaigns`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: chunked,
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(413);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);

    // A declared length of 50 MB with a few bytes sent: refused from the header, without waiting.
    const lying = await rawExchange(
      origin,
      [
        `POST /v1/campaigns HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n` +
          'Content-Type: application/json\r\nContent-Length: 52428800\r\n\r\n{"name":',
      ],
      { deadlineMs: 10_000 },
    );
    expect(lying.status).toBe(413);
    expect(lying.ms).toBeLessThan(REQUEST_TIMEOUT_MS);
    await expectAlive();
  });

  it('answers 400 to malformed JSON and prototype poisoning', async () => {
    for (const body of ['{"name":', '{name: "x"}', '[1,2', '{"a":1}}', '\u0000', 'nul', '{"name":"\ud800"']) {
      expectProblem(await post('/v1/campaigns', body), 400);
    }
    expectProblem(await post('/v1/campaigns', Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d])), 400);
    expectProblem(await post('/v1/campaigns', '{"__proto__":{"admin":true},"name":"x"}'), 400);
    expectProblem(await post('/v1/campaigns', '{"constructor":{"prototype":{"admin":true}}}'), 400);
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
    await expectAlive();
  });

  it('answers 400 or 413 to JSON nested 10,000 and 100,000 levels deep, never a 500', async () => {
    for (const depth of [10_000, 100_000]) {
      const arrays = '['.repeat(depth) + ']'.repeat(depth);
      const objects = '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
      const inField = `{"name":"x","start_date":"2099-01-01","phases":${arrays}}`;
      const poisoned = '{"a":'.repeat(depth) + '{"__proto__":{}}' + '}'.repeat(depth);
      for (const body of [arrays, objects, inField, poisoned]) {
        for (const path of ['/v1/campaigns', '/v1/audit/run', '/v1/webhooks', '/v1/studio/score']) {
          const res = await post(path, body);
          expectProblem(res, [400, 413, 422]);
        }
      }
    }
    await expectAlive();
  });

  it('answers 415 to bodies that are not JSON', async () => {
    for (const type of [
      'text/plain',
      'application/xml',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/octet-stream',
      'application/jsonp',
      'image/png',
    ]) {
      expectProblem(await post('/v1/campaigns', '{"name":"x","start_date":"2099-01-01"}', type), 415);
    }
    await expectAlive();
  });
});

describe('headers and query strings', () => {
  it('answers 431 to 1,000 headers or a 100 KB header and keeps serving', async () => {
    const many = Array.from({ length: 1000 }, (_, i) => `X-Flood-${i}: ${'v'.repeat(16)}\r\n`).join('');
    const flood = await rawExchange(origin, [`GET /v1/workspace HTTP/1.1\r\nHost: x\r\n${many}\r\n`], {
      deadlineMs: 10_000,
    });
    expect([400, 431]).toContain(flood.status);
    const big = await rawExchange(
      origin,
      [`GET /v1/workspace HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(100 * 1024)}\r\n\r\n`],
      { deadlineMs: 10_000 },
    );
    expect(big.status).toBe(431);
    expect(big.response).toMatch(/content-type: application\/problem\+json/i);
    // The same flood through fetch: the client sees the refusal, nothing hangs.
    const headers = Object.fromEntries(
      Array.from({ length: 1000 }, (_, i) => [`x-flood-${i}`, 'v'.repeat(16)]),
    );
    const res = await http(origin, 'GET', '/v1/workspace', { key, headers });
    expect([400, 431]).toContain(res.status);
    await expectAlive();
  });

  it('answers thousands of query parameters with a 4xx, quickly', async () => {
    // Just under Node's 16 KB header limit each.
    const distinct = Array.from({ length: 1500 }, (_, i) => `p${i}=1`).join('&');
    const repeated = Array.from({ length: 800 }, () => 'workspace_id=x').join('&');
    const nested = Array.from({ length: 1000 }, (_, i) => `a[${i}]=1`).join('&');
    for (const query of [distinct, repeated, nested]) {
      for (const path of ['/v1/platforms', '/v1/score/history', '/v1/campaigns', '/v1/tacsi/weekly']) {
        const res = await http(origin, 'GET', `${path}?${query}`, { key });
        expectProblem(res, [400, 403, 404]);
        expect(res.ms).toBeLessThan(5_000);
      }
    }
    // Past the 16 KB header limit (the request line counts): Node refuses it before routing.
    const tooLong = Array.from({ length: 5000 }, (_, i) => `p${i}=${i}`).join('&');
    const res = await http(origin, 'GET', `/v1/platforms?${tooLong}`, { key });
    expect([400, 414, 431]).toContain(res.status);
    await expectAlive();
  });
});

describe('URLs', () => {
  it('answers broken percent-encoding, over-long path parameters and NUL characters with problem+json', async () => {
    expectProblem(await http(origin, 'GET', '/v1/audit/%E0%A4%A', { key }), 400);
    expectProblem(await http(origin, 'GET', `/v1/audit/${'a'.repeat(300)}`, { key }), 414, 'URI Too Long');
    const nul = await http(origin, 'GET', '/v1/score?workspace_id=%00', { key });
    expectProblem(nul, 400, 'Invalid Parameter');
    expect(nul.json.errors).toEqual([
      { parameter: 'workspace_id', message: expect.stringContaining('U+0000') },
    ]);
    expectProblem(await http(origin, 'GET', '/v1/audit/aud%00x', { key }), 400, 'Invalid Parameter');
    const body = await post('/v1/campaigns', JSON.stringify({ name: 'a\u0000b', start_date: '2099-01-05' }));
    expectProblem(body, 400, 'Invalid Parameter');
    expect(body.json.errors[0].parameter).toBe('name');
    await expectAlive();
  });
});

describe('slow clients', () => {
  it('closes a connection that sends its headers a byte at a time (slowloris)', async () => {
    const head = `GET /v1/workspace HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nX-Slow: `;
    const drip = Array.from({ length: 200 }, () => 'a');
    const slow = await rawExchange(origin, [head, ...drip], { gapMs: 100, deadlineMs: 15_000 });
    expect(slow.closedByServer, 'the server left a slow client connected').toBe(true);
    // requestTimeout, checked every min(30 s, requestTimeout).
    expect(slow.ms).toBeLessThan(REQUEST_TIMEOUT_MS * 2 + 1500);
    if (slow.status !== null) {
      expect(slow.status).toBe(408);
      expect(slow.response).toMatch(/content-type: application\/problem\+json/i);
    }
    await expectAlive();
  });

  it('closes a connection that sends its body a byte at a time (slow POST)', async () => {
    const head =
      `POST /v1/campaigns HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n` +
      'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n';
    const slow = await rawExchange(origin, [head, ...Array.from({ length: 200 }, () => ' ')], {
      gapMs: 100,
      deadlineMs: 15_000,
    });
    expect(slow.closedByServer).toBe(true);
    expect(slow.ms).toBeLessThan(REQUEST_TIMEOUT_MS * 2 + 1500);
    if (slow.status !== null) expect(slow.status).toBeGreaterThanOrEqual(400);
    expect(slow.status).not.toBe(500);
    await expectAlive();
  });

  it('closes a connection that connects and says nothing', async () => {
    const idle = await rawExchange(origin, [], { deadlineMs: 15_000 });
    expect(idle.closedByServer).toBe(true);
    expect(idle.ms).toBeLessThan(REQUEST_TIMEOUT_MS * 2 + 1500);
    await expectAlive();
  });

  it('keeps serving other clients while 50 slow clients hold connections', async () => {
    const head = `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: `;
    const slow = Array.from({ length: 50 }, () =>
      rawExchange(origin, [head, ...Array.from({ length: 100 }, () => 'a')], {
        gapMs: 100,
        deadlineMs: 15_000,
      }),
    );
    const during = await http(origin, 'GET', '/v1/workspace', { key });
    expect(during.status).toBe(200);
    expect(during.ms).toBeLessThan(5000);
    const closed = await Promise.all(slow);
    expect(closed.every((c) => c.closedByServer)).toBe(true);
    await expectAlive();
  });
});

// Items 10-12 of the outside review: numbers are read from text strictly, bodies are typed
// strictly, and an unknown query parameter is a 400 on every route.
describe('input strictness', () => {
  const BAD_INTEGERS = [
    'Infinity',
    '-Infinity',
    '1e400',
    '1e2',
    '1.5',
    '0x10',
    ' 5',
    '5 ',
    '+5',
    '',
    'NaN',
    '9'.repeat(30),
  ];

  /** Every integer query parameter of every route in the OpenAPI document, with a usable path. */
  async function integerQueryParameters(): Promise<Array<{ path: string; name: string }>> {
    const doc = (await http(origin, 'GET', '/openapi.json')).json;
    const out: Array<{ path: string; name: string }> = [];
    for (const [template, item] of Object.entries<any>(doc.paths)) {
      const operation = item.get;
      if (!operation) continue;
      const path = template.replace(/\{[^}]+\}/g, 'wh_missing');
      for (const p of operation.parameters ?? [])
        if (p.in === 'query' && ['integer', 'number'].includes(p.schema?.type))
          out.push({ path, name: p.name });
    }
    return out;
  }

  it('answers 400 naming the parameter to any number that is not a plain decimal integer in range', async () => {
    const targets = await integerQueryParameters();
    // The three routes the review found answering 500, and whatever else the API has.
    for (const expected of ['/v1/campaigns limit', '/v1/campaigns offset', '/v1/export/scores limit'])
      expect(targets.map((t) => `${t.path} ${t.name}`)).toContain(expected);
    expect(targets).toContainEqual({ path: '/v1/webhooks/wh_missing/deliveries', name: 'offset' });
    for (const { path, name } of targets) {
      // The audit log is for signed-in owners and admins: no key scope reaches its validation.
      const as = path === '/v1/audit-log' ? { headers: { cookie: ownerCookie } } : { key };
      for (const value of BAD_INTEGERS) {
        const res = await http(origin, 'GET', `${path}?${name}=${encodeURIComponent(value)}`, as);
        expectProblem(res, 400, 'Invalid Parameter');
        expect(res.json.errors?.[0]?.parameter, `${path}?${name}=${value}`).toBe(name);
      }
      // Out of range either side.
      for (const value of ['-1', '999999999999'])
        expect((await http(origin, 'GET', `${path}?${name}=${value}`, as)).status).toBe(400);
    }
    // Plain decimal integers still work.
    expect((await http(origin, 'GET', '/v1/campaigns?limit=5&offset=0', { key })).status).toBe(200);
    expect((await http(origin, 'GET', '/v1/export/scores?limit=0005', { key })).status).toBe(200);
    await expectAlive();
  });

  it('types JSON bodies strictly: no booleans, strings or numbers stand in for another type', async () => {
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['/v1/audit/run', { lookback_days: true }, 'lookback_days'],
      ['/v1/audit/run', { lookback_days: '90' }, 'lookback_days'],
      ['/v1/audit/run', { lookback_days: 1.5 }, 'lookback_days'],
      ['/v1/audit/run', { platforms: 'instagram' }, 'platforms'],
      ['/v1/audit/run', { platforms: ['instagram'], webhook_url: 123 }, 'webhook_url'],
      ['/v1/campaigns', { name: 123, start_date: '2099-01-05' }, 'name'],
      ['/v1/campaigns', { name: 'Launch', start_date: '2099-01-05', duration_weeks: '4' }, 'duration_weeks'],
      ['/v1/campaigns', { name: 'Launch', start_date: '2099-01-05', duration_weeks: null }, 'duration_weeks'],
      ['/v1/campaigns', { name: ['Launch'], start_date: '2099-01-05' }, 'name'],
      ['/v1/studio/score', { content_type: 'text', content: 42, platform: 'instagram' }, 'content'],
    ];
    for (const [path, body, field] of cases) {
      const res = await post(path, JSON.stringify(body));
      expectProblem(res, 400);
      expect(res.json.errors?.[0]?.parameter, `${path} ${JSON.stringify(body)}`).toBe(field);
    }
    // JSON numbers too large for a double parse as Infinity: still not an integer.
    for (const raw of ['{"lookback_days": 1e400}', '{"lookback_days": -1e400}', '{"lookback_days": 9e15}']) {
      const res = await post('/v1/audit/run', raw);
      expectProblem(res, 400);
      expect(res.json.errors?.[0]?.parameter, raw).toBe('lookback_days');
    }
    const audits = await t.db.selectFrom('audits').select('id').execute();
    expect(audits).toEqual([]);
    await expectAlive();
  });

  it('answers 400 naming an unknown query parameter on every route', async () => {
    const own = await http(origin, 'GET', '/v1/workspace?workspace_id=ws_someone_else', { key });
    expectProblem(own, 400, 'Invalid Parameter');
    expect(own.json.errors[0].parameter).toBe('workspace_id');

    const doc = (await http(origin, 'GET', '/openapi.json')).json;
    let checked = 0;
    for (const [template, item] of Object.entries<any>(doc.paths)) {
      // The API's routes; health probes accept (and ignore) a balancer's cache-busting parameter.
      if (!item.get || !template.startsWith('/v1/')) continue;
      // The OAuth redirect is the platform's request, not an API client's: RFC 6749 4.1.2 says a client
      // MUST ignore response parameters it does not know, so that one route accepts them.
      if (template.endsWith('/callback')) continue;
      // Path parameters with a closed set (a platform) get a valid value; ids get one that matches
      // nothing: either way only the unknown query parameter is wrong.
      const path = template.replace(/\{([^}]+)\}/g, (_match: string, name: string) => {
        const param = (item.get.parameters ?? []).find((p: any) => p.in === 'path' && p.name === name);
        return param?.schema?.enum?.[0] ?? 'x_missing';
      });
      // Required parameters are given a valid value, so that only the unknown one is wrong.
      const required = (item.get.parameters ?? [])
        .filter((p: any) => p.in === 'query' && p.required)
        .map(
          (p: any) =>
            `${p.name}=${encodeURIComponent(p.schema?.enum?.[0] ?? p.schema?.examples?.[0] ?? p.schema?.default ?? 'x')}&`,
        )
        .join('');
      const res = await http(origin, 'GET', `${path}?${required}no_such_parameter=1`, { key });
      // Authorisation runs first: a route this key may not use answers 403 before validation.
      if (res.status === 403) continue;
      expectProblem(res, 400, 'Invalid Parameter');
      expect(res.json.errors[0].parameter, path).toBe('no_such_parameter');
      checked++;
    }
    expect(checked).toBeGreaterThan(8);
  });
});
