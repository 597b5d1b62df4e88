import type { DomainModule } from '../domain-module.ts';
import { webhookFanoutJob } from './fanout.ts';
import { webhookDeliverJob } from './jobs.ts';
import { webhookRoutes } from './routes.ts';

/** Webhook registration, event fan-out and signed delivery (docs/webhooks.md). */
export const webhooksModule: DomainModule = {
  name: 'webhooks',
  routes: webhookRoutes,
  jobs: [webhookFanoutJob, webhookDeliverJob],
};
