import type { DomainModule } from '../domain-module.ts';
import { tacsiCli } from './cli.ts';
import { tacsiPublicationJobs } from './jobs.ts';
import { tacsiRoutes } from './routes.ts';
import { tacsiSandbox } from './sandbox.ts';

/** TACSI: the sector index feeds (routes), its scheduled publication (jobs), CLI and sandbox data. */
export const tacsiModule: DomainModule = {
  name: 'tacsi',
  routes: tacsiRoutes,
  jobs: tacsiPublicationJobs,
  cli: tacsiCli,
  sandbox: tacsiSandbox,
};
