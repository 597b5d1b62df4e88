import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { sql } from 'kysely';
import type { AppContext } from '../../context.ts';
import { KeyRingError } from '../crypto/keyring.ts';
import { sealedAt } from '../crypto/sealed-columns.ts';
import { problems } from './problem.ts';
import { asProblem } from './domain-problems.ts';
import './openapi.ts';

const WINDOW_MS = 24 * 60 * 60 * 1000;
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** Stable JSON: the same body with keys in another order is the same request. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/**
 * Stripe-style idempotency for a POST: the same `Idempotency-Key` and body within 24 hours
 * replays the first response (with `Idempotent-Replayed: true`); the same key with another body
 * is 422; a retry while the first is still running is 409. Server errors are not stored, so a
 * request that failed on our side can be retried with the same key.
 */
export async function idempotent<T>(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  run: () => Promise<{ status: number; body: T }>,
): Promise<T> {
  // The document lists Idempotency-Key from this flag (openapi.ts): the two must not drift apart.
  if (request.routeOptions.config.idempotencyKey !== true)
    throw new Error(`${request.method} ${request.routeOptions.url} needs config.idempotencyKey`);
  const header = request.headers['idempotency-key'];
  if (header === undefined) {
    const result = await run();
    reply.code(result.status);
    return result.body;
  }
  const key = Array.isArray(header) ? header[0]! : header;
  if (!KEY_PATTERN.test(key)) {
    throw problems.badRequest(
      'Invalid Idempotency Key',
      'Idempotency-Key must be 1-255 visible ASCII characters.',
      'Idempotency-Key',
    );
  }
  const principal = request.principal;
  if (!principal) throw new Error('idempotent() needs an authenticated route');
  const route = `${request.method} ${request.routeOptions.url}`;
  const hash = createHash('sha256')
    .update(canonical({ route, body: request.body ?? null }))
    .digest('hex');
  const { db } = ctx;
  const cutoff = new Date(ctx.now().getTime() - WINDOW_MS);

  // Keys older than the window are forgotten, so the same key may start a new request.
  await db
    .deleteFrom('idempotency_keys')
    .where('owner_key_id', '=', principal.keyId)
    .where('idempotency_key', '=', key)
    .where('created_at', '<', cutoff)
    .execute();
  const claimed = await db
    .insertInto('idempotency_keys')
    .values({
      owner_key_id: principal.keyId,
      idempotency_key: key,
      route,
      request_hash: hash,
      created_at: ctx.now(),
    })
    .onConflict((oc) => oc.doNothing())
    .returning('idempotency_key')
    .executeTakeFirst();

  if (!claimed) {
    const prior = await db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('owner_key_id', '=', principal.keyId)
      .where('idempotency_key', '=', key)
      .executeTakeFirstOrThrow();
    if (prior.request_hash !== hash) {
      throw problems.unprocessable(
        'Idempotency Key Reused',
        'This Idempotency-Key was already used with a different request; use a new key for a new request.',
      );
    }
    if (prior.response_status === null) {
      throw problems.conflict(
        'Request In Progress',
        'A request with this Idempotency-Key is still being processed; retry shortly.',
      );
    }
    let priorBody: unknown = prior.response_body;
    if (prior.response_sealed !== null && prior.response_key_id !== null) {
      let opened: string;
      try {
        opened = ctx.keyRing.open(
          { ciphertext: prior.response_sealed, keyId: prior.response_key_id },
          sealedAt('idempotency_keys.response_sealed', `${principal.keyId}/${key}`),
        );
      } catch (error) {
        if (!(error instanceof KeyRingError)) throw error;
        // Not this key's stored response (moved there from another row, or altered; the key ring logged it).
        throw problems.conflict(
          'Idempotent Response Unavailable',
          'The response stored for this Idempotency-Key cannot be replayed; use a new key for a new request.',
        );
      }
      priorBody = JSON.parse(opened);
    }
    reply.header('Idempotent-Replayed', 'true');
    if (prior.response_status >= 400) {
      const body = priorBody as Record<string, unknown>;
      reply.code(prior.response_status).type('application/problem+json');
      return body as T;
    }
    reply.code(prior.response_status);
    return priorBody as T;
  }

  // Stored sealed: a first response may hold a secret shown once (webhook or delivery secret).
  const store = async (status: number, body: unknown) => {
    const sealed = ctx.keyRing.seal(
      JSON.stringify(body),
      sealedAt('idempotency_keys.response_sealed', `${principal.keyId}/${key}`),
    );
    await db
      .updateTable('idempotency_keys')
      .set({ response_status: status, response_sealed: sealed.ciphertext, response_key_id: sealed.keyId })
      .where('owner_key_id', '=', principal.keyId)
      .where('idempotency_key', '=', key)
      .execute();
  };
  try {
    const result = await run();
    await store(result.status, result.body);
    reply.code(result.status);
    return result.body;
  } catch (error) {
    const problem = asProblem(error);
    if (problem && problem.status < 500) {
      await store(problem.status, problem.body(request.url.split('?')[0] ?? request.url, String(request.id)));
    } else {
      await db
        .deleteFrom('idempotency_keys')
        .where('owner_key_id', '=', principal.keyId)
        .where('idempotency_key', '=', key)
        .where(sql<boolean>`response_status IS NULL`)
        .execute();
    }
    throw error;
  }
}
