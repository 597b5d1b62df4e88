import type { DomainModule } from './domain-module.ts';
import { platformRoutes } from './platforms/routes.ts';
import { workspaceRoutes } from './workspaces/routes.ts';

/** Every domain area of the service. Each owns its routes, service, queries and jobs. */
export const DOMAINS: DomainModule[] = [
  { name: 'workspaces', routes: workspaceRoutes },
  { name: 'platforms', routes: platformRoutes },
];
