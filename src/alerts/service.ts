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
import {
  MAX_ALERTS_PER_WORKSPACE,
  type Alert,
  type CreateAlertBody,
  type EpisodeList,
  type UpdateAlertBody,
} from './schemas.ts';

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
    enabled: row.enabled,
    status: latest?.status === 'firing' ? 'firing' : 'ok',
    last_triggered_at: latest?.triggered_at.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
  };
}

function notFound(id: string): DomainError<'not_found'> {
  return new DomainError('not_found', `No alert "${id}" is visible to this API key.`);
}

const NO_CHANNEL = 'An alert needs at least one channel: email, webhook: true or slack_url.';

function ruleName(raw: string): string {
  const name = raw.trim();
  if (name.length === 0) {
    throw new DomainError('invalid_parameter', 'name must not be blank.', {
      parameter: 'name',
      message: 'blank',
    });
  }
  return name;
}

function recipients(list: readonly string[]): string[] {
  return [...new Set(list.map((e) => e.trim().toLowerCase()))];
}

/** A Slack URL that passed the webhooks' outbound checks (400 Invalid URL otherwise). */
async function checkedSlackUrl(ctx: AppContext, url: string): Promise<string> {
  parseWebhookUrl(url, { parameter: 'slack_url', allowLoopback: ctx.config.allowLoopbackFetch });
  return validateWebhookUrl(url, {
    allowLoopback: ctx.config.allowLoopbackFetch,
    resolve: webhookSettings(ctx).resolve,
    parameter: 'slack_url',
  });
}

/** Adds an alert rule to the key's workspace; the Slack URL passes the webhooks' outbound checks. */
export async function createAlert(
  ctx: AppContext,
  principal: WorkspacePrincipal,
  input: Static<typeof CreateAlertBody>,
): Promise<AlertResource> {
  const name = ruleName(input.name);
  const condition = input.condition as AlertCondition;
  const params = conditionParams(condition, {
    threshold: input.threshold,
    points: input.points,
    days: input.days,
    pillar: input.pillar,
    direction: input.direction,
  });
  const email = recipients(input.email ?? []);
  const slackUrl = input.slack_url !== undefined ? await checkedSlackUrl(ctx, input.slack_url) : null;
  const webhook = input.webhook ?? false;
  if (email.length === 0 && !webhook && slackUrl === null) {
    throw new DomainError('invalid_parameter', NO_CHANNEL, { parameter: 'email', message: 'no channel' });
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

/**
 * Changes a rule of the key's workspace: its name, its condition's parameters (the condition itself
 * stays), its channels, its cooldown, whether it is evaluated. Checks that need only the request are
 * 400s; a change the stored rule refuses (a parameter its condition does not use, no channel left) is
 * 422 Invalid Alert Change. The rule is locked while it changes, so an evaluation sees the old or the
 * new rule, never a mix.
 */
export async function updateAlert(
  ctx: AppContext,
  principal: WorkspacePrincipal,
  id: string,
  input: Static<typeof UpdateAlertBody>,
): Promise<AlertResource> {
  const name = input.name !== undefined ? ruleName(input.name) : undefined;
  const email = input.email !== undefined ? recipients(input.email) : undefined;
  const slackUrl =
    input.slack_url === undefined || input.slack_url === null
      ? input.slack_url
      : await checkedSlackUrl(ctx, input.slack_url);
  const given: AlertParams = {};
  for (const key of ['threshold', 'points', 'days', 'pillar', 'direction'] as const) {
    if (input[key] !== undefined) (given as Record<string, unknown>)[key] = input[key];
  }
  const row = await ctx.db.transaction().execute(async (trx) => {
    const rule = await q.lockRule(trx, principal.workspaceId, id);
    if (!rule) throw notFound(id);
    let params: AlertParams | undefined;
    if (Object.keys(given).length > 0) {
      try {
        params = conditionParams(rule.condition, { ...(rule.params as AlertParams), ...given });
      } catch (error) {
        if (error instanceof DomainError && error.kind === 'invalid_parameter') {
          const refused = error as DomainError<'invalid_parameter'>;
          throw new DomainError('invalid_alert_change', refused.detail, refused.details);
        }
        throw error;
      }
    }
    const channels = {
      email: email ?? rule.email,
      webhook: input.webhook ?? rule.webhook,
      slackUrl: slackUrl === undefined ? rule.slack_url : slackUrl,
    };
    if (channels.email.length === 0 && !channels.webhook && channels.slackUrl === null) {
      throw new DomainError('invalid_alert_change', NO_CHANNEL, {
        parameter: 'email',
        message: 'no channel would be left',
      });
    }
    return q.updateRule(trx, principal.workspaceId, id, {
      name,
      params,
      email,
      webhook: input.webhook,
      slackUrl,
      cooldownMinutes: input.cooldown_minutes,
      enabled: input.enabled,
    });
  });
  if (!row) throw notFound(id);
  const latest = (await q.latestEpisodes(ctx.db, principal.workspaceId)).find((e) => e.rule_id === id);
  return toResource(row, latest);
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
