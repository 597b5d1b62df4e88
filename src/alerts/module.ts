import type { DomainModule } from '../domain-module.ts';
import { alertEvaluateJob, enqueueAlertEvaluation } from './evaluate.ts';
import { alertNotifyJob } from './notify.ts';
import { crisesOnTimeline } from './queries.ts';
import { alertRoutes } from './routes.ts';

/** Alert rules on the score and the connections, evaluated as scores are recorded (docs/alerts.md). */
export const alertsModule: DomainModule = {
  name: 'alerts',
  routes: alertRoutes,
  jobs: [alertEvaluateJob, alertNotifyJob],
  timeline: crisesOnTimeline,
  onWorkspaceChange: enqueueAlertEvaluation,
};
