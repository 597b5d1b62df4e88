import type { AppContext } from '../context.ts';
import { validateWebhookUrl } from '../webhooks/url-policy.ts';
import { webhookSettings } from '../webhooks/settings.ts';

/**
 * An audit's `webhook_url` is validated exactly like a webhook registration (https only, no
 * credentials, and the host must resolve to public addresses): 400 Invalid URL otherwise.
 * Delivery checks the destination again, since DNS can change.
 */
export async function checkAuditWebhookUrl(ctx: AppContext, raw: string): Promise<string> {
  return validateWebhookUrl(raw, {
    allowLoopback: ctx.config.allowLoopbackFetch,
    resolve: webhookSettings(ctx).resolve,
    parameter: 'webhook_url',
  });
}
