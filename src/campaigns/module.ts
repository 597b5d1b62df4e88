import type { DomainModule } from '../domain-module.ts';
import { campaignLifecycleJob, requestLifecycleRun } from './jobs.ts';
import { phasesOnTimeline } from './queries.ts';
import { campaignRoutes } from './routes.ts';

export const campaignsModule: DomainModule = {
  name: 'campaigns',
  routes: campaignRoutes,
  jobs: [campaignLifecycleJob],
  // Catch up on phase changes that came due while no worker ran.
  start: requestLifecycleRun,
  timeline: phasesOnTimeline,
};
