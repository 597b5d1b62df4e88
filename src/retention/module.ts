import type { DomainModule } from '../domain-module.ts';
import { retentionPurgeJob } from './jobs.ts';

/** The daily purge of rows past their retention (docs/operations.md, "Retention"). */
export const retentionModule: DomainModule = {
  name: 'retention',
  jobs: [retentionPurgeJob],
};
