import type { DomainModule } from '../domain-module.ts';
import { auditLogRoutes } from './routes.ts';

/** The audit log of security-relevant actions: recorded by each domain, read here (docs/security.md). */
export const auditLogModule: DomainModule = {
  name: 'audit-log',
  routes: auditLogRoutes,
};
