import type { DomainModule } from '../domain-module.ts';
import { auditRunJob, auditSweepJob } from './jobs.ts';
import { auditsOnTimeline } from './read.ts';
import { auditRoutes } from './routes.ts';
import { auditsSandbox } from './sandbox.ts';

export const auditsModule: DomainModule = {
  name: 'audits',
  routes: auditRoutes,
  jobs: [auditRunJob, auditSweepJob],
  sandbox: auditsSandbox,
  timeline: auditsOnTimeline,
};
