import type { DomainModule } from '../domain-module.ts';
import { campaignJobs, requestLifecycleRun } from './jobs.ts';
import { campaignRoutes } from './routes.ts';

export const campaignsModule: DomainModule = {
  name: 'campaigns',
  routes: campaignRoutes,
  jobs: campaignJobs,
  // Catch up on phase changes that came due while no worker ran.
  start: requestLifecycleRun,
};
