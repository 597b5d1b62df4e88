import type { FastifyReply } from 'fastify';

/** The media type Fastify gives a body it serializes itself. */
const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * Sends JSON already serialized (a cached answer): Fastify sends a Buffer as is, skipping the response
 * serializer, while the route's response schema still documents the body in OpenAPI. Typed as a plain
 * reply because the type provider types send() as the schema's object, not its JSON text.
 */
export function sendJsonBytes(reply: FastifyReply, body: Buffer): FastifyReply {
  return reply.type(JSON_CONTENT_TYPE).send(body);
}

/** The body as the route's own 200 serializer writes it: a cached answer is byte for byte the uncached one. */
export function serialize200(reply: FastifyReply, body: object): Buffer {
  return Buffer.from(
    reply.serializeInput(body as Record<string, unknown>, '200', 'application/json') as string,
  );
}
