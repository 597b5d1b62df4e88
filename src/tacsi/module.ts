import type { DomainModule } from '../domain-module.ts';
import { tacsiJobs } from './jobs.ts';
import { tacsiRoutes } from './routes.ts';

/** TACSI: the sector index feeds (routes) and its scheduled publication (jobs). */
export const tacsiModule: DomainModule = { name: 'tacsi', routes: tacsiRoutes, jobs: tacsiJobs };
