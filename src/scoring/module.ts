import type { DomainModule } from '../domain-module.ts';
import { scoreRoutes } from './routes.ts';
import { scoringSandbox } from './sandbox.ts';

export const scoringModule: DomainModule = { name: 'scoring', routes: scoreRoutes, sandbox: scoringSandbox };
