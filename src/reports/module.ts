import type { DomainModule } from '../domain-module.ts';
import { reportGenerateJob, reportTickJob } from './jobs.ts';
import { reportRoutes } from './routes.ts';

/** Scheduled PDF reports with an agency's white label (docs/reports.md). */
export const reportsModule: DomainModule = {
  name: 'reports',
  routes: reportRoutes,
  jobs: [reportGenerateJob, reportTickJob],
  start: async (ctx) => {
    // Catch up after downtime: periods that closed while no worker ran.
    await reportTickJob.enqueue(ctx, {});
  },
};
