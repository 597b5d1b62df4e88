import type { FastifyInstance } from 'fastify';
import type { DomainModule } from '../domain-module.ts';
import { peopleRoutes } from './routes.ts';
import { teamRoutes } from './team-routes.ts';
import { ssoRoutes } from './sso-routes.ts';
import { peopleSandbox } from './sandbox.ts';

/** People, their sign-in (password or single sign-on), their browser sessions, and their teams (docs/security.md). */
export const peopleModule: DomainModule = {
  name: 'people',
  routes: async (app: FastifyInstance) => {
    await peopleRoutes(app);
    await teamRoutes(app);
    await ssoRoutes(app);
  },
  sandbox: peopleSandbox,
};
