import type { DomainModule } from '../domain-module.ts';
import { metricsCli } from './cli.ts';
import { syncJobs, syncTickJob } from './sync-worker.ts';

/**
 * Metric ingestion: file imports and connector syncs from the CLI, and the scheduled sync of
 * OAuth connections (docs/ingestion.md). Its HTTP surface lives with the platforms' routes.
 */
export const ingestModule: DomainModule = {
  name: 'ingest',
  cli: metricsCli,
  jobs: [syncTickJob, ...Object.values(syncJobs)],
};
