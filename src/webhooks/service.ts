import type { Static } from 'typebox';
import type { AppContext } from '../context.ts';
import type { WorkspacePrincipal } from '../infra/auth/principal.ts';
import { DomainError } from '../core/errors.ts';
import { newId } from '../infra/ids.ts';
import { actorOf, recordAudit } from '../audit-log/record.ts';
import * as q from './queries.ts';
import type { CreatedWebhook, DeliveryList, Webhook } from './schemas.ts';
import { lockWorkspace } from '../workspaces/queries.ts';
import { sealedAt } from '../infra/crypto/sealed-columns.ts';
import { generateSecret, validateSecret } from './secrets.ts';
import { MAX_WEBHOOKS_PER_WORKSPACE, webhookSettings } from './settings.ts';
import { parseWebhookUrl, validateWebhookUrl } from './url-policy.ts';
import { EVENT_TYPES, type EventType } from '../core/catalog.ts';

export type WebhookResource = Static<typeof Webhook>;

type WebhookRow = {
  id: string;
  url: string;
  events: EventType[];
  status: 'active' | 'disabled';
  disabled_reason: string | null;
  created_at: Date;
};

function toResource(row: WebhookRow): WebhookResource {
  return {
    id: row.id,
    url: row.url,
    events: row.events,
    status: row.status,
    disabled_reason: row.disabled_reason,
    created_at: row.created_at.toISOString(),
  };
}

/**
 * The subscribed event names, duplicates dropped (first occurrence kept). Unknown names, or
 * none at all, are the spec's 422 "Invalid Events", naming each unknown one.
 */
export function parseEvents(events: string[]): EventType[] {
  const unknown = [...new Set(events.filter((e) => !(EVENT_TYPES as readonly string[]).includes(e)))];
  if (unknown.length > 0) {
    const names = unknown.map((e) => JSON.stringify(e)).join(', ');
    throw new DomainError(
      'invalid_events',
      `Unrecognised event name${unknown.length > 1 ? 's' : ''} ${names}; use ${EVENT_TYPES.join(', ')}.`,
      { parameter: 'events', message: `not recognised: ${names}`, invalid: unknown },
    );
  }
  if (events.length === 0) {
    throw new DomainError('invalid_events', `events must name at least one of ${EVENT_TYPES.join(', ')}.`, {
      parameter: 'events',
      message: 'must not be empty',
      invalid: [],
    });
  }
  return [...new Set(events)] as EventType[];
}

export interface CreateWebhookInput {
  url: string;
  events: string[];
  secret?: string;
}

/** Registers a webhook on the key's own workspace; the secret is returned here and never again. */
export async function createWebhook(
  ctx: AppContext,
  principal: WorkspacePrincipal,
  input: CreateWebhookInput,
  address: string | null,
): Promise<Static<typeof CreatedWebhook>> {
  // Cheap checks first, in the spec's order of statuses: 400 URL, 422 events, then the rest.
  parseWebhookUrl(input.url, { allowLoopback: ctx.config.allowLoopbackFetch });
  const events = parseEvents(input.events);
  if (input.secret !== undefined) validateSecret(input.secret);
  const url = await validateWebhookUrl(input.url, {
    allowLoopback: ctx.config.allowLoopbackFetch,
    resolve: webhookSettings(ctx).resolve,
  });
  const secret = input.secret ?? generateSecret();

  const row = await ctx.db.transaction().execute(async (trx) => {
    // Serialises creation per workspace, so the per-workspace limit holds under races.
    await lockWorkspace(trx, principal.workspaceId);
    if ((await q.countLiveWebhooks(trx, principal.workspaceId)) >= MAX_WEBHOOKS_PER_WORKSPACE) {
      throw new DomainError(
        'webhook_limit_reached',
        `A workspace can have at most ${MAX_WEBHOOKS_PER_WORKSPACE} webhooks; delete one first.`,
      );
    }
    const id = newId('wh');
    const now = ctx.now();
    const created = await q.insertWebhook(trx, {
      id,
      workspaceId: principal.workspaceId,
      url,
      events,
      secret: ctx.keyRing.seal(secret, sealedAt('webhooks.secret', id)),
      createdAt: now,
    });
    await recordAudit(trx, {
      actor: actorOf(principal),
      action: 'webhook.created',
      target: id,
      detail: `${url} (${events.join(', ')})`,
      address,
      workspaceId: principal.workspaceId,
      at: now,
    });
    return created;
  });
  return { ...toResource(row), secret };
}

export async function listWebhooks(
  ctx: AppContext,
  principal: WorkspacePrincipal,
): Promise<WebhookResource[]> {
  return (await q.listLiveWebhooks(ctx.db, principal.workspaceId)).map(toResource);
}

function notFound(id: string): DomainError<'not_found'> {
  return new DomainError('not_found', `No webhook "${id}" is visible to this API key.`);
}

/** Soft delete: deliveries already made stay readable for support; pending ones are dropped. */
export async function deleteWebhook(
  ctx: AppContext,
  principal: WorkspacePrincipal,
  id: string,
  address: string | null,
): Promise<void> {
  const now = ctx.now();
  await ctx.db.transaction().execute(async (trx) => {
    const deleted = await q.softDeleteWebhook(trx, principal.workspaceId, id, now);
    if (!deleted) throw notFound(id);
    await recordAudit(trx, {
      actor: actorOf(principal),
      action: 'webhook.deleted',
      target: id,
      address,
      workspaceId: principal.workspaceId,
      at: now,
    });
  });
}

export async function listDeliveries(
  ctx: AppContext,
  principal: WorkspacePrincipal,
  webhookId: string,
  page: { limit: number; offset: number },
): Promise<Static<typeof DeliveryList>> {
  const webhook = await q.findLiveWebhook(ctx.db, principal.workspaceId, webhookId);
  if (!webhook) throw notFound(webhookId);
  const { rows, total } = await q.listDeliveries(ctx.db, webhook.id, page.limit, page.offset);
  return {
    deliveries: rows.map((r) => ({
      id: r.id,
      event_id: r.event_id,
      event_type: r.event_type,
      status: r.status,
      attempts: r.attempts,
      last_status_code: r.last_status_code,
      last_error: r.last_error,
      created_at: r.created_at.toISOString(),
      last_attempt_at: r.last_attempt_at?.toISOString() ?? null,
      delivered_at: r.delivered_at?.toISOString() ?? null,
    })),
    total,
    limit: page.limit,
    offset: page.offset,
  };
}
