import type { DomainModule } from '../domain-module.ts';
import { connectionsOnTimeline } from './queries.ts';
import { platformRoutes } from './routes.ts';
import { syncJobs, syncTickJob } from './sync-worker.ts';

/**
 * Platform connections: their routes, the scheduled sync of OAuth connections (the sync worker, which
 * refreshes tokens and runs ingest's sync of one connection) and their changes on the timeline.
 */
export const platformsModule: DomainModule = {
  name: 'platforms',
  routes: platformRoutes,
  timeline: connectionsOnTimeline,
  jobs: [syncTickJob, ...Object.values(syncJobs)],
};
