import type { Kysely, Transaction } from 'kysely';
import type { WorkspaceChange } from './core/workspace-change.ts';
import type { Timeline } from './annotations/timeline-types.ts';
import type { Authenticator } from './infra/auth/authenticator.ts';
import type { Config } from './infra/config.ts';
import type { KeyRing } from './infra/crypto/keyring.ts';
import type { Database } from './infra/db/database.ts';
import type { DB } from './infra/db/types.ts';
import type { Jobs } from './infra/jobs/jobs.ts';
import type { Mailer } from './infra/mail/mailer.ts';
import type { Metrics } from './infra/observability/metrics.ts';
import type { RateLimitStore } from './infra/ratelimit/store.ts';
import type { ServiceState } from './infra/state.ts';
import type { Action } from './core/permissions.ts';
import type { Plan } from './core/catalog.ts';

/** What a person may do in a workspace now, through their membership there or in its agency. */
export interface MemberAccess {
  /** The workspace of the membership (the agency's, for one of its clients). */
  workspaceId: string;
  plan: Plan;
  actions: ReadonlySet<Action>;
}

/** Everything a domain needs from the process, passed explicitly instead of imported globals. */
export interface AppContext {
  config: Config;
  database: Database;
  db: Kysely<DB>;
  jobs: Jobs;
  authenticator: Authenticator;
  rateLimits: RateLimitStore;
  metrics: Metrics;
  /** Outgoing email: SMTP, or the outbox folder without SMTP_URL. */
  mail: Mailer;
  /** Seals secrets at rest (webhook secrets; platform tokens later). */
  keyRing: KeyRing;
  /** Domains' per-service state (caches, test settings): see infra/state.ts. */
  state: ServiceState;
  /** Wall clock; tests may replace it to move time. */
  now: () => Date;
  /** A workspace's timeline: every domain's entries (DomainModule.timeline), put together. */
  timeline: Timeline;
  /**
   * The people domain's rule of what a person may do in a workspace now (null: not a member), for a
   * domain that re-checks later what a person started (a platform authorisation completing).
   */
  memberAccess: (personId: string, workspaceId: string) => Promise<MemberAccess | null>;
  /**
   * Tells the domains that react to a workspace's recorded change (DomainModule.onWorkspaceChange:
   * alerts), in the recording transaction.
   */
  workspaceChanged: (trx: Transaction<DB>, change: WorkspaceChange) => Promise<void>;
}

declare module 'fastify' {
  interface FastifyInstance {
    ctx: AppContext;
  }
}
