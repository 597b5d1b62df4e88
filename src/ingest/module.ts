import type { DomainModule } from '../domain-module.ts';
import { metricsCli } from './cli.ts';

/**
 * Metric ingestion: the connectors, the sync of one connection and file imports, run from the CLI
 * (docs/ingestion.md). The scheduled sync of OAuth connections is the platforms domain's job
 * (src/platforms/module.ts), as are the HTTP routes.
 */
export const ingestModule: DomainModule = {
  name: 'ingest',
  cli: metricsCli,
};
