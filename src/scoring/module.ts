import type { DomainModule } from '../domain-module.ts';
import { scoreRoutes } from './routes.ts';

export const scoringModule: DomainModule = { name: 'scoring', routes: scoreRoutes };
