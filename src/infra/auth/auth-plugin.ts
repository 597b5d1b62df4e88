import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../../core/errors.ts';
import { problems } from '../http/problem.ts';
import type { RateLimitStore, WindowHit } from '../ratelimit/store.ts';
import type { Authenticator } from './authenticator.ts';
import { allows, type Action, PEOPLE_ONLY_ACTIONS } from '../../core/permissions.ts';
import type { Principal, SubscriberPrincipal, WorkspacePrincipal } from './principal.ts';
import {
  type Plan,
  PLAN_LABELS,
  PLAN_LIMITS,
  planAtLeast,
  SUBSCRIBER_REQUESTS_PER_MINUTE,
} from '../../core/catalog.ts';

/** What a route demands of the caller's key, declared in the route's `config.auth`. */
export interface AuthRequirement {
  /** `workspace` routes serve workspace keys; `tacsi` routes serve any key and decide entitlement themselves. */
  audience: 'workspace' | 'tacsi';
  /**
   * What the route does (src/core/permissions.ts): allowed to a key whose scopes grant it and to a
   * signed-in person whose role grants it, by the one check `allows`.
   */
  action: Action;
  /** Minimum plan of the key owner's workspace. */
  plan?: Plan;
  /** The spec answers some plan denials as "Forbidden" (exports) rather than "Plan Required". */
  planDenial?: 'plan_required' | 'forbidden';
}

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: AuthRequirement;
  }
  interface FastifyRequest {
    principal: Principal | null;
  }
}

const WINDOW_MS = 60_000;

/**
 * Requests without a valid key (none, malformed, unknown, wrong secret, revoked, expired) allowed per
 * client address per minute; past it, a request whose key is not already verified in memory is
 * answered 429 without a database lookup until the window ends. Counted in the rate-limit store, so
 * shared across instances with Redis (docs/adr/0086-requests-without-a-valid-key.md).
 */
export const AUTH_FAILURES_PER_MINUTE = 300;
/** Addresses over the limit, and until when (ms): bounded, swept when it grows. */
const MAX_BLOCKED = 10_000;

/** Why a principal may not perform an action, in its own terms (role or key scopes). */
function denial(principal: WorkspacePrincipal, action: Action): DomainError<'forbidden'> {
  if (principal.role !== null) {
    return new DomainError(
      'forbidden',
      `Your role in this workspace (${principal.role}) does not allow "${action}".`,
    );
  }
  if (PEOPLE_ONLY_ACTIONS.has(action)) {
    return new DomainError('forbidden', `"${action}" is for signed-in people: no API key scope grants it.`);
  }
  return new DomainError(
    'forbidden',
    `This key's scopes (${principal.scopes.join(', ') || 'none'}) do not allow "${action}".`,
  );
}

/**
 * Establishes the principal of a request with a session cookie and no Authorization header (the
 * people domain supplies it: src/people/principal.ts); null when the request has no session cookie.
 */
export type SessionResolver = (request: FastifyRequest) => Promise<WorkspacePrincipal | null>;

export function workspacePrincipal(request: FastifyRequest): WorkspacePrincipal {
  const p = request.principal;
  if (!p || p.kind !== 'workspace') throw new Error('route is missing config.auth with audience workspace');
  return p;
}

export function anyPrincipal(request: FastifyRequest): Principal {
  if (!request.principal) throw new Error('route is missing config.auth');
  return request.principal;
}

export type { SubscriberPrincipal };

/** `RateLimit-Policy` per limit: the same few strings on every request. */
const POLICIES = new Map<number, string>();
function policyHeader(limit: number): string {
  let policy = POLICIES.get(limit);
  if (policy === undefined) {
    // draft-ietf-httpapi-ratelimit-headers: the policy and what is left of it.
    policy = `"per-key";q=${limit};w=${WINDOW_MS / 1000}`;
    POLICIES.set(limit, policy);
  }
  return policy;
}

