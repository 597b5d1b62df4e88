import type { DomainModule } from './domain-module.ts';
import { auditsModule } from './audits/module.ts';
import { campaignsModule } from './campaigns/module.ts';
import { exportsModule } from './exports/module.ts';
import { ingestModule } from './ingest/module.ts';
import { platformsModule } from './platforms/module.ts';
import { connectRoutes } from './platforms/connect-routes.ts';
import { scoringModule } from './scoring/module.ts';
import { webhooksModule } from './webhooks/module.ts';
import { workspaceRoutes } from './workspace-overview/routes.ts';
import { currentScoreRoutes } from './workspace-overview/score-routes.ts';
import { studioRoutes } from './studio/routes.ts';
import { tacsiModule } from './tacsi/module.ts';
import { retentionModule } from './retention/module.ts';
import { peopleModule } from './people/module.ts';
import { annotationsModule } from './annotations/module.ts';
import { alertsModule } from './alerts/module.ts';
import { reportsModule } from './reports/module.ts';

/** Every domain area of the service. Each owns its routes, service, queries, jobs, CLI and sandbox data. */
export const DOMAINS: DomainModule[] = [
  { name: 'workspace-overview', routes: workspaceRoutes },
  { name: 'current-score', routes: currentScoreRoutes },
  platformsModule,
  { name: 'platform-connections', routes: connectRoutes },
  { name: 'studio', routes: studioRoutes },
  scoringModule,
  auditsModule,
  campaignsModule,
  exportsModule,
  ingestModule,
  webhooksModule,
  tacsiModule,
  retentionModule,
  peopleModule,
  annotationsModule,
  alertsModule,
  reportsModule,
];
