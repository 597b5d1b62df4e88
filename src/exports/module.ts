import type { DomainModule } from '../domain-module.ts';
import { exportRoutes } from './routes.ts';

export const exportsModule: DomainModule = { name: 'exports', routes: exportRoutes };
