import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ProblemError, problems } from './problem.ts';
import { DomainError, type ErrorKind } from '../../core/errors.ts';
import { asProblem, DOMAIN_PROBLEMS, problemFor } from './domain-problems.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Maps a failed schema check on a body or query field to the spec's own error, by its kind in
     * the edge table, e.g. `{ '/platform': 'invalid_platform' }` (422 Invalid Platform).
     */
    validationProblems?: Record<string, ErrorKind>;
  }
}

const FASTIFY_CODES: Record<string, { status: number; title: string; detail: string }> = {
  FST_ERR_CTP_BODY_TOO_LARGE: {
    status: 413,
    title: 'Content Too Large',
    detail: 'The request body is too large.',
  },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    status: 415,
    title: 'Unsupported Media Type',
    detail: 'Send the request body as application/json.',
  },
  FST_ERR_CTP_INVALID_JSON_BODY: {
    status: 400,
    title: 'Malformed JSON',
    detail: 'The request body is not valid JSON.',
  },
  FST_ERR_CTP_EMPTY_JSON_BODY: {
    status: 400,
    title: 'Malformed JSON',
    detail: 'The Content-Type is application/json but the body is empty.',
  },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: {
    status: 400,
    title: 'Bad Request',
    detail: 'The Content-Length does not match the body.',
  },
};

/** Errors that mean the database is unreachable: the client should retry, not give up. */
function isDatabaseUnavailable(error: any): boolean {
  const code = String(error?.code ?? '');
  const message = String(error?.message ?? '');
  return (
    [
      'ECONNREFUSED',
      'ECONNRESET',
      'ETIMEDOUT',
      'EPIPE',
      'EHOSTUNREACH',
      'ENETUNREACH',
      'EAI_AGAIN',
      '57P01', // admin_shutdown: the backend was terminated
      '57P02',
      '57P03', // cannot_connect_now
      '53300', // too_many_connections
      '08000',
      '08001',
      '08003',
      '08004',
      '08006',
    ].includes(code) ||
    // 55000 is a broad SQLSTATE, so the refused-connection case is matched by its message:
    // the database exists but is closed to connections (ALTER DATABASE ... ALLOW_CONNECTIONS false).
    /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|connect ECONNREFUSED|PGlite is closed|database system is (starting up|shutting down|in recovery mode)|is not currently accepting connections/i.test(
      message,
    )
  );
}

function parameterOf(error: FastifyError, context: string | undefined): string {
  const first = error.validation?.[0];
  if (!first) return context ?? 'request';
  const missing = (first.params as { missingProperty?: string } | undefined)?.missingProperty;
  const additional = (first.params as { additionalProperty?: string } | undefined)?.additionalProperty;
  const path = first.instancePath.replace(/^\//, '').replace(/\//g, '.');
  return [path, missing ?? additional].filter(Boolean).join('.') || context || 'request';
}

/** Ajv's error in people's words (its own wording, e.g. "must NOT have additional properties", is not). */
function validationMessage(
  first: NonNullable<FastifyError['validation']>[number] | undefined,
  context: string | undefined,
): string {
  if (!first) return 'is invalid';
  const params = first.params as Record<string, unknown> | undefined;
  if (Array.isArray(params?.allowedValues)) return `must be one of ${params.allowedValues.join(', ')}`;
  switch (first.keyword) {
    case 'additionalProperties':
      return context === 'body'
        ? 'is not a field this request accepts: remove it, or check its spelling against the API reference'
        : 'is not a parameter this request accepts: remove it, or check its spelling against the API reference';
    case 'required':
      return 'is required';
    case 'type': {
      const words: Record<string, string> = {
        integer: 'a whole number',
        number: 'a number',
        string: 'text (a JSON string)',
        boolean: 'true or false',
        array: 'a list (a JSON array)',
        object: 'an object',
      };
      const type = String(params?.type ?? '');
      return first.message?.startsWith('must be a') ? first.message : `must be ${words[type] ?? type}`;
    }
    default:
      return first.message ?? 'is invalid';
  }
}

function send(reply: FastifyReply, request: FastifyRequest, problem: ProblemError): FastifyReply {
  for (const [name, value] of Object.entries(problem.headers)) reply.header(name, value);
  return reply
    .code(problem.status)
    .type('application/problem+json')
    .send(problem.body(request.url.split('?')[0] ?? request.url, String(request.id)));
}

export async function errorsPlugin(app: FastifyInstance): Promise<void> {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const problem = asProblem(error);
    if (problem) return send(reply, request, problem);

    if (error.validation) {
      const parameter = parameterOf(error, error.validationContext);
      const first = error.validation[0];
      const key = first ? `/${parameter.replace(/\./g, '/')}` : '';
      // A missing field is a plain 400 naming it; a present but wrong value gets the route's own error.
      const mapped =
        first?.keyword === 'required' ? undefined : request.routeOptions.config.validationProblems?.[key];
      const message = validationMessage(first, error.validationContext);
      const { status, title } = DOMAIN_PROBLEMS[mapped ?? 'invalid_parameter'];
      return send(
        reply,
        request,
        new ProblemError(status, title, `${parameter} ${message}`, { errors: [{ parameter, message }] }),
      );
    }

    const known = error.code ? FASTIFY_CODES[error.code] : undefined;
    if (known) return send(reply, request, new ProblemError(known.status, known.title, known.detail));

    // A client that hangs up mid-body surfaces as ECONNRESET "aborted" from the body stream: its
    // own doing, not an outage, and nobody is left to read the answer.
    if (request.raw.readableAborted || request.raw.aborted) {
      request.log.info({ code: error.code }, 'client aborted the request before its body was complete');
      return send(reply, request, new ProblemError(400, 'Bad Request', 'The request body was not complete.'));
    }

    if (isDatabaseUnavailable(error)) {
      request.log.warn({ err: error }, 'database unavailable');
      return send(reply, request, problems.unavailable());
    }

    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      return send(reply, request, new ProblemError(status, 'Bad Request', error.message));
    }
    request.log.error({ err: error }, 'unhandled error');
    return send(
      reply,
      request,
      new ProblemError(500, 'Internal Server Error', 'Something went wrong on our side; it has been logged.'),
    );
  });

  app.setNotFoundHandler((request, reply) =>
    send(
      reply,
      request,
      problemFor(new DomainError('not_found', `No route ${request.method} ${request.url.split('?')[0]}.`)),
    ),
  );
}
