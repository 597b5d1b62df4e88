import type { FastifyInstance } from 'fastify';
import type { AppContext } from './context.ts';

/** A domain area plugs into the service through this: its routes and its durable jobs. */
export interface DomainModule {
  name: string;
  routes?: (app: FastifyInstance) => Promise<void>;
  /** Declare queues, workers and schedules on ctx.jobs. Called once before start. */
  jobs?: (ctx: AppContext) => void;
  /** Runs once when this process starts its workers (e.g. a catch-up run after downtime). */
  start?: (ctx: AppContext) => Promise<void>;
}