export async function authPlugin(
  app: FastifyInstance,
  deps: { authenticator: Authenticator; rateLimits: RateLimitStore; sessions?: SessionResolver },
): Promise<void> {
  app.decorateRequest('principal', null);

  const blocked = new Map<string, number>();
  function blockedFor(ip: string, now = Date.now()): number {
    const until = blocked.get(ip);
    if (until === undefined) return 0;
    if (until <= now) {
      blocked.delete(ip);
      return 0;
    }
    return until - now;
  }
  /** Counts a request without a valid key against its address; the problem to answer. */
  async function refused(request: FastifyRequest) {
    let hit: WindowHit | null = null;
    try {
      hit = await deps.rateLimits.hit(`auth-fail:${request.ip}`, WINDOW_MS);
    } catch (error) {
      rateLimitUnavailable(request, error);
    }
    if (hit && hit.count > AUTH_FAILURES_PER_MINUTE) {
      if (blocked.size >= MAX_BLOCKED) {
        const now = Date.now();
        for (const [ip, until] of blocked) if (until <= now) blocked.delete(ip);
        if (blocked.size >= MAX_BLOCKED) blocked.clear();
      }
      blocked.set(request.ip, Date.now() + hit.resetMs);
      return problems.authFailuresLimited(Math.max(1, Math.ceil(hit.resetMs / 1000)));
    }
    return problems.unauthorized();
  }

  /** Rate limit and requirement checks once the principal is known; throws the problem to answer. */
  function admit(
    request: FastifyRequest,
    reply: FastifyReply,
    requirement: AuthRequirement,
    principal: Principal,
    hit: WindowHit | null,
  ): void {
    if (hit) {
      const limit =
        principal.kind === 'workspace'
          ? PLAN_LIMITS[principal.plan].requestsPerMinute
          : SUBSCRIBER_REQUESTS_PER_MINUTE;
      const resetSeconds = Math.max(1, Math.ceil(hit.resetMs / 1000));
      const policy = policyHeader(limit);
      const remaining = `"per-key";r=${Math.max(0, limit - hit.count)};t=${resetSeconds}`;
      if (hit.count > limit)
        throw problems.rateLimited(resetSeconds, { 'RateLimit-Policy': policy, RateLimit: remaining });
      reply.header('RateLimit-Policy', policy).header('RateLimit', remaining);
    }

    if (requirement.audience === 'workspace') {
      if (principal.kind !== 'workspace') {
        throw new DomainError(
          'forbidden',
          'This key belongs to a TACSI subscription and can only read the /v1/tacsi feeds.',
        );
      }
      if (requirement.plan && !planAtLeast(principal.plan, requirement.plan)) {
        if (requirement.planDenial === 'forbidden') {
          throw new DomainError(
            'forbidden',
            `The key owner's plan must be ${PLAN_LABELS[requirement.plan]} or above.`,
          );
        }
        throw problems.planRequired(requirement.plan, PLAN_LABELS[requirement.plan]);
      }
    }
    if (requirement.audience === 'tacsi' || principal.kind !== 'workspace') return; // the entitlement check answers with the uniform denial
    if (!allows(principal.actions, requirement.action)) throw denial(principal, requirement.action);
  }

  function rateLimitUnavailable(request: FastifyRequest, error: unknown): null {
    // A rate-limit store outage must not take the API down with it: fail open, loudly.
    request.log.warn({ err: error }, 'rate limit store unavailable; request allowed');
    return null;
  }

  async function admitAsync(
    request: FastifyRequest,
    reply: FastifyReply,
    requirement: AuthRequirement,
    known: Principal | null | undefined,
  ): Promise<void> {
    if (known === undefined) {
      // A key not verified yet costs a database lookup: not for an address over its failure limit.
      const wait = blockedFor(request.ip);
      if (wait > 0) throw problems.authFailuresLimited(Math.max(1, Math.ceil(wait / 1000)));
    }
    // A key verified earlier, from memory: its last use is recorded when due (at most once a minute).
    if (known) await deps.authenticator.recordUseIfDue(known.keyId);
    let principal =
      known === undefined ? await deps.authenticator.authenticate(request.headers.authorization) : known;
    if (!principal && !request.headers.authorization && deps.sessions)
      principal = await deps.sessions(request);
    if (!principal) throw await refused(request);
    request.principal = principal;
    let hit: WindowHit | null;
    try {
      hit = await deps.rateLimits.hit(principal.keyId, WINDOW_MS);
    } catch (error) {
      hit = rateLimitUnavailable(request, error);
    }
    admit(request, reply, requirement, principal, hit);
  }

  // onRequest: before the body is read, so an unauthenticated caller costs no parsing. A callback
  // hook: a key verified earlier with an in-process rate-limit counter is admitted synchronously
  // (no promise, no microtask); anything else (first sight of a key, Redis) takes the async path.
  app.addHook('onRequest', (request, reply, done) => {
    const requirement = request.routeOptions.config.auth;
    if (!requirement) return done();

    const principal = deps.authenticator.authenticateCached(request.headers.authorization);
    if (
      principal === undefined ||
      (principal !== null && (!deps.rateLimits.hitNow || deps.authenticator.useDue(principal.keyId)))
    ) {
      admitAsync(request, reply, requirement, principal).then(() => done(), done);
      return;
    }
    if (!principal) {
      if (!request.headers.authorization && deps.sessions && request.headers.cookie) {
        admitAsync(request, reply, requirement, undefined).then(() => done(), done);
        return;
      }
      refused(request).then(done, done);
      return;
    }
    request.principal = principal;
    let hit: WindowHit | null;
    try {
      hit = deps.rateLimits.hitNow!(principal.keyId, WINDOW_MS);
    } catch (error) {
      hit = rateLimitUnavailable(request, error);
    }
    admit(request, reply, requirement, principal, hit); // a throw here is answered like done(error)
    done();
  });
}
