import type { FastifyInstance } from 'fastify';
import type { TimelineSource } from './annotations/timeline-types.ts';
import type { CliExtension } from './infra/cli/registry.ts';
import type { AppContext } from './context.ts';
import type { Transaction } from 'kysely';
import type { DB } from './infra/db/types.ts';
import type { WorkspaceChange } from './core/workspace-change.ts';
import type { JobDefinition } from './infra/jobs/define.ts';
import type { SandboxManifest } from './sandbox/manifest.ts';

/**
 * Domains extend the sandbox after the base seed (workspaces, keys, sectors, metric history).
 * Each extension must be idempotent: `demo` may run again on the same database.
 */
export interface SandboxExtension {
  name: string;
  /** Extensions whose data this one reads (by name): it runs after them, whatever the DOMAINS order. */
  after?: string[];
  run: (ctx: AppContext, manifest: SandboxManifest, log: (line: string) => void) => Promise<void>;
}

/**
 * A domain area plugs into the service, the CLI and the sandbox through this. The registries
 * (src/domains.ts, read by app.ts, src/cli/commands.ts and src/sandbox/extensions.ts) import the
 * domains; domains import only this module's types, so the import graph stays acyclic.
 */
export interface DomainModule {
  name: string;
  routes?: (app: FastifyInstance) => Promise<void>;
  /** This domain's jobs (defineJob), registered on every service before it starts. */
  jobs?: ReadonlyArray<JobDefinition<never>>;
  /** Runs once when this process starts its workers (e.g. a catch-up run after downtime). */
  start?: (ctx: AppContext) => Promise<void>;
  /** Subcommands this domain adds to the `brandhealth` CLI. */
  cli?: CliExtension;
  /** Seeds this domain's sandbox data, in DOMAINS order, after the base seed. */
  sandbox?: SandboxExtension;
  /** What this domain puts on a workspace's timeline (the score history's annotations, reports). */
  timeline?: TimelineSource;
  /**
   * Called in the transaction that records a workspace's change (a score, a connection needing the
   * brand), collected into AppContext.workspaceChanged: the recorder need not know who reacts.
   */
  onWorkspaceChange?: (ctx: AppContext, trx: Transaction<DB>, change: WorkspaceChange) => Promise<void>;
}
