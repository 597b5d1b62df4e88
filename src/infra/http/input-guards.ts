import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { invalidParameter } from '../../core/errors.ts';
import { ProblemError } from './problem.ts';

/**
 * The path of the first string holding U+0000 in `value` (query, path parameters or body), or
 * null. Iterative: a body may nest far deeper than the call stack allows.
 */
export function findNulCharacter(value: unknown, root: string): string | null {
  const stack: Array<[unknown, string]> = [[value, root]];
  while (stack.length) {
    const [node, path] = stack.pop()!;
    if (typeof node === 'string') {
      if (node.includes('\u0000')) return path;
    } else if (Array.isArray(node)) {
      for (let i = node.length - 1; i >= 0; i--) stack.push([node[i], `${path}[${i}]`]);
    } else if (node !== null && typeof node === 'object') {
      for (const [key, child] of Object.entries(node)) {
        if (key.includes('\u0000')) return path ? `${path}.${key}` : key;
        stack.push([child, path ? `${path}.${key}` : key]);
      }
    }
  }
  return null;
}

/**
 * Input no route can use, refused before any handler sees it:
 * - U+0000 in a query, path or body string. PostgreSQL text cannot hold it, so a query with one
 *   fails (22021) and would surface as a 500 from whichever route passed it on.
 */
export async function inputGuards(app: FastifyInstance): Promise<void> {
  app.addHook('preHandler', (request, _reply, done) => {
    for (const value of [request.params, request.query, request.body]) {
      const path = findNulCharacter(value, '');
      if (path !== null)
        return done(invalidParameter(path || 'body', 'must not contain the character U+0000'));
    }
    done();
  });
}

/**
 * Fastify answers a URL it cannot decode (400) or a path parameter longer than maxParamLength
 * (414) before routing, with its own JSON; these make them problem+json like every other error.
 */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const problem =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? new ProblemError(414, 'URI Too Long', 'A path parameter is longer than any identifier can be.')
      : error.code === 'FST_ERR_BAD_URL'
        ? new ProblemError(400, 'Bad Request', 'The URL is not valid: check its percent-encoding.')
        : new ProblemError(
            500,
            'Internal Server Error',
            'Something went wrong on our side; it has been logged.',
          );
  void reply
    .code(problem.status)
    .type('application/problem+json')
    .send(problem.body(request.url.split('?')[0] ?? request.url, String(request.id)));
}

const CLIENT_ERRORS: Record<string, ProblemError> = {
  HPE_HEADER_OVERFLOW: new ProblemError(
    431,
    'Request Header Fields Too Large',
    'The request headers are larger than 16 KB in total.',
  ),
  ERR_HTTP_REQUEST_TIMEOUT: new ProblemError(
    408,
    'Request Timeout',
    'The request did not arrive in time; send it again without pausing.',
  ),
};

/**
 * Node answers some requests itself, before Fastify has a request: headers over its limit (431),
 * headers not in within requestTimeout (408), unparseable HTTP (400). Fastify's default writes
 * plain JSON; this writes the same problem+json as every other error, with a request id.
 */
export function clientErrorHandler(nextRequestId: () => string) {
  return function (this: FastifyInstance, error: NodeJS.ErrnoException, socket: Duplex): void {
    // A reset connection has nobody to answer (Node's own rule).
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const problem =
      CLIENT_ERRORS[error.code ?? ''] ??
      new ProblemError(400, 'Bad Request', 'The request is not valid HTTP/1.1.');
    const id = nextRequestId();
    this.log.debug({ err: error, reqId: id }, 'client error answered by the server');
    if (socket.writable) {
      const { instance: _none, ...body } = problem.body('', id);
      const json = JSON.stringify(body);
      socket.write(
        `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status]}\r\n` +
          `Content-Type: application/problem+json\r\nContent-Length: ${Buffer.byteLength(json)}\r\n` +
          `X-Request-Id: ${id}\r\nConnection: close\r\n\r\n${json}`,
      );
    }
    socket.destroy();
  };
}
