import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorsPlugin } from '../../src/infra/http/errors-plugin.ts';
import { ProblemError } from '../../src/infra/http/problem.ts';
import { DomainError } from '../../src/core/errors.ts';

// The errors plugin on a bare Fastify instance with test routes: every failure becomes an
// RFC 9457 problem, in milliseconds, without booting the service.
let app: FastifyInstance;
beforeAll(async () => {
  app = Fastify({ logger: false });
  await errorsPlugin(app);
  app.get('/problem', async () => {
    throw new ProblemError(409, 'Conflict', 'already there', { headers: { 'Retry-After': '7' } });
  });
  app.get('/early', async () => {
    throw new DomainError('too_early', 'still running', {
      auditId: 'aud_1',
      estimatedCompletion: '2030-01-01T00:00:00.000Z',
      retryAfterSeconds: 42,
    });
  });
  app.get('/events', async () => {
    throw new DomainError('invalid_events', 'bad events', {
      parameter: 'events',
      message: 'not recognised: "x"',
      invalid: ['x'],
    });
  });
  app.get('/boom', async () => {
    throw new Error('secret internals');
  });
  app.get('/db-down', async () => {
    throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
  });
  app.post(
    '/typed',
    {
      schema: {
        body: {
          type: 'object',
          required: ['name'],
          properties: {
            name: { type: 'string' },
            platform: { type: 'string', enum: ['instagram', 'tiktok'] },
          },
        },
      },
      config: { validationProblems: { '/platform': 'invalid_platform' } },
    },
    async () => ({ ok: true }),
  );
  await app.ready();
});
afterAll(() => app.close());

const problem = (res: { headers: Record<string, unknown>; json(): any }) => {
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  return res.json();
};

describe('errors plugin', () => {
  it('sends a thrown ProblemError as is, with its headers, instance and request id', async () => {
    const res = await app.inject({ method: 'GET', url: '/problem?x=1' });
    expect(res.statusCode).toBe(409);
    expect(res.headers['retry-after']).toBe('7');
    const body = problem(res);
    expect(body).toMatchObject({
      status: 409,
      title: 'Conflict',
      detail: 'already there',
      instance: '/problem',
    });
    expect(typeof body.type).toBe('string');
  });

  it('answers a domain error through the edge table: status, title, headers, extensions, errors', async () => {
    const early = await app.inject({ method: 'GET', url: '/early' });
    expect(early.statusCode).toBe(425);
    expect(early.headers['retry-after']).toBe('42');
    expect(problem(early)).toEqual({
      type: '/problems/too-early',
      title: 'Too Early',
      status: 425,
      detail: 'still running',
      instance: '/early',
      request_id: expect.any(String),
      audit_id: 'aud_1',
      estimated_completion: '2030-01-01T00:00:00.000Z',
    });

    const events = await app.inject({ method: 'GET', url: '/events' });
    expect(events.statusCode).toBe(422);
    expect(problem(events)).toMatchObject({
      title: 'Invalid Events',
      detail: 'bad events',
      errors: [{ parameter: 'events', message: 'not recognised: "x"' }],
      invalid_events: ['x'],
    });
  });

  it('hides an unexpected error behind a 500 problem', async () => {
    const res = await app.inject({ method: 'GET', url: '/boom' });
    expect(res.statusCode).toBe(500);
    expect(res.body).not.toContain('secret internals');
    expect(problem(res).title).toBe('Internal Server Error');
  });

  it('answers 503 with Retry-After when the database is unreachable', async () => {
    const res = await app.inject({ method: 'GET', url: '/db-down' });
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('5');
    expect(problem(res).title).toBe('Service Unavailable');
  });

  it('names the missing field in a 400 and maps a wrong value to the route’s own problem', async () => {
    const missing = await app.inject({ method: 'POST', url: '/typed', payload: {} });
    expect(missing.statusCode).toBe(400);
    expect(problem(missing)).toMatchObject({ title: 'Invalid Parameter', errors: [{ parameter: 'name' }] });

    const wrong = await app.inject({
      method: 'POST',
      url: '/typed',
      payload: { name: 'a', platform: 'myspace' },
    });
    expect(wrong.statusCode).toBe(422);
    expect(problem(wrong)).toMatchObject({ title: 'Invalid Platform', errors: [{ parameter: 'platform' }] });
    expect(wrong.json().detail).toContain('must be one of instagram, tiktok');
  });

  it('turns Fastify body errors into problems: malformed JSON, wrong media type, unknown route', async () => {
    const malformed = await app.inject({
      method: 'POST',
      url: '/typed',
      headers: { 'content-type': 'application/json' },
      payload: '{"name":',
    });
    expect(malformed.statusCode).toBe(400);
    expect(problem(malformed).title).toBe('Malformed JSON');

    const media = await app.inject({
      method: 'POST',
      url: '/typed',
      headers: { 'content-type': 'text/csv' },
      payload: 'a,b',
    });
    expect(media.statusCode).toBe(415);
    expect(problem(media).title).toBe('Unsupported Media Type');

    const missing = await app.inject({ method: 'GET', url: '/nowhere?q=1' });
    expect(missing.statusCode).toBe(404);
    expect(problem(missing).detail).toBe('No route GET /nowhere.');
  });
});
