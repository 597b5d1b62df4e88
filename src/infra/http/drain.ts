import type { FastifyInstance } from 'fastify';

declare module 'fastify' {
  interface FastifyInstance {
    /** Set once shutdown begins: /readyz answers 503 and keep-alive connections end after each response. */
    drain: { active: boolean };
  }
}

/**
 * The first phase of a graceful shutdown behind a load balancer. Closing the listener at once
 * races the balancer: it keeps sending on its pooled keep-alive connections until its next
 * health check, and a request written as the server closes an idle connection is lost ("other
 * side closed") or answered 503. While draining, the instance still serves every request but
 * fails readiness (the balancer stops choosing it) and answers with `Connection: close`, so each
 * pooled connection ends cleanly at a response boundary instead of under a request in flight.
 */
export async function drainSupport(app: FastifyInstance): Promise<void> {
  const drain = { active: false };
  app.decorate('drain', drain);
  app.addHook('onRequest', (_request, reply, done) => {
    if (drain.active) reply.header('connection', 'close');
    done();
  });
}
