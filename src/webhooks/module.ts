import type { DomainModule } from '../domain-module.ts';
import { webhookDeliverJob, webhookFanoutJob } from './jobs.ts';
import { webhookRoutes } from './routes.ts';

/** Webhook registration, event fan-out and signed delivery (docs/webhooks.md). */
export const webhooksModule: DomainModule = {
  name: 'webhooks',
  routes: webhookRoutes,
  jobs: [webhookFanoutJob, webhookDeliverJob],
};
