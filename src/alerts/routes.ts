import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { workspacePrincipal } from '../infra/auth/auth-plugin.ts';
import { idempotent } from '../infra/http/idempotency.ts';
import { errorResponses, json } from '../infra/http/schemas.ts';
import { alertHistory, createAlert, deleteAlert, getAlert, listAlerts, updateAlert } from './service.ts';
import {
  Alert,
  ALERT_EXAMPLE,
  AlertId,
  AlertList,
  CreateAlertBody,
  DeletedAlert,
  EPISODE_LIST_EXAMPLE,
  EpisodeList,
  EpisodeListQuery,
  MAX_ALERTS_PER_WORKSPACE,
  UpdateAlertBody,
} from './schemas.ts';

/** Alert rules and their history (docs/alerts.md); the plan rules of webhooks (agency and up). */
export async function alertRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/v1/alerts',
    {
      config: {
        auth: { audience: 'workspace', plan: 'agency', action: 'alert.manage' },
        validationProblems: { '/slack_url': 'invalid_url' },
        idempotencyKey: true,
      },
      schema: {
        operationId: 'createAlert',
        tags: ['alerts'],
        summary: 'Add an alert rule (extension)',
        description:
          'A condition on the score (score_below, score_drop, pillar_change, grade_change, crisis) or the ' +
          'connections (connection_needs_brand), evaluated whenever a score is recorded, and its channels: ' +
          'email recipients, the alert.triggered / alert.resolved webhook events, a Slack incoming-webhook URL. ' +
          `At most ${MAX_ALERTS_PER_WORKSPACE} alerts per workspace (422 Alert Limit Reached). ` +
          'Supports the Idempotency-Key header.',
        body: CreateAlertBody,
        response: {
          201: json(Alert, 'The alert', { ...ALERT_EXAMPLE, status: 'ok', last_triggered_at: null }),
          ...errorResponses(400, 403, 409, 422),
        },
      },
    },
    async (request, reply) => {
      const principal = workspacePrincipal(request);
      return idempotent(app.ctx, request, reply, async () => ({
        status: 201,
        body: await createAlert(app.ctx, principal, request.body),
      }));
    },
  );

  app.get(
    '/v1/alerts',
    {
      config: { auth: { audience: 'workspace', plan: 'agency', action: 'score.read' } },
      schema: {
        operationId: 'listAlerts',
        tags: ['alerts'],
        summary: 'List alert rules (extension)',
        description: "The workspace's alerts, oldest first, each with whether it is firing now.",
        response: {
          200: json(AlertList, 'The alerts', { alerts: [ALERT_EXAMPLE] }),
          ...errorResponses(403),
        },
      },
    },
    async (request) => ({ alerts: await listAlerts(app.ctx, workspacePrincipal(request)) }),
  );

  app.get(
    '/v1/alerts/:alert_id',
    {
      config: { auth: { audience: 'workspace', plan: 'agency', action: 'score.read' } },
      schema: {
        operationId: 'getAlert',
        tags: ['alerts'],
        summary: 'Read an alert rule (extension)',
        description: "Another tenant's alert is 404.",
        params: AlertId,
        response: { 200: json(Alert, 'The alert', ALERT_EXAMPLE), ...errorResponses(403, 404) },
      },
    },
    async (request) => getAlert(app.ctx, workspacePrincipal(request), request.params.alert_id),
  );

  app.patch(
    '/v1/alerts/:alert_id',
    {
      config: {
        auth: { audience: 'workspace', plan: 'agency', action: 'alert.manage' },
        validationProblems: { '/slack_url': 'invalid_url' },
      },
      schema: {
        operationId: 'updateAlert',
        tags: ['alerts'],
        summary: 'Change an alert rule (extension)',
        description:
          'Changes the fields given: name, the parameters of the condition (the condition itself stays), the ' +
          'channels (email replaces the recipients, slack_url null removes Slack), cooldown_minutes, enabled ' +
          '(false keeps the rule and its history but stops evaluating it). A parameter the condition does not ' +
          "use, or a change that leaves no channel, is 422 Invalid Alert Change. Another tenant's alert is 404.",
        params: AlertId,
        body: UpdateAlertBody,
        response: {
          200: json(Alert, 'The alert as changed', ALERT_EXAMPLE),
          ...errorResponses(400, 403, 404, 422),
        },
      },
    },
    async (request) =>
      updateAlert(app.ctx, workspacePrincipal(request), request.params.alert_id, request.body),
  );

  app.delete(
    '/v1/alerts/:alert_id',
    {
      config: { auth: { audience: 'workspace', plan: 'agency', action: 'alert.manage' } },
      schema: {
        operationId: 'deleteAlert',
        tags: ['alerts'],
        summary: 'Delete an alert rule (extension)',
        description:
          "Deletes the alert and its history; notifications not sent yet are dropped. Another tenant's alert is 404.",
        params: AlertId,
        response: {
          200: json(DeletedAlert, 'Deleted', { id: ALERT_EXAMPLE.id, deleted: true }),
          ...errorResponses(403, 404),
        },
      },
    },
    async (request) => {
      await deleteAlert(app.ctx, workspacePrincipal(request), request.params.alert_id);
      return { id: request.params.alert_id, deleted: true as const };
    },
  );

  app.get(
    '/v1/alerts/:alert_id/history',
    {
      config: { auth: { audience: 'workspace', plan: 'agency', action: 'score.read' } },
      schema: {
        operationId: 'listAlertHistory',
        tags: ['alerts'],
        summary: 'What an alert fired on, and why (extension)',
        description:
          'The episodes of the alert, newest first: what made it fire (summary and drivers: the figures the ' +
          'condition looked at, the pillars that moved, the audit or sync that moved the score), when and why ' +
          'it resolved, and how each channel was notified. Page with limit and offset.',
        params: AlertId,
        querystring: EpisodeListQuery,
        response: {
          200: json(EpisodeList, 'One page of episodes', EPISODE_LIST_EXAMPLE),
          ...errorResponses(403, 404),
        },
      },
    },
    async (request) =>
      alertHistory(app.ctx, workspacePrincipal(request), request.params.alert_id, {
        limit: request.query.limit,
        offset: request.query.offset,
      }),
  );
}
