import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { requestChildLogger } from '../../src/infra/http/request-logger.ts';

// Request loggers built lazily below `info` must write exactly the lines pino's per-request child
// writes: same levels, same bindings (reqId), same redaction, nothing below the level.
async function linesFrom(level: 'info' | 'warn', lazy: boolean) {
  const lines: Array<Record<string, unknown>> = [];
  let next = 0;
  const app = Fastify({
    logger: {
      level,
      stream: { write: (line: string) => void lines.push(JSON.parse(line)) },
      redact: { paths: ['*.secret'], censor: '[redacted]' },
    },
    genReqId: () => `req_${++next}`,
    ...(lazy ? { childLoggerFactory: requestChildLogger } : {}),
  });
  app.get('/quiet', async (request) => {
    request.log.info('not at warn');
    request.log.debug('never');
    return { ok: true };
  });
  app.get('/warns', async (request) => {
    request.log.warn({ detail: { secret: 's3cret', kept: 1 } }, 'something odd');
    request.log.child({ part: 'inner' }).warn('from a child');
    return { ok: true };
  });
  app.get('/fails', async () => {
    throw new Error('boom');
  });
  for (const url of ['/quiet', '/warns', '/fails', '/quiet']) await app.inject({ method: 'GET', url });
  await app.close();
  return lines.map(({ time: _time, pid: _pid, hostname: _host, responseTime: _rt, ...rest }) => rest);
}

describe('lazy request loggers', () => {
  it('write the same lines as eager pino children, at warn and at info', async () => {
    const warn = await linesFrom('warn', true);
    expect(warn).toEqual(await linesFrom('warn', false));
    expect(warn.map((l) => [l.reqId, l.msg])).toEqual([
      ['req_2', 'something odd'],
      ['req_2', 'from a child'],
      ['req_3', 'boom'],
    ]);
    expect(warn[0]).toMatchObject({ level: 40, detail: { secret: '[redacted]', kept: 1 } });
    expect(warn[1]).toMatchObject({ part: 'inner' });
    expect(await linesFrom('info', true)).toEqual(await linesFrom('info', false));
  });
});
