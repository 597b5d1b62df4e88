import type { FastifyInstance } from 'fastify';
import type { DomainModule } from '../domain-module.ts';
import { peopleRoutes } from './routes.ts';
import { passkeyRoutes } from './passkey-routes.ts';
import { teamRoutes } from './team-routes.ts';
import { auditLogRoutes } from './audit-log-routes.ts';
import { ssoRoutes } from './sso-routes.ts';
import { peopleSandbox } from './sandbox.ts';

/**
 * People, their sign-in (password, passkey or single sign-on), their browser sessions, their teams, and the
 * audit log's reading (docs/security.md).
 */
export const peopleModule: DomainModule = {
  name: 'people',
  routes: async (app: FastifyInstance) => {
    await peopleRoutes(app);
    await passkeyRoutes(app);
    await teamRoutes(app);
    await auditLogRoutes(app);
    await ssoRoutes(app);
  },
  sandbox: peopleSandbox,
};
