import type { FastifyInstance } from 'fastify';

/**
 * Node's requestTimeout stops counting once a request's headers are in, and the idle
 * connectionTimeout restarts with every byte, so a body trickled in a byte at a time would hold
 * its connection (and a request slot) for as long as the client likes. This gives the body the
 * same deadline as the headers: a request whose body has not fully arrived `timeoutMs` after its
 * headers loses its connection. Requests without a body cost one header check.
 */
export async function bodyDeadline(app: FastifyInstance, timeoutMs: number): Promise<void> {
  app.addHook('onRequest', (request, reply, done) => {
    const raw = request.raw;
    const hasBody =
      raw.headers['content-length'] !== undefined || raw.headers['transfer-encoding'] !== undefined;
    if (!hasBody || raw.complete) return done();
    const timer = setTimeout(() => {
      if (!raw.complete) {
        request.log.warn('request body not received in time; closing the connection');
        raw.socket?.destroy();
      }
    }, timeoutMs);
    timer.unref();
    const clear = () => clearTimeout(timer);
    raw.once('end', clear);
    raw.once('close', clear);
    // Answered before reading the body (401, 413 from the header...): the deadline no longer applies.
    reply.raw.once('finish', clear);
    done();
  });
}
