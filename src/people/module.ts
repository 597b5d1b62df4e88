import type { DomainModule } from '../domain-module.ts';
import { peopleRoutes } from './routes.ts';

/** People, their sign-in and their browser sessions (docs/security.md). */
export const peopleModule: DomainModule = { name: 'people', routes: peopleRoutes };
