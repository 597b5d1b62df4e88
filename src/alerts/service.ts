import type { Static } from 'typebox';
import type { AppContext } from '../context.ts';
import { DomainError } from '../core/errors.ts';
import type { WorkspacePrincipal } from '../infra/auth/principal.ts';
import type { AlertCondition } from '../infra/db/types.ts';
import { newId } from '../infra/ids.ts';
import { webhookSettings } from '../webhooks/settings.ts';
import { parseWebhookUrl, validateWebhookUrl } from '../webhooks/url-policy.ts';
import { lockWorkspace } from '../workspaces/queries.ts';
import * as q from './queries.ts';
import { conditionParams, type AlertParams, type Drivers } from './rules.ts';
import { MAX_ALERTS_PER_WORKSPACE, type Alert, type CreateAlertBody, type EpisodeList } from './schemas.ts';

export type AlertResource = Static<typeof Alert>;

function toResource(
  row: q.RuleRow,
  latest: { status: 'firing' | 'resolved'; triggered_at: Date } | undefined,
): AlertResource {
  return {
    id: row.id,
    workspace_id: row.workspace_id,
    name: row.name,
    condition: row.condition,
    params: row.params as AlertParams,
    channels: { email: row.email, webhook: row.webhook, slack_url: row.slack_url },
    cooldown_minutes: row.cooldown_minutes,
    status: latest?.status === 'firing' ? 'firing' : 'ok',
    last_triggered_at: latest?.triggered_at.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
  };
}

function notFound(id: string): DomainError<'not_found'> {
  return new DomainError('not_found', `No alert "${id}" is visible to this API key.`);
}

/** Adds an alert rule to the key's workspace; the Slack URL passes the webhooks' outbound checks. */
export async function createAlert(
  ctx: AppContext,
  principal: WorkspacePrincipal,
  input: Static<typeof CreateAlertBody>,
): Promise<AlertResource> {
  const name = input.name.trim();
  if (name.length === 0) {
    throw new DomainError('invalid_parameter', 'name must not be blank.', {
      parameter: 'name',
      message: 'blank',
    });
  }
  const condition = input.condition as AlertCondition;
  const params = conditionParams(condition, {
    threshold: input.threshold,
    points: input.points,
    days: input.days,
    pillar: input.pillar,
    direction: input.direction,
  });
  const email = [...new Set((input.email ?? []).map((e) => e.trim().toLowerCase()))];
  let slackUrl: string | null = null;
  if (input.slack_url !== undefined) {
    parseWebhookUrl(input.slack_url, 'slack_url');
    slackUrl = await validateWebhookUrl(input.slack_url, {
      allowLoopback: ctx.config.allowLoopbackFetch,
      resolve: webhookSettings(ctx).resolve,
      parameter: 'slack_url',
    });
  }
  const webhook = input.webhook ?? false;
  if (email.length === 0 && !webhook && slackUrl === null) {
    throw new DomainError(
      'invalid_parameter',
      'An alert needs at least one channel: email, webhook: true or slack_url.',
      { parameter: 'email', message: 'no channel' },
    );
  }
  const row = await ctx.db.transaction().execute(async (trx) => {
    // Serialises creation per workspace, so the per-workspace limit holds under races.
    await lockWorkspace(trx, principal.workspaceId);
    if ((await q.countRules(trx, principal.workspaceId)) >= MAX_ALERTS_PER_WORKSPACE) {
      throw new DomainError(
        'alert_limit_reached',
        `A workspace can have at most ${MAX_ALERTS_PER_WORKSPACE} alerts; delete one first.`,
      );
    }
    return q.insertRule(trx, {
      id: newId('alr'),
      workspaceId: principal.workspaceId,
      name,
      condition,
      params,
      email,
      webhook,
      slackUrl,
      cooldownMinutes: input.cooldown_minutes ?? 60,
      createdAt: ctx.now(),
    });
  });
  return toResource(row, undefined);
}

export async function listAlerts(ctx: AppContext, principal: WorkspacePrincipal): Promise<AlertResource[]> {
  const [rules, latest] = await Promise.all([
    q.listRules(ctx.db, principal.workspaceId),
    q.latestEpisodes(ctx.db, principal.workspaceId),
  ]);
  const byRule = new Map(latest.map((e) => [e.rule_id, e]));
  return rules.map((r) => toResource(r, byRule.get(r.id)));
}

export async function getAlert(
  ctx: AppContext,
  principal: WorkspacePrincipal,
  id: string,
): Promise<AlertResource> {
  const rule = await q.findRule(ctx.db, principal.workspaceId, id);
  if (!rule) throw notFound(id);
  const latest = (await q.latestEpisodes(ctx.db, principal.workspaceId)).find((e) => e.rule_id === id);
  return toResource(rule, latest);
}

/** Deletes the rule with its history; notifications not sent yet are dropped. */
export async function deleteAlert(ctx: AppContext, principal: WorkspacePrincipal, id: string): Promise<void> {
  if (!(await q.deleteRule(ctx.db, principal.workspaceId, id))) throw notFound(id);
}

/** What fired and why: the rule's episodes, newest first, with how each was notified. */
export async function alertHistory(
  ctx: AppContext,
  principal: WorkspacePrincipal,
  id: string,
  page: { limit: number; offset: number },
): Promise<Static<typeof EpisodeList>> {
  const rule = await q.findRule(ctx.db, principal.workspaceId, id);
  if (!rule) throw notFound(id);
  const { rows, notifications, total } = await q.listEpisodes(ctx.db, rule.id, page.limit, page.offset);
  return {
    episodes: rows.map((e) => ({
      id: e.id,
      status: e.status,
      summary: e.summary,
      drivers: e.drivers as Drivers,
      triggered_at: e.triggered_at.toISOString(),
      resolved_at: e.resolved_at?.toISOString() ?? null,
      resolution: (e.resolution as { summary: string; drivers: Drivers } | null) ?? null,
      notifications: notifications
        .filter((n) => n.episode_id === e.id)
        .map((n) => ({
          phase: n.phase,
          channel: n.channel,
          status: n.status,
          attempts: n.attempts,
          last_error: n.last_error,
          sent_at: n.sent_at?.toISOString() ?? null,
        })),
    })),
    total,
    limit: page.limit,
    offset: page.offset,
  };
}
