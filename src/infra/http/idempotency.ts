import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { DB } from '../db/types.ts';
import { KeyRingError } from '../crypto/keyring.ts';
import { sealedAt } from '../crypto/sealed-columns.ts';
import { ProblemError, problems } from './problem.ts';
import { asProblem } from './domain-problems.ts';
import './openapi.ts';

const WINDOW_MS = 24 * 60 * 60 * 1000;
/**
 * A running request's claim on its key lapses this long after its last renewal; the running
 * process renews it every LEASE_RENEW_MS. A claim whose lease lapsed was left by a process that
 * died mid-request, and the next retry with the key takes it over
 * (docs/adr/0148-idempotency-claims-are-leases.md).
 */
export const IDEMPOTENCY_LEASE_MS = 30_000;
const LEASE_RENEW_MS = 10_000;
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
 * is 422; a retry while the first is still running is 409 with Retry-After. Server errors are not
 * stored, so a request that failed on our side can be retried with the same key. The claim is a
 * lease renewed while the request runs: after a crash it lapses within IDEMPOTENCY_LEASE_MS and a
 * retry runs the request.
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
  if (principal.kind === 'workspace' && principal.personId !== null) {
    // Replays are stored per API key (idempotency_keys.owner_key_id references api_keys).
    throw problems.badRequest(
      'Invalid Idempotency Key',
      'Idempotency-Key is kept per API key: send it with an API key, not a session cookie.',
      'Idempotency-Key',
    );
  }
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
  const leaseUntil = () => new Date(ctx.now().getTime() + IDEMPOTENCY_LEASE_MS);
  let claimed = await db
    .insertInto('idempotency_keys')
    .values({
      owner_key_id: principal.keyId,
      idempotency_key: key,
      route,
      request_hash: hash,
      created_at: ctx.now(),
      lease_until: leaseUntil(),
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
      // Still running, or left by a process that died mid-request: a lapsed lease is taken over
      // (one retry wins the update) and this request runs in its place.
      const now = ctx.now();
      claimed = await db
        .updateTable('idempotency_keys')
        .set({ lease_until: leaseUntil() })
        .where('owner_key_id', '=', principal.keyId)
        .where('idempotency_key', '=', key)
        .where('response_status', 'is', null)
        .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', now)]))
        .returning('idempotency_key')
        .executeTakeFirst();
      if (!claimed) {
        const leftMs = (prior.lease_until?.getTime() ?? now.getTime()) - now.getTime();
        throw new ProblemError(
          409,
          'Request In Progress',
          'A request with this Idempotency-Key is still being processed; retry after the time in Retry-After.',
          {
            headers: {
              'Retry-After': String(
                Math.min(Math.max(1, Math.ceil(leftMs / 1000)), IDEMPOTENCY_LEASE_MS / 1000),
              ),
            },
          },
        );
      }
    } else {
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
  }

  // The lease is renewed while the request runs, so only a dead process's claim ever lapses.
  const renewal = setInterval(() => {
    db.updateTable('idempotency_keys')
      .set({ lease_until: leaseUntil() })
      .where('owner_key_id', '=', principal.keyId)
      .where('idempotency_key', '=', key)
      .where('response_status', 'is', null)
      .execute()
      .catch((error: unknown) => request.log.warn({ err: error }, 'idempotency lease renewal failed'));
  }, LEASE_RENEW_MS);
  renewal.unref();

  // Stored sealed: a first response may hold a secret shown once (webhook or delivery secret).
  const store = async (status: number, body: unknown) => {
    const sealed = ctx.keyRing.seal(
      JSON.stringify(body),
      sealedAt('idempotency_keys.response_sealed', `${principal.keyId}/${key}`),
    );
    await db
      .updateTable('idempotency_keys')
      .set({
        response_status: status,
        response_sealed: sealed.ciphertext,
        response_key_id: sealed.keyId,
        lease_until: null,
      })
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
  } finally {
    clearInterval(renewal);
  }
}

/**
 * Deletes keys older than the 24 h window (a key is forgotten then anyway), except a claim whose
 * lease is still live (a request still running).
 */
export async function purgeIdempotencyKeys(db: Kysely<DB>, now: Date): Promise<number> {
  const result = await db
    .deleteFrom('idempotency_keys')
    .where('created_at', '<', new Date(now.getTime() - WINDOW_MS))
    .where((eb) =>
      eb.or([
        eb('response_status', 'is not', null),
        eb('lease_until', 'is', null),
        eb('lease_until', '<=', now),
      ]),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
