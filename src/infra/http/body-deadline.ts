import type { FastifyInstance } from 'fastify';

/**
 * Node's requestTimeout stops counting once a request's headers are in, and the idle
 * connectionTimeout restarts with every byte, so a body trickled in a byte at a time would hold
 * its connection (and a request slot) for as long as the client likes. This gives the body the
 * same deadline as the headers: a request whose body has not fully arrived `timeoutMs` after its
 * headers loses its connection. Requests without a body cost one header check. A request answered
 * before its body arrived (an early 401 or 413) is answered with `Connection: close` and its
 * connection ends with the answer.
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
    // Answered before the body arrived (401, 413 from the header...): nothing more will be read, so
    // the connection ends with the answer instead of waiting for the rest of a body nobody wants
    // (Node would keep reading and discarding it for as long as the client trickles it).
    reply.raw.once('finish', () => {
      clear();
      if (raw.complete) return;
      const socket = raw.socket;
      socket?.end();
      setTimeout(() => socket?.destroy(), EARLY_ANSWER_GRACE_MS).unref();
    });
    done();
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    const raw = request.raw;
    if (
      !raw.complete &&
      (raw.headers['content-length'] !== undefined || raw.headers['transfer-encoding'] !== undefined)
    )
      reply.header('Connection', 'close');
    done(null, payload);
  });
}

/** After an early answer, the client has this long to read it before the socket is destroyed. */
const EARLY_ANSWER_GRACE_MS = 1_000;
